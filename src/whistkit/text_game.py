"""``whistkit play --text``: a game in the terminal, you at S with a bot partner at N.

It reads one line per answer, so it works with input piped in. At a prompt you type a card
(``QH``, ``qh``, ``10h``) or its number in your hand, ``?`` for the legal cards, ``n`` for a
new game or ``q`` to quit.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

from ._checks import counted
from .bots import make_bot
from .cards import CardError, card_name, parse_card, sorted_for_display
from .game import Game
from .record import dumps
from .seats import SIDES, SOUTH, seat_name
from .state import BID, Action, HandResult, IllegalAction
from .variants import variant_of
from .variants.laws import Correct, Expose, lawful_mask
from .variants.swedish import BottomCard

HUMAN = SOUTH


class TextGame:
    def __init__(
        self,
        *,
        variant: str,
        options: Mapping[str, Any] | None,
        seed: int,
        level: str,
        records_dir: Path,
        out: TextIO,
        read_line: Callable[[], str | None],
    ) -> None:
        self.variant = variant
        self.options = options
        self.level = level
        self.records_dir = records_dir
        self.out = out
        self.read_line = read_line
        self.seed = seed
        self.game = self._new_game(seed)
        self.shown_results = 0  # the hand results said so far in this game
        self.reveals_shown: tuple[int, int] | None = None  # the hand whose reveals we showed

    def _new_game(self, seed: int) -> Game:
        bots = {seat: make_bot(self.level) for seat in range(4) if seat != HUMAN}
        self.seed = seed
        self.acted = False  # has the player played a card or made a choice in this game?
        self.saved: Path | None = None  # where this game's record was last written
        return Game(self.variant, self.options, seed=seed, bots=bots)

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    # -- display -------------------------------------------------------------------

    def hand_line(self) -> tuple[str, list[int]]:
        cards = sorted_for_display(self.game.state.holdings[HUMAN])
        parts = [f"{i}:{card_name(c)}" for i, c in enumerate(cards, 1)]
        return "  ".join(parts), cards

    def show_table(self) -> None:
        s = self.game.state
        self.say()
        header = variant_of(s).describe(s)
        self.say(f"{header}   (dealer {seat_name(s.dealer)})")
        for key, value in s.variant.public_info(s, HUMAN).items():
            if f"{key} {_plain(value)}" in header:
                continue  # said in the header already ("Spades trumps (turned 7S)")
            self.say(f"  {key}: {_plain(value)}")
        self.say(
            f"Score: NS {s.score[0]}  EW {s.score[1]}   this hand: NS {_tricks(s.tricks[0])},"
            f" EW {_tricks(s.tricks[1])}"
        )
        if s.trick_winners:
            last = s.played[-4 - len(s.trick) : len(s.played) - len(s.trick)]
            self.say(
                f"Last trick won by {seat_name(s.trick_winners[-1])}: "
                + " ".join(card_name(c) for c in last)
            )
        if s.trick:
            self.say(
                "Trick: "
                + "  ".join(
                    f"{seat_name((s.leader + i) & 3)} {card_name(c)}" for i, c in enumerate(s.trick)
                )
            )
        elif s.phase == BID:
            self.say("Choose your bottom card: red asks for spel, black passes.")
        else:
            self.say("You lead.")
        line, _ = self.hand_line()
        self.say(f"Your hand: {line}")

    def show_hand_result(self, r: HandResult) -> None:
        self.say(
            f"Hand {r.number} over: tricks NS {r.tricks[0]}, EW {r.tricks[1]};"
            f" points NS +{r.points[0]}, EW +{r.points[1]}; score NS {r.score[0]}, EW {r.score[1]}"
        )
        revokes = ", ".join(
            f"{v['seat']} {v['card']} (trick {v['trick']})" for v in r.extra.get("revokes", ())
        )
        if revokes:  # (a void deal needs revokes by both sides; bots never revoke)
            self.say(f"Revokes: {revokes}; penalised: {r.extra.get('penalised', 0)}.")
        for line in self.game.variant.describe_result(r):
            self.say(line)

    # -- the loop ------------------------------------------------------------------

    def run(self) -> int:
        self.say(
            f"whistkit: {self.game.variant.title}. You are S; your partner N and the"
            f" opponents E and W are bots ({self.level}). Seed {self.seed}."
        )
        while True:
            outcome = self.play_one()
            if outcome in ("quit", "new") and not self.acted:
                path = None  # nothing of the player's to keep
                self.say("Nothing played, so no record.")
            else:
                path = self.save()
                if path is None and outcome == "quit":
                    return 1  # the record went to the terminal
            if outcome == "quit":
                if path:
                    self.say(f"Game saved to {path}")
                return 0
            if outcome == "new":
                if path:
                    self.say(f"Game saved to {path}.")
                self.new_game()
                continue
            s = self.game.state
            self.say()
            self.say(f"Game over. Final score: NS {s.score[0]}, EW {s.score[1]}.")
            for line in variant_of(s).describe_match(s):
                self.say(line)
            winner = s.winner
            if winner == "draw":
                self.say("The game is a draw.")
            else:
                who = "you and your partner" if winner == SIDES[0] else "the opponents"
                self.say(f"{winner} win ({who}).")
            if path:
                self.say(f"Record saved to {path}")
            self.say("Type n for a new game, anything else quits.")
            answer = self.read_line()
            if answer is None or answer.strip().lower() != "n":
                return 0
            self.new_game()

    def new_game(self) -> None:
        """The next game, seeded from this one's seed (so a whole session replays)."""
        self.game = self._new_game(random.Random(self.seed).randrange(1 << 31))
        self.say(f"New game. Seed {self.seed}.")

    def interrupted(self) -> None:
        """Ctrl-C: keep the game played so far, as ``q`` would."""
        self.say()
        if not self.acted:
            return
        path = self.save()
        if path:
            self.say(f"Game saved to {path}")

    def play_one(self) -> str:
        """Play until the game ends ("over"), or the player asks for "new" or "quit"."""
        self.shown_results = 0
        while True:
            self.show_new_results()  # a hand the player's card ended
            while self.game.bot_to_act() is not None:
                seat, action = self.game.bot_step()
                if type(action) is int:
                    self.show_reveals()  # the reveals came before this first card
                    self.say(f"{seat_name(seat)} plays {card_name(action)}")
                else:
                    self.say(f"{seat_name(seat)}: {action}")
                self.show_new_results()  # before the next hand's first cards
            s = self.game.state
            if s.is_over:
                return "over"
            self.show_reveals()
            self.show_table()
            answer = self.ask()
            if answer in ("quit", "new"):
                return answer

    def show_new_results(self) -> None:
        """The results of the hands finished since the last call, in order."""
        results = self.game.state.results
        while self.shown_results < len(results):
            self.show_hand_result(results[self.shown_results])
            self.shown_results += 1

    def show_reveals(self) -> None:
        """After bidding: the revealed bottom cards and the contract they made."""
        s = self.game.state
        revealed = s.variant.public_info(s, HUMAN).get("revealed")
        key = (len(s.results), s.hand_number)
        if revealed is None or s.contract is None or self.reveals_shown == key:
            return
        self.reveals_shown = key
        for seat, card in revealed.items():
            colour = "red" if parse_card(card) // 13 in (1, 2) else "black: pass"
            self.say(f"{seat} reveals {card} ({colour})")
        self.say(f"The hand is {s.contract.title}.")

    def ask(self) -> str:
        """Read answers until one card is played; returns "played", "new" or "quit"."""
        choices = [a for a in self.game.state.legal_actions() if type(a) is not int]
        if choices and not any(isinstance(a, BottomCard) for a in choices):
            return self.decide(choices)
        forced = self.forced_card()
        if forced is not None:
            self.game.act(forced)
            self.acted = True
            self.say(f"S plays {card_name(forced)} (your only legal card)")
            return "played"
        while True:
            leave, low = self.prompt("Your card (? for help): ")
            if leave:
                return leave
            if not low:
                continue
            if low in ("?", "h", "help"):
                # cards to play, or in Swedish bidding the cards that may be the bottom card
                legal = [
                    a.card if isinstance(a, BottomCard) else a
                    for a in self.game.state.legal_actions()
                    if type(a) is int or isinstance(a, BottomCard)
                ]
                self.say(
                    "Legal cards: "
                    + " ".join(card_name(c) for c in sorted_for_display(sum(1 << c for c in legal)))
                )
                self.say("Type a card (QH, 10h) or its number; n new game; q quit.")
                if self.game.variant.laws:
                    self.say(
                        "Laws mode: a card that does not follow suit is a revoke;"
                        " 'correct QH' takes it back before the next trick starts,"
                        " 'expose QH' shows a card."
                    )
                continue
            word, _, rest = low.partition(" ")
            if word in ("correct", "expose") and rest and self.game.variant.laws:
                self.irregular(word, rest)
                continue
            card = self.parse_answer(low)
            if card is None:
                continue
            state = self.game.state
            if not state.holdings[HUMAN] >> card & 1:
                self.say(f"Refused: you do not hold {card_name(card)}")
                continue
            action = variant_of(state).card_action(state, HUMAN, card)
            try:
                self.game.act(action)
            except IllegalAction as e:
                self.say(f"Refused: {e}")
                continue
            self.acted = True
            if state.phase == BID:
                self.say(f"S commits {card_name(card)} as bottom card")
            else:
                self.say(f"S plays {card_name(card)}")
                irr = state.irregular
                if irr is not None and not lawful_mask(state, HUMAN, irr) >> card & 1:
                    return self.offer_correction()
            return "played"

    def forced_card(self) -> int | None:
        """The card to play without asking: the only legal one. In laws mode a revoke is
        the player's to make, so only the last card of the hand is played for him."""
        state = self.game.state
        if state.phase == BID:
            return None
        cards = [a for a in state.legal_actions() if type(a) is int]
        if len(cards) != 1:
            return None
        if self.game.variant.laws and state.holdings[HUMAN] != 1 << cards[0]:
            return None  # he may revoke with another card
        return cards[0]

    def offer_correction(self) -> str:
        """Right after a revoke, before the bots play on: take it back now or never.

        The bots would turn the trick at once, which establishes the revoke (§6.2).
        Returns "played", or "new" / "quit" when the player asks for that instead.
        """
        self.say(
            "That is a revoke: type the card to play instead (e.g. 5H) to take it back,"
            " or Enter to let it stand."
        )
        while True:
            leave, text = self.prompt("Correct? ")
            if leave:
                return leave
            if not text:
                return "played"
            word, _, rest = text.partition(" ")
            card_text = rest if word == "correct" and rest else text
            if card_text in ("?", "h", "help") or card_text.isdigit():
                self.say(
                    "Type the card to play instead (a card of the led suit, e.g. 5H),"
                    " Enter to let the revoke stand, n for a new game, q to quit."
                )
                continue
            if self.irregular("correct", card_text):
                return "played"

    def prompt(self, question: str) -> tuple[str | None, str]:
        """Ask and read one answer: ("quit", "") at the end of input, ("quit" or "new", "")
        for q or n, else (None, the answer stripped and in lower case)."""
        self.out.write(question)
        self.out.flush()
        line = self.read_line()
        if line is None:
            self.say()
            return "quit", ""
        text = line.strip().lower()
        if text in ("q", "quit", "n", "new"):
            return ("quit" if text.startswith("q") else "new"), ""
        return None, text

    def decide(self, choices: list[Action]) -> str:
        """A decision the rules ask of the human (laws mode): pick one by number."""
        self.say("You decide: " + "  ".join(f"{i}) {a}" for i, a in enumerate(choices, 1)))
        while True:
            leave, text = self.prompt("Your choice: ")
            if leave:
                return leave
            if text.isdigit() and 1 <= int(text) <= len(choices):
                action = choices[int(text) - 1]
                self.game.act(action)
                self.acted = True
                self.say(f"S {action}")
                return "played"
            self.say(f"Refused: type a number from 1 to {len(choices)}")

    def irregular(self, word: str, text: str) -> bool:
        """``correct CARD`` or ``expose CARD`` (laws mode, docs/rules.md §6); False if refused."""
        try:
            card = parse_card(text)
        except CardError as e:
            self.say(f"Refused: {e}")
            return False
        action: Action = Correct(HUMAN, card) if word == "correct" else Expose(HUMAN, card)
        try:
            self.game.act(action)
        except IllegalAction as e:
            self.say(f"Refused: {e}")
            return False
        self.acted = True
        self.say(f"S {action}")
        return True

    def parse_answer(self, text: str) -> int | None:
        _, cards = self.hand_line()
        if text.isdigit():
            k = int(text)
            if 1 <= k <= len(cards):
                return cards[k - 1]
            self.say(
                f"Refused: there is no card number {k} (you hold {counted(len(cards), 'card')})"
            )
            return None
        try:
            return parse_card(text)
        except CardError as e:
            self.say(f"Refused: {e}")
            return None

    def save(self) -> Path | None:
        """Write the game's record into the records folder under a new name; returns its
        path. If the folder cannot take it, the record goes to the terminal instead (the
        game is not lost) and the result is None."""
        try:
            return self.write_record()
        except OSError as e:
            self.say(f"Could not save the record in {self.records_dir}: {e.strerror or e}.")
            self.say("The record follows; keep it as a .json file to replay it:")
            self.say(self.record_text())
            return None

    def players(self) -> dict[int, str]:
        """The record's names (docs/records.md): "You" at S, each bot with its level, as the
        web game writes them ("Bot (expert)")."""
        return {seat: "You" if seat == HUMAN else f"Bot ({self.level})" for seat in range(4)}

    def record_text(self) -> str:
        return dumps(self.game.state, self.players())

    def write_record(self) -> Path:
        """Write the record into the records folder under a new name (raises OSError)."""
        text = self.record_text()
        self.records_dir.mkdir(parents=True, exist_ok=True)
        n = len(list(self.records_dir.glob("*.json")))
        while True:  # never overwrite a record already there
            n += 1
            path = self.records_dir / f"{self.game.variant.name}-seed{self.seed}-{n:04d}.json"
            try:
                with path.open("x", encoding="utf-8") as f:
                    f.write(text)
            except FileExistsError:
                continue
            self.saved = path
            return path


def _tricks(n: int) -> str:
    return f"{n} trick" if n == 1 else f"{n} tricks"


def _plain(value: Any) -> str:
    """A public fact for the terminal: mappings as "E 7C, S 3D", lists comma-separated."""
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value) or "none"
    return str(value)
