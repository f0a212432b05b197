from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from whistkit.cards import (
    CardError,
    card_label,
    card_name,
    format_hand,
    parse_card,
    parse_hand,
    sorted_for_display,
)
from whistkit.deal import deal_cards, format_pbn, parse_pbn
from whistkit.seats import SeatError, left, parse_seat, partner, side_of


def test_card_codes_round_trip() -> None:
    for c in range(52):
        assert parse_card(card_name(c)) == c
        assert parse_card(card_name(c).lower()) == c
    assert parse_card("10h") == parse_card("TH")
    assert card_name(parse_card(" qs ")) == "QS"
    assert card_label(parse_card("TD")) == "10♦"


@pytest.mark.parametrize("bad", ["", "1H", "QX", "11H", "Q", "QHH", "ZZ"])
def test_bad_cards_are_named(bad: str) -> None:
    with pytest.raises(CardError, match="not a card"):
        parse_card(bad)


def test_hand_text() -> None:
    h = parse_hand("2c as, ks 10d")
    assert format_hand(h) == "AS KS TD 2C"
    assert [card_name(c) for c in sorted_for_display(h)] == ["AS", "KS", "TD", "2C"]
    with pytest.raises(CardError, match="twice"):
        parse_hand("AS as")


def test_seats() -> None:
    assert [left(s) for s in range(4)] == [1, 2, 3, 0]
    assert [partner(s) for s in range(4)] == [2, 3, 0, 1]
    assert [side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert parse_seat("w") == 3
    with pytest.raises(SeatError):
        parse_seat("X")


PBN = "N:AKQ2.JT9.8765.43 J9.AKQ8.AQT.KQJ2 T8765.765.J2.A76 43.432.K943.T985"


def test_pbn_from_record_md_round_trips() -> None:
    hands = parse_pbn(PBN, full=True)
    assert format_pbn(hands) == PBN
    assert sum(h.bit_count() for h in hands) == 52
    east_first = format_pbn(hands, first=1)
    assert east_first.startswith("E:J9.AKQ8")
    assert parse_pbn(east_first) == hands


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AKQ.. .. .. ..", "start with a seat"),
        ("N:AK.. Q..", "4 hands"),
        ("N:AK. Q... J... T...", "4 suits"),
        ("N:AX... Q... J... T...", "not a rank"),
        ("N:AK... A... J... T...", "twice"),
    ],
)
def test_bad_pbn(text: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        parse_pbn(text)


def test_full_deal_needs_13_each() -> None:
    with pytest.raises(CardError, match="not 13"):
        parse_pbn("N:AK... Q... J... T...", full=True)


@given(st.integers(min_value=0, max_value=2**64), st.integers(min_value=0, max_value=3))
def test_dealing_is_seeded_and_complete(seed: int, dealer: int) -> None:
    import random

    a = deal_cards(random.Random(seed), dealer)
    b = deal_cards(random.Random(seed), dealer)
    assert a == b
    assert all(h.bit_count() == 13 for h in a.hands)
    assert a.hands[0] | a.hands[1] | a.hands[2] | a.hands[3] == (1 << 52) - 1
    # the 52nd card goes to the dealer (docs/rules.md §1.3)
    assert a.hands[dealer] >> a.last_card & 1


def test_same_seed_same_deal_on_any_machine() -> None:
    """A frozen deal: random.Random's shuffle is stable across machines and versions."""
    import random

    dealt = deal_cards(random.Random(12345), 0)
    assert format_pbn(dealt.hands) == FROZEN_DEAL_12345


FROZEN_DEAL_12345 = "N:63.KQ32.K732.A63 KT974.84.Q865.Q2 52.AJ96.AJT9.JT4 AQJ8.T75.4.K9875"


@given(st.integers(min_value=0, max_value=(1 << 52) - 1))
def test_cards_in_reads_the_tables_as_the_bits_say(hand: int) -> None:
    from whistkit.cards import cards_in, iter_cards

    walked = []
    rest = hand
    while rest:
        low = rest & -rest
        walked.append(low.bit_length() - 1)
        rest ^= low
    assert cards_in(hand) == tuple(walked)
    assert list(iter_cards(hand)) == walked


def test_cards_in_refuses_what_is_no_hand() -> None:
    from whistkit.cards import cards_in

    for bad in (1 << 52, -1):
        with pytest.raises(ValueError, match="not a hand of cards"):
            cards_in(bad)


def test_card_tables_are_never_seen_half_built() -> None:
    import sys
    import threading

    from whistkit import cards

    seen: list[object] = []

    def read() -> None:
        try:
            seen.append(len(cards.cards_in((1 << 52) - 1)))
        except Exception as e:  # a thread's error must reach the test
            seen.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch often, inside the tables' building
    try:
        for _ in range(20):
            cards.SUIT_CARDS.clear()
            threads = [threading.Thread(target=read) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
    finally:
        sys.setswitchinterval(interval)
    assert seen == [52] * 80
