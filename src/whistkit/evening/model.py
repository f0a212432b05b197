"""The stored truth of a félagsvist evening: its config, its players and the results entered.

Everything else (seatings, moves, points, totals, standings, prizes) is derived from these
by :func:`whistkit.evening.derive`, a pure and deterministic function; see docs/evening.md.
All three are immutable; the ``with_*`` functions of :mod:`whistkit.evening.derive` return a
new :class:`Evening` after checking the change.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# movement presets (docs/evening.md "Presets")
PRESETS = ("felagsvist", "progressive", "semi-partner", "partner")
# what a player gets for a hand they do not play
SIT_OUT_POLICIES = ("own_average", "room_average", "nothing")
# how tied players are separated for a prize
TIE_RULES = ("share", "countback", "lots")
# the first hand's seating
SEATINGS = ("random", "as_entered")
# the prize categories, in the order prizes are listed
PRIZE_CATEGORIES = (
    "top",
    "top_A",
    "top_B",
    "lowest",
    "lowest_A",
    "lowest_B",
    "longest_at_table",
    "ten_tricks",
)
GROUPS = ("A", "B")

# contract codes; NOLO is scored by the other side's tricks
CONTRACTS = ("H", "S", "D", "C", "NT", "NOLO")
CONTRACT_TITLES = {
    "H": "Hearts",
    "S": "Spades",
    "D": "Diamonds",
    "C": "Clubs",
    "NT": "Grand (no trump)",
    "NOLO": "Nóló (fewest tricks)",
}
FELAGSVIST_CYCLE = ("H", "S", "NT", "D", "C", "NOLO")
WHIST_DRIVE_ORDER = ("H", "C", "D", "S", "NT")

JSON_FORMAT = "whistkit-evening/1"
MAX_HANDS = 60
MAX_PLAYERS = 1000
MAX_NAME = 80
MAX_TOP = 50
MAX_SEED = 2**63 - 1
TRICKS = 13


class EveningError(ValueError):
    """A config, player list or result that breaks a rule; the message names what is wrong.
    ``code`` (optional) names the kind for the pages, which show it in their language."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Prizes:
    """Which prizes are given; each category is optional (0 or False: not given)."""

    # "top": the N best totals of the whole room
    top: int = 0
    # "top_A", "top_B": the N best totals of each group
    top_per_group: int = 3
    # "lowest": the lowest total (the booby prize)
    lowest: bool = True
    # "lowest_A", "lowest_B": the lowest total of each group (instead of, or besides, the
    # room's)
    lowest_per_group: bool = False
    # "longest_at_table": most consecutive hands at the same table ("setuverðlaun")
    longest_at_table: bool = True
    # "ten_tricks": most hands in which the player's partnership scored 10 points or more
    ten_tricks: bool = False
    # tied players: "share" the place, "countback" (better later hands) or drawn "lots"
    ties: str = "share"
    # the group a player's group prizes and leaderboard use: "playing" (the group they
    # are seated as, i.e. the score card they hold) or "registered"
    group_by: str = "playing"
    # one prize per person: a player who has won a prize is passed over in the categories
    # after it (in the order of PRIZE_CATEGORIES), the next in line taking that prize
    one_each: bool = False

    def check(self) -> None:
        for name in ("top", "top_per_group"):
            value = getattr(self, name)
            if not _is_int(value) or not 0 <= value <= MAX_TOP:
                raise EveningError(f"prizes.{name} must be a whole number 0 to {MAX_TOP}")
        for name in ("lowest", "lowest_per_group", "longest_at_table", "ten_tricks", "one_each"):
            if not isinstance(getattr(self, name), bool):
                raise EveningError(f"prizes.{name} must be true or false")
        if self.ties not in TIE_RULES:
            raise EveningError(f"prizes.ties must be one of {', '.join(TIE_RULES)}")
        if self.group_by not in ("playing", "registered"):
            raise EveningError("prizes.group_by must be playing or registered")


