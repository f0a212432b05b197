"""whistkit: the whist family of card games (Félagsvist, Swedish whist, classic whist).

The public API in one place:

>>> import whistkit
>>> state = whistkit.new_game("felagsvist", dealer=whistkit.parse_seat("W"))
>>> state.needs_deal
True
"""

from .cards import CardError, card_name, format_hand, parse_card, parse_hand
from .deal import deal_cards, format_pbn, parse_pbn
from .record import (
    Record,
    RecordError,
    dumps,
    load,
    loads,
    record_of,
    replay,
    save,
    summarize,
)
from .seats import parse_seat, seat_name
from .state import Contract, Deal, HandResult, IllegalAction, State, View, new_game
from .variants import VARIANTS, OptionError, UnknownVariant, find_variant, get_variant

__version__ = "0.1.0"

__all__ = [
    "VARIANTS",
    "CardError",
    "Contract",
    "Deal",
    "HandResult",
    "IllegalAction",
    "OptionError",
    "Record",
    "RecordError",
    "State",
    "UnknownVariant",
    "View",
    "card_name",
    "deal_cards",
    "dumps",
    "find_variant",
    "format_hand",
    "format_pbn",
    "get_variant",
    "load",
    "loads",
    "new_game",
    "parse_card",
    "parse_hand",
    "parse_pbn",
    "parse_seat",
    "record_of",
    "replay",
    "save",
    "seat_name",
    "summarize",
]
