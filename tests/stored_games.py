"""A finished web game written straight into a server's store (for review tests)."""

from __future__ import annotations

from whistkit.bots import make_bot
from whistkit.game import Game
from whistkit.record import dumps
from whistkit.server.log import dumps_action
from whistkit.server.store import Store


def store_bot_game(store: Store, game_id: str, seed: int) -> None:
    """A whole Félagsvist game played by beginner bots, stored as a finished web game
    (its row, its action log and its record), S marked as the person."""
    g = Game("felagsvist", seed=seed, bots={s: make_bot("beginner") for s in range(4)})
    g.run_bots()
    s = g.state
    seats = {"N": "bot:beginner", "E": "bot:beginner", "S": "human", "W": "bot:beginner"}
    ops = store.create_ops(
        game_id,
        "felagsvist",
        {},
        seats,
        {},
        secret=bytes(32),
        seeded=True,
        seed=seed,
        first_dealer=s.results[0].dealer,
    )
    score = {"NS": s.score[0], "EW": s.score[1]}
    actions = [dumps_action(a) for a in s.actions()]
    ops += store.append_ops(game_id, 1, actions, 1, finished=True, winner=s.winner, score=score)
    ops.append(store.record_op(game_id, dumps(s)))
    store.write(ops)
