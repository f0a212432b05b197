"""The ``whistkit`` command: play, replay, solve, ...

Errors the user can fix are one line on standard error and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_USAGE = 2


def default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("whistkit", appauthor=False))


def folder_problem(path: Path, what: str) -> str | None:
    """Why ``path`` cannot be the folder for ``what`` (it is created if missing), or None."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"cannot use {path} as the {what}: {e.strerror or e}"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"cannot use {path} as the {what}: it is not writable"
    return None


def _parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``--option key=value`` pairs; values are JSON where they parse (true, 5), else text."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--option must be key=value, not {item!r}")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _read_input(name: str, command: str) -> str | None:
    """The text of file ``name`` (``-``: standard input), or None after a one-line error."""
    try:
        if name == "-":
            return sys.stdin.read()
        return Path(name).read_text(encoding="utf-8")
    except OSError as e:
        print(f"whistkit {command}: cannot read {name}: {e.strerror}", file=sys.stderr)
    except UnicodeDecodeError:
        print(f"whistkit {command}: {name} is not UTF-8 text", file=sys.stderr)
    return None


def _print_json(data: Any, compact: bool) -> None:
    """``data`` as JSON on standard output: indented, or on one line with ``compact``."""
    json.dump(data, sys.stdout, ensure_ascii=False, indent=None if compact else 2)
    sys.stdout.write("\n")


def cmd_replay(args: argparse.Namespace) -> int:
    from .record import RecordError, loads, replay, summarize

    text = _read_input(args.file, "replay")
    if text is None:
        return EXIT_USAGE
    try:
        state = replay(loads(text))
    except RecordError as e:
        print(str(e), file=sys.stderr)
        return EXIT_USAGE
    _print_json(summarize(state), args.compact)
    return 0


