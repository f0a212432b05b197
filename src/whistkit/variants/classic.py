"""Classic whist (docs/rules.md §4-5): English short whist and American scoring.

The dealer's last card is turned up and fixes trumps; it stays public until the dealer
plays it. Forehand leads. A side's first six tricks are its book; each trick over six is
one point.

- **English** (§5a): game 5; honours (A K Q J of trumps held at the deal) score 4 for all
  four and 2 for three, barred for a side at 4; within a hand revoke penalties, then
  tricks, then honours, stopping at the step where a side reaches game; game values
  treble/double/single by the losers' score; a rubber is the best of three games.
- **American** (§5b): game 7, no honours, every point of the hand counts, game value
  ``7 - L`` (or ``W - L``); a single game or a rubber.

The match (games won, the rubber) is immutable state in ``State.extra``.

>>> english_game_value(0), english_game_value(2), english_game_value(4)
(3, 2, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..cards import SUIT_NAMES, SUITS, Card, Hand, card_name
from ..seats import SIDES, Seat
from ..state import Contract, Deal, HandResult, State
from .base import HandScore, OptionError, Options, Variant

ENGLISH, AMERICAN = "english", "american"
REVOKE_METHODS = ("add", "deduct", "transfer", "claimant_choice")
# the A K Q J of a suit, as rank indices
HONOUR_RANKS = (12, 11, 10, 9)
# names that mean classic whist with either scoring, chosen by option classic_scoring
GENERIC_ALIASES = ("whist", "classic")


# -- pure scoring ------------------------------------------------------------------------


def honours_held(deal: tuple[Hand, Hand, Hand, Hand], trump: int) -> tuple[int, int]:
    """How many of the trump A K Q J each side held at the start of the hand (§5a).

    The turned-up card is part of the dealer's hand, so it counts for his side.
    """
    held = [0, 0]
    for rank in HONOUR_RANKS:
        card = trump * 13 + rank
        for seat in range(4):
            if deal[seat] >> card & 1:
                held[seat & 1] += 1
    return held[0], held[1]


def honour_points(count: int) -> int:
    """4 for all four honours, 2 for three, else nothing (LAWS 3)."""
    return 4 if count == 4 else 2 if count == 3 else 0


def english_game_value(losers: int) -> int:
    """Treble (3) if the losers have 0, double (2) for 1-2, single (1) for 3-4 (LAWS 8)."""
    return 3 if losers == 0 else 2 if losers <= 2 else 1


@dataclass(frozen=True)
class EnglishHand:
    """The outcome of one English hand (§5a), each pair indexed NS, EW."""

    score: tuple[int, int]  # the game score after the hand
    tricks: tuple[int, int]  # after any trick transfer
    penalties: tuple[int, int]  # points each side's score changed by revoke penalties
    honours: tuple[int, int]  # honour points scored (0 when barred or not reached)
    winner: int | None  # the side that reached game in this hand


def score_english(
    start: tuple[int, int],
    tricks: tuple[int, int],
    held: tuple[int, int],
    revokes: tuple[tuple[int, str], ...] = (),
    *,
    target: int = 5,
    barred_at_four: bool = True,
    revoker_capped: bool = True,
) -> EnglishHand:
    """Score one English hand in the order of LAWS 5: revokes, tricks, honours.

    ``revokes`` lists ``(offending side, method)`` for each penalised revoke, with method
    ``add``, ``deduct`` or ``transfer``. After each step the game ends if a side has
    ``target``; later steps are not applied. A revoking side is capped at ``target - 1``
    (LAWS 82).

    >>> score_english((3, 2), (6, 7), (4, 0)).score  # V22
    (7, 3)
    >>> score_english((3, 2), (8, 5), (0, 4)).score  # V23
    (5, 2)
    """
    score = [start[0], start[1]]
    t = [tricks[0], tricks[1]]
    penalties = [0, 0]
    honours = [0, 0]
    capped = {side for side, _ in revokes} if revoker_capped else set()

    def settle() -> int | None:
        for side in capped:
            score[side] = min(score[side], target - 1)
        for side in (0, 1):
            if score[side] >= target:
                return side
        return None

    # step 1: revoke penalties (LAWS 72)
    for side, method in revokes:
        if method == "add":
            score[side ^ 1] += 3
            penalties[side ^ 1] += 3
        elif method == "deduct":
            lost = min(3, score[side])  # [D10] no score below 0
            score[side] -= lost
            penalties[side] -= lost
        elif method == "transfer":
            moved = min(3, t[side])  # [D10] at most the tricks the side has
            t[side] -= moved
            t[side ^ 1] += moved
        else:
            raise ValueError(f"unknown revoke method {method!r}")
    winner = settle()
    # step 2: tricks over the book of six
    if winner is None:
        for side in (0, 1):
            if t[side] >= 7:
                score[side] += t[side] - 6
        winner = settle()
    # step 3: honours, barred for a side that was one short of game when the deal began
    if winner is None:
        for side in (0, 1):
            if barred_at_four and start[side] == target - 1:
                continue
            pts = honour_points(held[side])
            score[side] += pts
            honours[side] = pts
        winner = settle()
    return EnglishHand(
        score=(score[0], score[1]),
        tricks=(t[0], t[1]),
        penalties=(penalties[0], penalties[1]),
        honours=(honours[0], honours[1]),
        winner=winner,
    )


@dataclass(frozen=True)
class AmericanHand:
    """The outcome of one American hand (§5b), each pair indexed NS, EW."""

    score: tuple[int, int]
    penalties: tuple[int, int]
    winner: int | None


def score_american(
    start: tuple[int, int],
    tricks: tuple[int, int],
    revoking_sides: tuple[int, ...] = (),
    *,
    target: int = 7,
    revoker_capped: bool = True,
) -> AmericanHand:
    """Score one American hand: 2 to the opponents per revoke, then odd tricks (§5b).

    The game ends at the end of a hand in which a side reaches ``target``. A revoking side
    is capped at ``target - 1`` [D7]. Without the cap both sides could reach the target in
    one hand: then the higher total wins, and at equal totals the side that got there
    first, the revoke step coming before the tricks (a decision of this module).

    >>> score_american((5, 3), (9, 4)).score  # V31
    (8, 3)
    >>> score_american((0, 0), (6, 7), (1,)).score  # V32
    (2, 1)
    """
    score = [start[0], start[1]]
    penalties = [0, 0]
    for side in revoking_sides:
        score[side ^ 1] += 2
        penalties[side ^ 1] += 2
    first = None
    for side in (0, 1):
        if score[side] >= target and side not in revoking_sides:
            first = side
    for side in (0, 1):
        if tricks[side] >= 7:
            score[side] += tricks[side] - 6
    if revoker_capped:
        for side in set(revoking_sides):
            score[side] = min(score[side], target - 1)
    reached = [side for side in (0, 1) if score[side] >= target]
    winner: int | None = None
    if len(reached) == 1:
        winner = reached[0]
    elif reached:
        if score[0] != score[1]:
            winner = 0 if score[0] > score[1] else 1
        else:
            winner = first if first is not None else 0
    return AmericanHand((score[0], score[1]), (penalties[0], penalties[1]), winner)


def american_game_value(winners: int, losers: int, rule: str, target: int = 7) -> int:
    """``target - L`` ("seven_minus_losers", WEB) or ``W - L`` ("difference", S2) [D8].

    A won game is worth at least 1, which only matters when both sides passed the target
    in the last hand (possible only without ``revoker_capped``).

    >>> american_game_value(8, 3, "seven_minus_losers"), american_game_value(8, 3, "difference")
    (4, 5)
    """
    value = winners - losers if rule == "difference" else target - losers
    return max(1, value)


@dataclass(frozen=True)
class GameResult:
    """One finished game of a match."""

    winner: int  # side
    score: tuple[int, int]
    value: int


@dataclass(frozen=True)
class Rubber:
    """A finished rubber: its winners and their net points (LAWS 1, 9-10)."""

    winner: int
    net: int


def rubber_result(games: tuple[GameResult, ...]) -> Rubber | None:
    """The rubber once a side has won two games, else None.

    The winners score their game values plus 2, less the losers' game value, if the
    losers won a game (LAWS 9-10).

    >>> g = GameResult
    >>> rubber_result((g(0, (5, 4), 1), g(1, (1, 5), 2), g(0, (5, 0), 3)))  # V29
    Rubber(winner=0, net=4)
    """
    wins = [0, 0]
    for g in games:
        wins[g.winner] += 1
    for side in (0, 1):
        if wins[side] >= 2:
            mine = sum(g.value for g in games if g.winner == side)
            theirs = sum(g.value for g in games if g.winner != side)
            return Rubber(side, mine + 2 - theirs)
    return None


# -- options and the variants --------------------------------------------------------------


@dataclass(frozen=True)
class ClassicOptions(Options):
    # §8: which scoring; fixed by the variant ("english" or "american"), accepted for the
    # aliases "whist" and "classic", which choose the variant with it
    classic_scoring: str = ENGLISH
    # §5a LAWS 82, §5b [D7]: a side that revoked in a deal cannot reach game on it
    revoker_capped: bool = True

    CHOICES: ClassVar[Mapping[str, tuple[Any, ...]]] = {
        **Options.CHOICES,
        "classic_scoring": (ENGLISH, AMERICAN),
    }
    # the scoring of the variant these options are for, which classic_scoring must name
    SCORING: ClassVar[str | None] = None

    def validate(self) -> None:
        super().validate()
        if self.SCORING is not None and self.classic_scoring != self.SCORING:
            other = AMERICAN if self.SCORING == ENGLISH else ENGLISH
            raise OptionError(
                f"option 'classic_scoring': the {self.SCORING} variant scores"
                f" '{self.SCORING}'; use the variant '{other}'"
            )


@dataclass(frozen=True)
class EnglishOptions(ClassicOptions):
    # §5a: points for game
    english_target: int = 5
    # §5a LAWS 4: a side at 4 when the deal began scores no honours
    honours_barred_at_four: bool = True
    # §6.4: how a revoke is penalised: "add" 3 to the opponents [D12], "deduct" 3 from
    # the offenders, "transfer" 3 tricks, or "claimant_choice" at the end of each hand
    revoke_method: str = "add"
    # §5a: a rubber, best of three games (False: a single game)
    english_rubber: bool = True

    CHOICES: ClassVar[Mapping[str, tuple[Any, ...]]] = {
        **ClassicOptions.CHOICES,
        "revoke_method": REVOKE_METHODS,
    }
    SCORING = ENGLISH


@dataclass(frozen=True)
class AmericanOptions(ClassicOptions):
    classic_scoring: str = AMERICAN
    # §5b: points for game
    american_target: int = 7
    # §5b [D8]: "seven_minus_losers" (WEB) or "difference" W - L (S2)
    american_game_value: str = "seven_minus_losers"
    # §5b [D9]: "single" game or best-of-three "rubber"
    american_match: str = "single"

    CHOICES: ClassVar[Mapping[str, tuple[Any, ...]]] = {
        **ClassicOptions.CHOICES,
        "american_game_value": ("seven_minus_losers", "difference"),
        "american_match": ("single", "rubber"),
    }
    SCORING = AMERICAN


def _sides(pair: tuple[int, int]) -> dict[str, int]:
    """A pair indexed NS, EW as the ``{"NS": ns, "EW": ew}`` of ``whistkit replay``."""
    return {"NS": pair[0], "EW": pair[1]}


class ClassicWhist(Variant):
    """What English and American whist share: the turned-up trump, forehand leads."""

    uses_turned_card = True
    points_penalties = True
    contract_codes = tuple(SUITS)  # the turned card's suit is trumps
    options: ClassicOptions

    @classmethod
    def select(cls, name: str, options: Mapping[str, Any] | None) -> type[Variant]:
        """The aliases "whist" and "classic" take their scoring from ``classic_scoring``."""
        if name.strip().lower() not in GENERIC_ALIASES:
            return cls
        scoring = (options or {}).get("classic_scoring", ENGLISH)
        return American if scoring == AMERICAN else English

    def contract_for(self, state: State, deal: Deal) -> Contract:
        assert deal.turned is not None
        trump = deal.turned // 13
        return Contract(
            SUITS[trump],
            trump,
            title=f"{SUIT_NAMES[trump].capitalize()} trumps (turned {card_name(deal.turned)})",
        )

    def initial_match(self) -> tuple[GameResult, ...]:
        return ()

    def rubber(self) -> bool:
        raise NotImplementedError

    def game_value(self, winner: int, score: tuple[int, int]) -> int:
        raise NotImplementedError

    def end_game(
        self, state: State, score: tuple[int, int], winner: int | None
    ) -> tuple[tuple[GameResult, ...], str | None, tuple[int, int] | None, dict[str, Any]]:
        """The match after a hand: (games, match winner, next score, record extras)."""
        games: tuple[GameResult, ...] = state.extra
        if winner is None:
            return games, None, None, {}
        game = GameResult(winner, score, self.game_value(winner, score))
        games = (*games, game)
        extra: dict[str, Any] = {"game": game}
        if not self.rubber():
            return games, SIDES[winner], None, extra
        rubber = rubber_result(games)
        if rubber is None:
            return games, None, (0, 0), extra
        extra["rubber"] = rubber
        return games, SIDES[rubber.winner], None, extra

    def hand_score(
        self,
        state: State,
        score: tuple[int, int],
        winner: int | None,
        tricks: tuple[int, int] | None = None,
        **extras: Any,
    ) -> HandScore:
        """The :class:`HandScore` of a scored hand: the new game ``score``, the side that
        reached game in it (``winner``), the tricks if penalties changed them, and the
        record ``extras`` (after the game's and the turned card)."""
        points = (score[0] - state.score[0], score[1] - state.score[1])
        games, match_winner, next_score, extra = self.end_game(state, score, winner)
        extra.update(turned=state.turned, **extras)
        return HandScore(
            points=points,
            score=score,
            winner=match_winner,
            extra=extra,
            match=games,
            next_score=next_score,
            tricks=tricks,
        )

    def public_info(self, state: State, seat: Seat) -> dict[str, Any]:
        info = super().public_info(state, seat)
        t = state.turned
        # the turned card lies face up until the dealer plays it (§4.2)
        if t is not None and state.phase != "deal" and not state.played_mask >> t & 1:
            info["turned"] = card_name(t)
        games: tuple[GameResult, ...] = state.extra
        if self.rubber() and games:
            info["games"] = ", ".join(f"{SIDES[g.winner]} ({g.value})" for g in games)
        return info

    def describe_result(self, result: HandResult) -> list[str]:
        lines = []
        game: GameResult | None = result.extra.get("game")
        if game is not None:
            lines.append(
                f"Game to {SIDES[game.winner]}, {game.score[0]}-{game.score[1]},"
                f" worth {game.value}."
            )
        rubber: Rubber | None = result.extra.get("rubber")
        if rubber is not None:
            lines.append(f"Rubber to {SIDES[rubber.winner]}, net {rubber.net} points.")
        return lines

    def describe_match(self, state: State) -> list[str]:
        games: tuple[GameResult, ...] = state.extra
        lines = [
            f"Game {i}: {SIDES[g.winner]} {g.score[0]}-{g.score[1]}, value {g.value}"
            for i, g in enumerate(games, 1)
        ]
        rubber = rubber_result(games) if self.rubber() else None
        if rubber is not None:
            lines.append(f"Rubber: {SIDES[rubber.winner]}, net {rubber.net}")
        return lines

    def summary_contract(self, contract: Contract, extra: Mapping[str, Any]) -> dict[str, Any]:
        t: Card | None = extra.get("turned")
        return {"turned": None if t is None else card_name(t)}

    def summary_match(self, state: State) -> dict[str, Any]:
        games: tuple[GameResult, ...] = state.extra
        out: dict[str, Any] = {
            "games": [
                {
                    "winner": SIDES[g.winner],
                    "score": _sides(g.score),
                    "value": g.value,
                }
                for g in games
            ]
        }
        rubber = rubber_result(games) if self.rubber() else None
        if rubber is not None:
            out["rubber"] = {"winner": SIDES[rubber.winner], "net": rubber.net}
        return out


class English(ClassicWhist):
    """English short whist: game 5, honours, rubber (§5a)."""

    name = ENGLISH
    aliases = ("short", "short_whist", "whist", "classic")
    title = "Whist (English short whist)"
    options_class = EnglishOptions
    options: EnglishOptions

    def rubber(self) -> bool:
        return self.options.english_rubber

    def game_value(self, winner: int, score: tuple[int, int]) -> int:
        return english_game_value(score[winner ^ 1])

    def score_hand(self, state: State) -> HandScore:
        assert state.contract is not None and state.deal is not None
        assert state.contract.trump is not None
        o = self.options
        held = honours_held(state.deal, state.contract.trump)
        revokes = tuple(
            (side, method) for side, method in self.penalised_revokes(state, o.revoke_method)
        )
        hand = score_english(
            state.score,
            state.tricks,
            held,
            revokes,
            target=o.english_target,
            barred_at_four=o.honours_barred_at_four,
            revoker_capped=o.revoker_capped,
        )
        return self.hand_score(
            state,
            hand.score,
            hand.winner,
            tricks=hand.tricks,
            honours=hand.honours,
            honours_held=held,
            penalties=hand.penalties,
        )

    def describe_result(self, result: HandResult) -> list[str]:
        held = result.extra.get("honours_held", (0, 0))
        pts = result.extra.get("honours", (0, 0))
        parts = [f"{SIDES[s]} held {held[s]} (+{pts[s]})" for s in (0, 1) if held[s]]
        lines = [f"Honours: {'; '.join(parts)}."] if parts else []
        return lines + super().describe_result(result)

    def summary_points(self, extra: Mapping[str, Any]) -> dict[str, Any]:
        out = super().summary_points(extra)
        out["honours"] = _sides(extra.get("honours", (0, 0)))
        out["penalties"] = _sides(extra.get("penalties", (0, 0)))
        return out


class American(ClassicWhist):
    """American whist: game 7, no honours, a single game or a rubber (§5b)."""

    name = AMERICAN
    aliases = ("american_whist",)
    title = "Whist (American scoring)"
    options_class = AmericanOptions
    options: AmericanOptions

    def rubber(self) -> bool:
        return self.options.american_match == "rubber"

    def game_value(self, winner: int, score: tuple[int, int]) -> int:
        o = self.options
        return american_game_value(
            score[winner], score[winner ^ 1], o.american_game_value, o.american_target
        )

    def score_hand(self, state: State) -> HandScore:
        o = self.options
        sides = tuple(side for side, _ in self.penalised_revokes(state, "add"))
        hand = score_american(
            state.score,
            state.tricks,
            sides,
            target=o.american_target,
            revoker_capped=o.revoker_capped,
        )
        return self.hand_score(state, hand.score, hand.winner, penalties=hand.penalties)

    def summary_points(self, extra: Mapping[str, Any]) -> dict[str, Any]:
        out = super().summary_points(extra)
        out["penalties"] = _sides(extra.get("penalties", (0, 0)))
        return out


__all__ = [
    "American",
    "AmericanHand",
    "AmericanOptions",
    "ClassicOptions",
    "ClassicWhist",
    "English",
    "EnglishHand",
    "EnglishOptions",
    "GameResult",
    "Rubber",
    "american_game_value",
    "english_game_value",
    "honour_points",
    "honours_held",
    "rubber_result",
    "score_american",
    "score_english",
]
