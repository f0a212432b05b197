"""whistkit: the whist family of card games (Félagsvist, Swedish whist, classic whist)."""

__version__ = "0.1.0"