def cmd_analyse(args: argparse.Namespace) -> int:
    from .analysis import analyse, report
    from .match import terminal_progress
    from .record import RecordError, loads

    if args.compact and not args.json:
        print(
            "whistkit analyse: --compact is for --json output (one line of JSON);"
            " add --json or drop --compact",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.node_limit < 1:
        print(
            f"whistkit analyse: --node-limit must be at least 1, not {args.node_limit}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    text = _read_input(args.file, "analyse")
    if text is None:
        return EXIT_USAGE
    try:
        record = loads(text)
        result = analyse(
            record,
            node_limit=args.node_limit,
            hands=set(args.hand) if args.hand else None,
            progress=None if args.json else terminal_progress("analysing"),
        )
    except (RecordError, ValueError, RuntimeError) as e:
        print(
            f"whistkit analyse: {e}" if not isinstance(e, RecordError) else str(e), file=sys.stderr
        )
        return EXIT_USAGE
    if args.json:
        _print_json(result.to_json(), args.compact)
    else:
        print(report(result))
    return 0


def _option_labels() -> dict[str, str]:
    """The English names of the options and their values (the web game's own)."""
    path = Path(__file__).parent / "server" / "static" / "i18n" / "en.json"
    labels: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return labels


def _value_text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def cmd_variants(args: argparse.Namespace) -> int:
    from .variants import VARIANTS, UnknownVariant, describe, find_variant

    try:
        classes = [find_variant(args.name)] if args.name else list(VARIANTS.values())
    except UnknownVariant as e:
        print(f"whistkit variants: {e}", file=sys.stderr)
        return EXIT_USAGE
    found = [describe(cls) | {"aliases": list(cls.aliases)} for cls in classes]
    if args.json:
        print(json.dumps(found, ensure_ascii=False))
        return 0
    labels = _option_labels()
    for i, v in enumerate(found):
        length = f"{v['hands']} hands" if v["hands"] else "played to a target score"
        print(
            f"{'' if i == 0 else chr(10)}{v['name']}: {v['title']}, {length}"
            f" (also: {', '.join(v['aliases'])})"
        )
        for opt in v["options"]:
            key = opt["key"]
            if opt["kind"] == "bool":
                values = "true|false"
            elif opt["kind"] == "int":
                values = "N"
            else:
                values = "|".join(opt["choices"])
            label = labels.get(f"opt_{key}", "")
            if opt["kind"] == "choice":
                named = [
                    f"{c} = {labels[f'opt_{key}_{c}']}"
                    for c in opt["choices"]
                    if labels.get(f"opt_{key}_{c}", c).lower() != c
                ]
                if named:
                    label += f" ({'; '.join(named)})"
            extra = "; laws mode only" if opt.get("laws") else ""
            print(f"  --option {key}={values}")
            print(f"      {label}; default {_value_text(opt['default'])}{extra}")
    return 0


def slow_solver_note() -> str | None:
    """What to tell a player whose whistkit has no compiled solver core (installed where
    there was no C compiler), or None: the bots then think with the pure-Python solver."""
    from .solver import has_core

    if has_core():
        return None
    return (
        "the solver's compiled core is not installed here (no C compiler when whistkit was"
        " installed), so the bots use the pure-Python solver and are slower: the expert bot"
        " may take seconds a card, the terminal game's default level is club"
        " (docs/install.md)"
    )


def cmd_play(args: argparse.Namespace) -> int:
    from .server.limits import Limits
    from .variants import OptionError, UnknownVariant, get_variant

    try:
        options = _parse_options(args.option)
        get_variant(args.variant, options)
    except (ValueError, OptionError, UnknownVariant) as e:
        print(f"whistkit play: {e}", file=sys.stderr)
        return EXIT_USAGE
    if args.seed is not None and not 0 <= args.seed < 2**63:
        # the game number, as the web game's new-game dialog calls it
        print(
            "whistkit play: --seed is the game number, a whole number from 0 to"
            f" {2**63 - 1}, not {args.seed}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    # an option of the other mode would be silently ignored: say so instead
    web_only = {"--host": args.host, "--port": args.port, "--db": args.db, "--bus": args.bus}
    web_only["--no-browser"] = args.no_browser or None
    web_only["--public-url"] = args.public_url
    for flag in Limits.flags_given(args):
        web_only[flag] = True
    text_only = {"--seed": args.seed, "--records": args.records}
    unused = [k for k, v in (web_only if args.text else text_only).items() if v is not None]
    if unused:
        mode, other = ("terminal", "web") if args.text else ("web", "terminal")
        print(
            f"whistkit play: {', '.join(unused)} {'is' if len(unused) == 1 else 'are'} for the"
            f" {other} game, not the {mode} game"
            + (" (type the game number into its new-game dialog)" if "--seed" in unused else ""),
            file=sys.stderr,
        )
        return EXIT_USAGE
    note = slow_solver_note()
    if note:
        print(f"whistkit play: {note}", file=sys.stderr)
    if not args.text:
        return _play_web(args)
    from .bots import LEVELS, play_level
    from .text_game import TextGame

    if args.level is None:
        args.level = play_level()

    if args.level not in LEVELS:
        print(
            f"whistkit play: unknown level {args.level!r}; known: {', '.join(LEVELS)}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4))
    records = Path(args.records) if args.records else default_data_dir() / "records"
    problem = folder_problem(records, "records folder")
    if problem:
        print(f"whistkit play: {problem}", file=sys.stderr)
        return EXIT_USAGE

    def read_line() -> str | None:
        line = sys.stdin.readline()
        return line if line else None

    try:
        game = TextGame(
            variant=args.variant,
            options=options,
            seed=seed,
            level=args.level,
            records_dir=records,
            out=sys.stdout,
            read_line=read_line,
        )
    except RuntimeError as e:  # a level whose solver is missing
        print(f"whistkit play: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        return game.run()
    except KeyboardInterrupt:
        game.interrupted()  # the record of the game so far is kept, as with q
        return 130
    except OSError as e:  # the terminal went away (a closed pipe, a full disk)
        _drop_stdout()
        kept = ""
        if game.saved is not None:
            kept = f"; the game is saved in {game.saved}"
        elif game.acted:
            try:
                kept = f"; the game so far is saved in {game.write_record()}"
            except OSError:
                kept = "; the game so far follows:\n" + game.record_text()
        print(f"whistkit play: {_output_error(e)}{kept}", file=sys.stderr)
        return 1


def _play_web(args: argparse.Namespace) -> int:
    """Serve the web game (``whistkit.server``), print its URL and open a browser."""
    from .bots import DEFAULT_LEVEL
    from .server import Listening, serve
    from .server.app import Preset
    from .server.database import is_postgres
    from .server.limits import Limits
    from .server.pgstore import shown

    db: str | Path = Path(args.db) if args.db else default_data_dir() / "games.sqlite3"
    if args.db and is_postgres(args.db):
        db = args.db
    if args.bus is not None and not is_postgres(db):
        print(
            "whistkit play: --bus shares the tables between server processes, which need"
            " one database: give --db postgresql://USER@HOST:PORT/DB too",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.bus is not None and not args.bus.startswith(("redis://", "rediss://", "unix://")):
        print(
            f"whistkit play: --bus must be a redis:// URL (redis://HOST:PORT/N), not {args.bus!r}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    stored = shown(db) if isinstance(db, str) else str(db)

    def ready(where: Listening) -> None:
        from .server.lan import WILDCARD_HOSTS, network_url, terminal_qr

        local = where.url
        if where.host.strip("[]") in WILDCARD_HOSTS:
            local = Listening("127.0.0.1", where.port).url
            url = network_url(where.host, where.port)
            print(
                f"whistkit: the web game is at {url} on this network, {local} here"
                f" (games stored in {stored}; Ctrl-C stops)"
            )
            print("Friends on the same network open this address (the invite links carry it):")
            terminal_qr(url, sys.stdout)
            sys.stdout.flush()
        else:
            print(
                f"whistkit: the web game is at {where.url} (games stored in {stored};"
                " Ctrl-C stops)",
                flush=True,
            )
        if not args.no_browser:
            from .server.lan import open_browser

            open_browser(local)

    try:
        preset = Preset(args.variant, args.level or DEFAULT_LEVEL, _parse_options(args.option))
        host = "127.0.0.1" if args.host is None else args.host
        port = 8000 if args.port is None else args.port
        limits = Limits.from_args(args)
        serve(
            db,
            host=host,
            port=port,
            preset=preset,
            ready=ready,
            public_url=args.public_url,
            limits=limits,
            bus=args.bus,
        )
    except KeyboardInterrupt:
        pass
    except (OSError, ValueError) as e:
        print(f"whistkit play: {e}", file=sys.stderr)
        return EXIT_USAGE
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from .match import main_json, match_records, run_match, terminal_progress

    try:
        options = _parse_options(args.option)
        if not 0 <= args.seed < 2**63:
            raise ValueError(f"--seed must be from 0 to 2**63-1, not {args.seed}")
        if args.records:
            records = Path(args.records)
        else:
            # a new folder per run: the same match played again keeps the earlier records
            base = default_data_dir() / "matches"
            name = f"{args.variant}-{args.ns}-vs-{args.ew}-{args.deals}-seed{args.seed}"
            if args.contracts:
                name += "-" + "-".join(args.contracts)
            records, k = base / name, 1
            while match_records(records):
                k += 1
                records = base / f"{name}-{k}"
        result = run_match(
            args.variant,
            ns=args.ns,
            ew=args.ew,
            deals=args.deals,
            seed=args.seed,
            options=options,
            jobs=args.jobs,
            records=records,
            progress=terminal_progress(f"{args.ns} vs {args.ew}"),
            contracts=args.contracts,
        )
    except (ValueError, RuntimeError) as e:  # unknown variant, option, level; no solver
        print(f"whistkit match: {e}", file=sys.stderr)
        return EXIT_USAGE
    print(main_json(result) if args.json else result.report())
    return 0


def _group_sizes(text: str) -> tuple[int, int]:
    a, sep, b = text.partition(",")
    try:
        sizes = (int(a), int(b))
    except ValueError:
        sizes = (-1, -1)
    if not sep or min(sizes) < 0:
        raise argparse.ArgumentTypeError(
            f"must be the sizes of groups A and B, e.g. 18,20, not {text!r}"
        )
    return sizes


def cmd_evening_simulate(args: argparse.Namespace) -> int:
    from .evening import Config, EveningError, Prizes, simulate, simulated_players, to_json

    try:
        count = args.players
        if count is None:
            if args.groups is None:
                raise EveningError("give --players N (or --groups A,B)")
            count = sum(args.groups)
        if not 4 <= count <= 1000:
            raise EveningError(f"--players must be 4 to 1000, not {count}")
        if not 0 <= args.seed < 2**63:
            raise EveningError(f"--seed must be from 0 to 2**63-1, not {args.seed}")
        trumps = None
        if args.trumps:
            trumps = tuple(c.strip().upper() for c in args.trumps.split(","))
        config = Config(
            preset=args.preset,
            hands=args.hands,
            hands_per_move=args.hands_per_move,
            trump_order=trumps,
            sit_out=args.sit_out,
            seed=args.seed,
            prizes=Prizes(ties=args.ties),
        )
        config.check()
        done = simulate(config, simulated_players(count, args.groups))
    except EveningError as e:
        print(f"whistkit evening simulate: {e}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        _print_json(to_json(done), compact=True)
        return 0
    print(
        f"{config.preset}: {count} players, {max(len(h.tables) for h in done.hands)} tables,"
        f" {config.hands} hands (seed {config.seed})"
    )
    names = {p.id: p.name for p in done.evening.players}
    for group in ("A", "B"):
        print(f"Group {group}:")
        for s in done.standings(group)[:10]:
            print(f"  {s.place:>3}. {names[s.player]:<20} {s.total:g}")
    print("Prizes:")
    for prize in done.prizes:
        who = ", ".join(names[p] for p in prize.players)
        print(f"  {prize.category} {prize.place}: {who} ({prize.value:g})")
    return 0


def add_evening_parser(sub: Any) -> argparse.ArgumentParser:
    """``whistkit evening`` with its subcommands. Bare ``evening`` (and ``evening serve``)
    is the organiser's server: its options go on the returned parser and on ``serve``."""
    from .evening import PRESETS, SIT_OUT_POLICIES, TIE_RULES

    ev: argparse.ArgumentParser = sub.add_parser(
        "evening",
        help="the félagsvist evening organiser (simulate: a random evening as JSON)",
        description="Seat, move and score a félagsvist evening or whist drive.",
    )
    ev_sub = ev.add_subparsers(dest="evening_command", metavar="SUBCOMMAND")
    sim = ev_sub.add_parser(
        "simulate",
        help="run an evening with random results and print it",
        description="Seat and move an evening whose results are random (seeded); print the"
        " standings and prizes, or with --json every hand's seating and points.",
    )
    sim.add_argument("--preset", choices=PRESETS, default="felagsvist", help="movement preset")
    sim.add_argument("--players", type=int, help="number of players (4 to 1000)")
    sim.add_argument("--hands", type=int, default=24, help="hands in the evening (default 24)")
    sim.add_argument("--seed", type=int, default=1, help="seed of the seating and results")
    sim.add_argument(
        "--groups", type=_group_sizes, metavar="A,B", help="sizes of groups A and B, e.g. 18,20"
    )
    sim.add_argument(
        "--sit-out",
        choices=SIT_OUT_POLICIES,
        default="own_average",
        help="credit for a hand sat out (default own_average)",
    )
    sim.add_argument(
        "--hands-per-move", type=int, choices=(1, 4), default=1, help="hands before a move"
    )
    sim.add_argument(
        "--trumps", metavar="LIST", help="trump order for the other presets, e.g. H,C,D,S,NT"
    )
    sim.add_argument("--ties", choices=TIE_RULES, default="share", help="prize ties")
    sim.add_argument("--json", action="store_true", help="print the evening as one JSON object")
    sim.set_defaults(func=cmd_evening_simulate)
    return ev


def add_evening_commands(sub: Any) -> None:
    """Everything under ``whistkit evening``: both parsers below take it from here (bare
    ``evening`` and ``evening serve`` serve the organiser, :mod:`whistkit.evening.serve`)."""
    from .evening.serve import add_serve

    add_serve(add_evening_parser(sub))


def build_evening_parser() -> argparse.ArgumentParser:
    """The parser of ``whistkit evening`` alone (the same as within :func:`build_parser`)."""
    parser = argparse.ArgumentParser(prog="whistkit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_evening_commands(sub)
    return parser


def build_parser() -> argparse.ArgumentParser:
    from importlib.metadata import PackageNotFoundError, version

    from .bots import DEFAULT_LEVEL, LEVELS, play_level
    from .match import match_levels

    parser = argparse.ArgumentParser(
        prog="whistkit",
        description="The whist family of card games: play against bots, bot matches,"
        " game records, a double-dummy solver.",
    )
    try:
        own_version = version("whistkit")
    except PackageNotFoundError:  # run from a source tree that was never installed
        own_version = "unknown (not installed)"
    from .solver import core_build

    parser.add_argument(
        "--version",
        action="version",
        version=f"whistkit {own_version} (solver core: {core_build()})",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = sub.add_parser("play", help="play a game against bots")
    play.add_argument("--text", action="store_true", help="play in the terminal")
    play.add_argument(
        "--variant",
        default="felagsvist",
        help="variant name (default felagsvist; web game: the new-game dialog's first choice)",
    )
    play.add_argument(
        "--seed",
        type=int,
        help="terminal game: the game number, which fixes the deals and the bots' play (the"
        " web game's new-game dialog asks for it)",
    )
    play.add_argument(
        "--level",
        type=str.lower,
        help=f"bot level: {', '.join(LEVELS)} (terminal game: default {play_level()}, the"
        " strongest that answers quickly here; web game: the dialog's first choice, default"
        f" {DEFAULT_LEVEL})",
    )
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule option of docs/rules.md §8, e.g. nolo_aces_low=true (repeatable; "
        "`whistkit variants` lists them)",
    )
    play.add_argument("--records", help="folder for saved records (default: user data dir)")
    play.add_argument("--host", help="web game: address to listen on (default 127.0.0.1)")
    play.add_argument("--port", type=int, help="web game: port (default 8000)")
    play.add_argument(
        "--db",
        help="web game: SQLite file of games (default: user data dir), or a PostgreSQL"
        " database postgresql://USER@HOST:PORT/DB",
    )
    play.add_argument(
        "--bus",
        help="web game: redis://HOST:PORT/N shared by several server processes on one"
        " PostgreSQL --db (docs/deploy.md)",
    )
    play.add_argument("--no-browser", action="store_true", help="web game: do not open a browser")
    play.add_argument(
        "--public-url",
        help="web game: the server's address behind a proxy (https://cards.example.org/):"
        " its host is answered and its origin allowed",
    )
    from .server.limits import Limits

    Limits.add_arguments(play)
    play.set_defaults(func=cmd_play)

    match = sub.add_parser("match", help="a duplicate match between two bot levels")
    match.add_argument("--variant", default="felagsvist", help="variant name (default felagsvist)")
    levels = ", ".join(match_levels())
    match.add_argument(
        "--ns", required=True, type=str.lower, help=f"level of the N-S pair at table a: {levels}"
    )
    match.add_argument("--ew", required=True, type=str.lower, help="level of the E-W pair")
    match.add_argument("--deals", type=int, required=True, help="number of deals")
    match.add_argument("--seed", type=int, default=1, help="seed of the deals and the bots")
    match.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    match.add_argument("--json", action="store_true", help="print the result as one JSON line")
    match.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule option, as in play (repeatable; `whistkit variants` lists them)",
    )
    match.add_argument(
        "--records",
        help="a new or empty folder for the records (default: a new one under the user data dir)",
    )
    match.add_argument(
        "--contracts",
        type=lambda text: [c.strip().upper() for c in text.split(",")],
        metavar="CODES",
        help="the N-S level plays only the cards of these contracts (e.g. NOLO or NT,NOLO;"
        " the E-W level plays all else at every seat) and only those deals are reported",
    )
    match.set_defaults(func=cmd_match)

    var = sub.add_parser(
        "variants", help="the variants and the rule options each takes (--option KEY=VALUE)"
    )
    var.add_argument("name", nargs="?", help="one variant (a name or alias)")
    var.add_argument("--json", action="store_true", help="print them as JSON")
    var.set_defaults(func=cmd_variants)

    rep = sub.add_parser("replay", help="validate a record and print its result as JSON")
    rep.add_argument("file", help="record file, or - for standard input")
    rep.add_argument("--compact", action="store_true", help="one line of JSON")
    rep.set_defaults(func=cmd_replay)

    from .analysis import NODE_LIMIT, NORMAL_RETRY

    ana = sub.add_parser(
        "analyse",
        aliases=["analyze"],
        help="double-dummy review of a record: the cards that gave tricks away",
        description="Solve every position of a game record double dummy and list, hand by"
        " hand, the cards that gave up tricks against the best card (in Nóló and nollspel:"
        " took more), with each hand's par and a summary per seat.",
    )
    ana.add_argument("file", help="record file, or - for standard input")
    ana.add_argument(
        "--hand", type=int, action="append", metavar="N", help="only hand N (repeat for more)"
    )
    ana.add_argument(
        "--node-limit",
        type=int,
        default=NODE_LIMIT,
        metavar="N",
        help=f"search nodes per position (default {NODE_LIMIT:,}, under half a second);"
        f" normal play needing more is searched again with {NORMAL_RETRY} times as many,"
        " then positions still unsettled are left unjudged, with the proven range of"
        " their values",
    )
    ana.add_argument("--json", action="store_true", help="print the analysis as JSON")
    ana.add_argument("--compact", action="store_true", help="with --json: one line")
    ana.set_defaults(func=cmd_analyse)

    from .solver.cli import add_parser as add_solve_parser

    add_solve_parser(sub)
    add_evening_commands(sub)
    return parser


def _output_error(e: OSError) -> str:
    return f"cannot write to standard output: {e.strerror or e}"


def _drop_stdout() -> None:
    """Send what is left in standard output's buffer to /dev/null, so that the exit does
    not fail again (and print a traceback) on a pipe or a disk that took no more."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests capture it)
        return
    os.dup2(os.open(os.devnull, os.O_WRONLY), fd)


def main(argv: Sequence[str] | None = None) -> int:
    if sys.stdout is None:  # started with standard output closed (`>&-`)
        print("whistkit: standard output is closed", file=sys.stderr)
        return 1
    argv = sys.argv[1:] if argv is None else list(argv)
    # `whistkit evening ...` builds only its own parser: the full one imports the bots,
    # the solver and the match runner, which an evening in a hall never needs
    parser = build_evening_parser() if argv[:1] == ["evening"] else build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (e.g. `| head`): stop quietly, as Unix tools do
        _drop_stdout()
        return 1
    except OSError as e:
        if e.filename is not None:  # a file's error, not the output's
            raise
        _drop_stdout()  # e.g. a full disk (`> /dev/full`): one line, not a traceback
        print(f"whistkit: {_output_error(e)}", file=sys.stderr)
        return 1
    return result


if __name__ == "__main__":
    sys.exit(main())
