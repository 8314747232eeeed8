"""The package faces that import on first use (``engine.faces``): each face's table names the
modules its type-checker imports name, every name resolves to the module's own object, a
subpackage of the same name does not replace the operation, and ``harmony batch`` loads
neither the service nor a numba kernel."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _faces() -> list[str]:
    found = []
    for top in ("engine", "server"):
        for path in sorted((ROOT / top).rglob("__init__.py")):
            if "lazy_face(" in path.read_text():
                found.append(".".join(path.relative_to(ROOT).parent.parts))
    return found


FACES = _faces()


def _checked_imports(package: str) -> dict[str, tuple[str, ...]]:
    """module -> names of the ``if TYPE_CHECKING:`` imports of ``package``'s __init__."""
    path = ROOT.joinpath(*package.split("."), "__init__.py")
    tree = ast.parse(path.read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If)
                 and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
    out: dict[str, tuple[str, ...]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module, package
        assert all(a.asname is None for a in node.names), "a face gives names as the module does"
        out[node.module] = tuple(a.name for a in node.names)
    return out


def test_the_faces_are_found() -> None:
    assert {"engine", "engine.analysis", "engine.voicing", "server.accounts",
            "server.http"} <= set(FACES)


@pytest.mark.parametrize("package", FACES)
def test_a_face_lists_what_the_type_checker_imports(package: str) -> None:
    face = importlib.import_module(package)
    checked = _checked_imports(package)
    table = {name: module for module, names in checked.items() for name in names}
    assert table == face._FACE
    assert sorted(face.__all__) == sorted(table)


@pytest.mark.parametrize("package", FACES)
def test_every_name_of_a_face_is_its_module_s_own(package: str) -> None:
    face = importlib.import_module(package)
    for name, module in face._FACE.items():
        assert getattr(face, name) is getattr(importlib.import_module(module), name), name
    assert set(face._FACE) <= set(dir(face))
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        face.nothing_here  # noqa: B018 (the look-up is the test)


def test_the_voicing_operation_stays_the_name_beside_its_package() -> None:
    import engine

    importlib.import_module("engine.voicing.kernels")  # binds the package on engine, refused
    assert isinstance(engine.voicing, types.FunctionType)
    assert isinstance(engine.compose, types.FunctionType)
    assert engine.voicing({"chord": "Dm7"})["chord"] == "Dm7"


def test_autumn_leaves_batch_loads_no_service_and_no_kernel(tmp_path: Path) -> None:
    # The A section of Autumn Leaves in G minor, as a user's CSV: `harmony batch` imports what
    # it runs (pyarrow, the batch analysis), not the HTTP app, the MCP tables or numba.
    src = tmp_path / "autumn_leaves.csv"
    src.write_text("chord,key\n" + "".join(
        f"{c},Gm\n" for c in ["Cm7", "F7", "Bbmaj7", "Ebmaj7", "Am7b5", "D7", "Gm6", "Gm6"]))
    # nor the other commands' modules, nor what their options need (the account store, the
    # HTTP settings): the command line names its command, and only its parser is built
    unused = ("numba", "server.http", "server.mcp", "server.web", "server.api",
              "server.accounts", "sqlite3", "server.cli.serve", "server.cli.accounts",
              "server.cli.operations", "server.cli.render", "server.cli.compose",
              "engine.voicing.kernels", "engine.analysis.keyfind_batch",
              "engine.conduct", "engine.compose", "engine.identify", "engine.corpus",
              "engine.render", "engine.reharm")
    probe = ("import sys; from server.cli.main import main; code = main(sys.argv[1:]); "
             f"print(sorted(m for m in sys.modules if m.startswith({unused!r}))); "
             "sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe, "batch", str(src), "-o",
                           str(tmp_path / "out.jsonl")], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "[]"
    lines = (tmp_path / "out.jsonl").read_text().splitlines()
    assert len(lines) == 8 and '"numeral":"iv7"' in lines[0]
