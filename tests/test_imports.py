"""The package's import graph: no circles, and the layers of docs/design.md.

The graph is read from the source with ``ast``: every ``import`` and ``from ... import``
counts, at module level, inside functions and under ``if TYPE_CHECKING:`` alike (an
import moved into a function or behind TYPE_CHECKING still ties two modules together).
Importing ``a.b.c`` also runs the ``__init__`` of the packages ``a.b`` and ``a``, so those
count as imported too, except the packages the importer is itself inside (their
``__init__`` is already running); a package named in the import counts always.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "whistkit"

# the core: rules, records, deals and the seeded game loop
CORE = (
    "whistkit._checks",
    "whistkit.cards",
    "whistkit.seats",
    "whistkit.state",
    "whistkit.variants",
    "whistkit.record",
    "whistkit.record_events",
    "whistkit.deal",
    "whistkit.game",
)
# what the core never imports (nor anything the core imports)
ABOVE_CORE = (
    "whistkit.solver",
    "whistkit.bots",
    "whistkit.server",
    "whistkit.analysis",
    "whistkit.match",
    "whistkit.cli",
    "whistkit.text_game",
)


def module_files(src: Path = SRC) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    out: dict[str, Path] = {}
    for path in sorted((src / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` (at ``path``) imports, wherever the import is."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                if node.module:
                    base.append(node.module)
                source = ".".join(base)
            else:
                source = node.module or ""
            # ``from pkg import sub`` imports the submodule ``pkg.sub`` (and runs pkg's
            # __init__ as any import of ``pkg.sub`` does); ``from pkg import name``
            # takes a name from pkg's __init__
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                targets.add(sub if sub in modules else source)
    out: set[str] = set()
    mine = set(_ancestors(name))
    for target in targets:
        if not _within(target, PACKAGE):
            continue
        if target in modules and target != name:
            out.add(target)
        out.update(t for t in _ancestors(target) if t in modules and t not in mine)
    return out


@functools.cache
def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    modules = module_files(src)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def reachable(graph: dict[str, set[str]], start: str) -> dict[str, str]:
    """Every module ``start`` imports, directly or not, each with the module importing it."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        v = todo.pop()
        for w in sorted(graph.get(v, ())):
            if w not in seen and w != start:
                seen[w] = v
                todo.append(w)
    return seen


def test_the_graph_is_read() -> None:
    graph = import_graph()
    # a few edges that must be seen, one per kind of import
    assert "whistkit.cards" in graph["whistkit.state"]  # from .cards import ...
    assert "whistkit.variants.laws" in graph["whistkit.variants.base"]  # from . import laws
    assert "whistkit.variants" in graph["whistkit.bots.bidding"]  # a package's __init__
    assert "whistkit.solver" in graph["whistkit.bots.pimc"]  # inside a function
    assert "whistkit.server.app" in graph["whistkit.server"]  # under TYPE_CHECKING
    assert len(graph) > 30


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert found == [], "modules that import each other: " + "; ".join(
        " <-> ".join(c) for c in found
    )


@pytest.mark.parametrize("core", CORE)
def test_the_core_imports_nothing_above_it(core: str) -> None:
    graph = import_graph()
    starts = [m for m in graph if _within(m, core)]
    assert starts, f"no module {core}"
    bad = []
    for start in starts:
        for module, importer in reachable(graph, start).items():
            if any(_within(module, above) for above in ABOVE_CORE):
                bad.append(f"{start} reaches {module} (imported by {importer})")
    assert bad == []


def _write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    # a circle closed by an import inside a function, and one behind TYPE_CHECKING
    _write(tmp_path, "whistkit/__init__.py", "")
    _write(tmp_path, "whistkit/a.py", "from .b import x\n")
    _write(tmp_path, "whistkit/b.py", "def f():\n    from . import a\n")
    _write(tmp_path, "whistkit/c/__init__.py", "from .d import y\n")
    _write(
        tmp_path,
        "whistkit/c/d.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..e import z\n",
    )
    _write(tmp_path, "whistkit/e.py", "from whistkit.c.d import y\n")
    # a module that takes a name from its own package's __init__, which imports it
    _write(tmp_path, "whistkit/f/__init__.py", "def g():\n    from . import h\n")
    _write(tmp_path, "whistkit/f/h.py", "from . import g\n")
    _write(tmp_path, "whistkit/bots/__init__.py", "")
    _write(tmp_path, "whistkit/cards.py", "import whistkit.bots\n")
    graph = import_graph(tmp_path)
    assert cycles(graph) == [
        ["whistkit.a", "whistkit.b"],
        ["whistkit.c", "whistkit.c.d", "whistkit.e"],
        ["whistkit.f", "whistkit.f.h"],
    ]
    assert "whistkit.c" in graph["whistkit.e"]  # importing c.d runs c's __init__
    assert "whistkit.bots" in reachable(graph, "whistkit.cards")


def test_nothing_imports_the_environments() -> None:
    """whistkit.env (PettingZoo, OpenSpiel) sits on top: no other module imports it."""
    graph = import_graph()
    for module, imported in graph.items():
        if _within(module, "whistkit.env"):
            continue
        assert not any(_within(m, "whistkit.env") for m in imported), module