@dataclass(frozen=True)
class Config:
    """How the evening is run; fixed once the first hand has a result."""

    # movement preset, one of PRESETS
    preset: str = "felagsvist"
    # hands in the evening (12, 18 and 24 are usual)
    hands: int = 24
    # hands played at a table before a move: 1 (félagsvist) or 4 (a whist-drive round)
    hands_per_move: int = 1
    # contract of hand n is trump_order[(n - 1) % len]; None: the preset's own (the
    # Félagsvist cycle for "felagsvist", which takes no other, ♥ ♣ ♦ ♠ NT for the others)
    trump_order: tuple[str, ...] | None = None
    # credit for a hand sat out, one of SIT_OUT_POLICIES
    sit_out: str = "own_average"
    # hands missed by late arrivals and early leavers are credited as sit-outs; off by
    # default, as halls score them: a card counts the hands played (docs/evening.md)
    credit_absence: bool = False
    # the first hand's seating, one of SEATINGS
    seating: str = "random"
    prizes: Prizes = field(default_factory=Prizes)
    # every random choice (seating, sit-out rotation, drawn lots) follows from it
    seed: int = 0
    # the series the evening belongs to ("" none): evenings of the same series have a
    # running total, by player name (the usual three-evening competition)
    series: str = ""

    @property
    def contracts(self) -> tuple[str, ...]:
        """The contract cycle in use."""
        if self.trump_order is not None:
            return self.trump_order
        return FELAGSVIST_CYCLE if self.preset == "felagsvist" else WHIST_DRIVE_ORDER

    def contract_of(self, hand: int) -> str:
        """The contract code of hand ``hand`` (1-based)."""
        cycle = self.contracts
        return cycle[(hand - 1) % len(cycle)]

    @property
    def pairs_by_group(self) -> bool:
        """True when every partnership is one A and one B player (all but "partner")."""
        return self.preset != "partner"

    def check(self) -> None:
        if self.preset not in PRESETS:
            raise EveningError(f"unknown preset {self.preset!r}; known: {', '.join(PRESETS)}")
        if (
            not isinstance(self.series, str)
            or len(self.series) > 80
            or any(not c.isprintable() for c in self.series)
        ):
            raise EveningError("series must be a name of at most 80 printable characters")
        if not _is_int(self.hands) or not 1 <= self.hands <= MAX_HANDS:
            raise EveningError(f"hands must be a whole number 1 to {MAX_HANDS}")
        if self.hands_per_move not in (1, 4) or isinstance(self.hands_per_move, bool):
            raise EveningError("hands_per_move must be 1 or 4")
        if self.trump_order is not None:
            if not isinstance(self.trump_order, tuple) or not 1 <= len(self.trump_order) <= 12:
                raise EveningError("trump_order must list 1 to 12 contracts")
            for code in self.trump_order:
                if code not in CONTRACTS:
                    raise EveningError(
                        f"unknown contract {code!r} in trump_order; known: {', '.join(CONTRACTS)}"
                    )
            if self.preset == "felagsvist" and self.trump_order != FELAGSVIST_CYCLE:
                raise EveningError(
                    "the felagsvist preset plays the Félagsvist cycle H S NT D C NOLO;"
                    " choose progressive for another trump order"
                )
        if self.sit_out not in SIT_OUT_POLICIES:
            raise EveningError(f"sit_out must be one of {', '.join(SIT_OUT_POLICIES)}")
        if not isinstance(self.credit_absence, bool):
            raise EveningError("credit_absence must be true or false")
        if self.seating not in SEATINGS:
            raise EveningError(f"seating must be one of {', '.join(SEATINGS)}")
        if not _is_int(self.seed) or not 0 <= self.seed <= MAX_SEED:
            raise EveningError("seed must be a whole number 0 to 2**63-1")
        if not isinstance(self.prizes, Prizes):
            raise EveningError("prizes must be a Prizes")
        self.prizes.check()


@dataclass(frozen=True)
class Player:
    """One player as entered by the host."""

    # positive and unique in the evening; the number on the player's score card
    id: int
    name: str
    # registered group, "A" or "B"
    group: str = "A"
    # seated as a player of the other group (for uneven numbers)
    other_group: bool = False
    # cannot move: stays at one table all evening, the others are moved around them
    fixed_seat: bool = False
    # first hand the player is there for (late arrivals: later than 1)
    arrives: int = 1
    # last hand the player is there for; None: to the end
    leaves: int | None = None

    @property
    def plays_as(self) -> str:
        """The group the player is seated as."""
        if not self.other_group:
            return self.group
        return "B" if self.group == "A" else "A"

    def present(self, hand: int) -> bool:
        """Whether the player is in the hall for hand ``hand``."""
        return self.arrives <= hand and (self.leaves is None or hand <= self.leaves)

    def check(self, hands: int) -> None:
        if not _is_int(self.id) or not 1 <= self.id <= 10**9:
            raise EveningError(f"player id must be a whole number 1 to 10**9, not {self.id!r}")
        who = f"player {self.id}"
        if not isinstance(self.name, str) or not 1 <= len(self.name.strip()) <= MAX_NAME:
            raise EveningError(f"{who}: the name must be 1 to {MAX_NAME} characters")
        if any(ord(c) < 32 for c in self.name):
            raise EveningError(f"{who}: the name has a control character")
        if self.group not in GROUPS:
            raise EveningError(f"{who}: group must be A or B, not {self.group!r}")
        for name in ("other_group", "fixed_seat"):
            if not isinstance(getattr(self, name), bool):
                raise EveningError(f"{who}: {name} must be true or false")
        if not _is_int(self.arrives) or not 1 <= self.arrives <= hands:
            raise EveningError(f"{who}: arrives must be a hand from 1 to {hands}")
        if self.leaves is not None and (
            not _is_int(self.leaves) or not self.arrives <= self.leaves <= hands
        ):
            raise EveningError(
                f"{who}: leaves must be a hand from {self.arrives} (arrival) to {hands}"
            )


