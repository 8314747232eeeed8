"""The layout's rules, read from the source with ``ast`` (a few lines, no tool to install):

- no import circle between modules, nor between packages (imports under ``TYPE_CHECKING`` and
  inside functions count: a circle hidden in a type hint is still a knot for the reader);
- the engine never imports the server;
- a module outside a package reaches it only through the package's ``__init__`` exports, never
  its private modules (entry points named by ``pyproject.toml`` excepted).

Why not import-linter: its contracts need the packages listed by hand and it skips imports inside
functions; these checks are twenty lines and cover every package that lands without editing.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOP = ("engine", "server")


def _modules() -> dict[str, Path]:
    found = {}
    for top in TOP:
        for path in (ROOT / top).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _target(name: str) -> str | None:
    """The module of ours that ``import name`` loads (its longest known prefix)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> set[str]:
    """The modules of ours that ``module`` imports, anywhere in its source."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            # `from pkg import sub` loads pkg.sub when sub is a module of ours, else pkg
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        else:
            continue
        out |= {t for n in names if (t := _target(n)) and t != module}
    return out


GRAPH = {m: _imports(m) for m in MODULES}


def _package(module: str) -> str:
    """engine.chords.notes -> engine.chords; top-level modules (engine.errors) are their own."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` (a list of nodes, first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_circle_between_modules() -> None:
    # A package's __init__ imports its own modules; those may not import it back.
    assert _cycle(GRAPH) is None, " -> ".join(_cycle(GRAPH) or [])


def test_no_import_circle_between_packages() -> None:
    packages: dict[str, set[str]] = {}
    for module, targets in GRAPH.items():
        if module in TOP:  # the roots re-export their packages' functions
            continue
        src = _package(module)
        packages.setdefault(src, set()).update(
            _package(t) for t in targets if _package(t) != src and t not in TOP)
    assert _cycle(packages) is None, " -> ".join(_cycle(packages) or [])


def test_engine_never_imports_server() -> None:
    bad = {m: sorted(t for t in ts if t.startswith("server"))
           for m, ts in GRAPH.items() if m.startswith("engine")}
    assert {m: ts for m, ts in bad.items() if ts} == {}


ENTRY_POINTS = {"server.mcp.stdio", "server.mcp.conductor", "server.mcp.composer"}  # console scripts (pyproject.toml)


def test_packages_are_entered_through_their_init() -> None:
    reached = []
    for module, targets in GRAPH.items():
        for t in targets:
            pkg = _package(t)
            inside = module == pkg or module.startswith(pkg + ".")
            if t != pkg and pkg in MODULES and not inside and t not in ENTRY_POINTS:
                reached.append(f"{module} -> {t}")
    assert reached == []


@pytest.mark.parametrize("package", sorted(m for m, p in MODULES.items()
                                           if p.name == "__init__.py"))
def test_every_package_says_what_it_holds(package: str) -> None:
    doc = ast.get_docstring(ast.parse(MODULES[package].read_text()))
    assert doc and len(doc) > 40, package


def test_the_checks_see_a_circle() -> None:
    # The checker itself: a known circle is found, a chain is not.
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert "engine.chords.notes" in GRAPH["engine.chords.symbols"]
    assert "engine.chords" in GRAPH["engine.analysis.operations"]


# ---------------------------------------------------------------- docs/architecture.md's arrows
# The page lists every package -> package import in a fenced ``arrows`` block, one line a
# source (``a -> b, c``), sources top-down; the checks below keep the page and the code equal.

ARCHITECTURE = ROOT / "docs" / "architecture.md"
OUTSIDE = ("bench", "tests")  # their imports count by tree: engine.*, server.*, tests


def _documented(text: str) -> dict[str, list[str]]:
    """The ``arrows`` block of ``text``: source -> its targets, in the order written."""
    block = text.partition("```arrows\n")[2].partition("```")[0]
    arrows: dict[str, list[str]] = {}
    for line in block.splitlines():
        if not line.strip():
            continue
        source, arrow, targets = line.partition(" -> ")
        assert arrow and source.strip() not in arrows, f"not one line a source: {line!r}"
        arrows[source.strip()] = [t.strip() for t in targets.split(",")]
    return arrows


def _root_or_package(target: str) -> str:
    return target if target in TOP else _package(target)


def _code_arrows() -> set[tuple[str, str]]:
    """Every package -> package import of the code: engine and server by their packages (the
    roots' ``__init__`` as ``engine`` and ``server``), bench and tests by the tree they reach."""
    arrows = {(_root_or_package(m), _root_or_package(t)) for m, ts in GRAPH.items() for t in ts}
    for outside in OUTSIDE:
        for path in (ROOT / outside).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.partition(".")[0]
                    if top in (*TOP, *OUTSIDE):
                        arrows.add((outside, f"{top}.*" if top in TOP else top))
    return {(a, b) for a, b in arrows if a != b}


def _arrow_lines(arrows: set[tuple[str, str]]) -> list[str]:
    return sorted(f"{a} -> {b}" for a, b in arrows)


def test_the_architecture_page_lists_every_import_arrow() -> None:
    documented = {(a, b) for a, targets in _documented(ARCHITECTURE.read_text()).items()
                  for b in targets}
    code = _code_arrows()
    assert _arrow_lines(code - documented) == [], "imports the page does not list"
    assert _arrow_lines(documented - code) == [], "arrows the code does not have"


def test_the_architecture_page_draws_arrows_down() -> None:
    # Sources are written top-down: each arrow points to a package written further down (or
    # to one with no line of its own, a leaf such as engine.errors).
    arrows = _documented(ARCHITECTURE.read_text())
    order = {source: i for i, source in enumerate(arrows)}
    up = [f"{a} -> {b}" for a, targets in arrows.items() for b in targets
          if b in order and order[b] <= order[a]]
    assert up == []


def test_the_arrow_checks_see_a_missing_arrow() -> None:
    # The checker itself: the page parsed, and a page without one real arrow is caught.
    page = ARCHITECTURE.read_text()
    arrows = _documented(page)
    assert "server.api" in arrows and "engine.errors" in arrows["server.accounts"]
    assert ("server.http", "server.mcp") in _code_arrows()
    cut = page.replace("server.http -> server.mcp, ", "server.http -> ", 1)
    assert cut != page
    assert ("server.http", "server.mcp") not in {
        (a, b) for a, ts in _documented(cut).items() for b in ts}