@dataclass(frozen=True)
class Result:
    """The tricks the N-S partnership took at one table in one hand (E-W took the rest)."""

    hand: int
    table: int
    # 0..13; in Nóló the points are flipped by the scoring, not by whoever enters
    ns_tricks: int

    def check(self) -> None:
        if not _is_int(self.hand) or not 1 <= self.hand <= MAX_HANDS:
            raise EveningError(f"result: hand must be a whole number 1 to {MAX_HANDS}")
        if not _is_int(self.table) or self.table < 1:
            raise EveningError("result: table must be a whole number from 1")
        if not _is_int(self.ns_tricks) or not 0 <= self.ns_tricks <= TRICKS:
            raise EveningError(
                f"hand {self.hand} table {self.table}: tricks must be 0 to {TRICKS},"
                f" not {self.ns_tricks!r}"
            )


@dataclass(frozen=True)
class Evening:
    """The stored truth: config, players, the confirmed results and the host's corrections.

    ``results`` holds one confirmed result per hand and table, the one the table's moves
    were announced from: it decides the movement forever. ``corrections`` (in the order
    made; the last for a hand and table counts) change only that table's points.
    """

    config: Config
    players: tuple[Player, ...]
    results: tuple[Result, ...] = ()
    corrections: tuple[Result, ...] = ()
    # the first hand's seating has been announced (whistkit.evening.start): from then on
    # the seatings of the hands up to the one in play are part of the truth
    started: bool = False

    def player(self, player_id: int) -> Player:
        for p in self.players:
            if p.id == player_id:
                return p
        raise EveningError(f"no player {player_id}")

    def to_json(self) -> dict[str, Any]:
        """The evening as plain JSON data (:meth:`from_json` reads it back)."""
        cfg = asdict(self.config)
        if cfg["trump_order"] is not None:
            cfg["trump_order"] = list(cfg["trump_order"])
        return {
            "format": JSON_FORMAT,
            "config": cfg,
            "players": [asdict(p) for p in self.players],
            "results": [[r.hand, r.table, r.ns_tricks] for r in self.results],
            "corrections": [[r.hand, r.table, r.ns_tricks] for r in self.corrections],
            "started": self.started,
        }

    @classmethod
    def from_json(cls, data: Any) -> Evening:
        """An evening from :meth:`to_json` data, every field checked (the data may come
        from anywhere); raises EveningError naming the first thing wrong. It does not
        check the results against the seating: :func:`whistkit.evening.check` does."""
        if not isinstance(data, dict) or data.get("format") != JSON_FORMAT:
            raise EveningError(f"not a {JSON_FORMAT} object")
        try:
            return cls._from_json(data)
        except TypeError as e:  # a missing field
            raise EveningError(f"incomplete evening: {e}") from e

    @classmethod
    def _from_json(cls, data: dict[str, Any]) -> Evening:
        unknown = set(data) - {"format", "config", "players", "results", "corrections", "started"}
        if unknown:
            raise EveningError(f"unknown field {sorted(unknown)[0]!r}")
        cfg = _fields(data.get("config"), Config, "config")
        if "prizes" in cfg:
            cfg["prizes"] = Prizes(**_fields(cfg["prizes"], Prizes, "config.prizes"))
        if isinstance(cfg.get("trump_order"), list):
            cfg["trump_order"] = tuple(cfg["trump_order"])
        config = Config(**cfg)
        config.check()
        raw_players = data.get("players")
        if not isinstance(raw_players, list) or len(raw_players) > MAX_PLAYERS:
            raise EveningError(f"players must be a list of at most {MAX_PLAYERS}")
        players = tuple(Player(**_fields(p, Player, "player")) for p in raw_players)
        for p in players:
            p.check(config.hands)
        lists = []
        for name in ("results", "corrections"):
            raw = data.get(name, [])
            limit = MAX_HANDS * MAX_PLAYERS // 4 * (1 if name == "results" else 4)
            if not isinstance(raw, list) or len(raw) > limit:
                raise EveningError(f"{name} must be a list of at most {limit}")
            out = []
            for item in raw:
                if not isinstance(item, list) or len(item) != 3:
                    raise EveningError(f"each of {name} must be [hand, table, ns_tricks]")
                r = Result(*item)
                r.check()
                out.append(r)
            lists.append(tuple(out))
        started = data.get("started", False)
        if not isinstance(started, bool):
            raise EveningError("started must be true or false")
        return cls(config, players, lists[0], lists[1], started)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fields(data: Any, cls: type, what: str) -> dict[str, Any]:
    """``data`` as keyword arguments of dataclass ``cls``: a dict with known keys only."""
    if not isinstance(data, dict):
        raise EveningError(f"{what} must be an object")
    known = {f.name for f in fields(cls)}
    for key in data:
        if key not in known:
            raise EveningError(f"{what}: unknown field {key!r}")
    return dict(data)
