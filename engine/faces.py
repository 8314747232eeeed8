"""Package faces that import on first use.

A package's ``__init__`` names its public names and the modules that hold them, imports them
for the type checker only, and hands the table to ``lazy_face``, which becomes the package's
``__getattr__`` (PEP 562): ``from engine.analysis import analyze_batch`` loads
``engine.analysis.batch`` and what it needs, not the numba kernels of ``keyfind_batch`` nor the
rest of the engine. A command such as ``harmony batch`` pays for what it runs (before: 1.2 s of
imports on a quiet machine, more than a million rows' analysis).

A public name that is also a subpackage (``engine.voicing``, the function and the package) stays
the name: the import system binds a subpackage on its parent when it is first loaded, and the
face refuses that binding for its own names, as the eager ``from engine.voicing import
voicing`` used to overwrite it.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any


class _Face(types.ModuleType):
    """A package whose public names are never replaced by a subpackage of the same name."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in self.__dict__.get("_FACE", {}):
            return
        super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self.__dict__.get("_FACE", {})})


def lazy_face(package: str, exports: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``, whose ``exports`` map each module (absolute name) to
    the public names it holds. The package's ``_FACE`` is the table by name."""
    where = {name: module for module, names in exports.items() for name in names}
    face = sys.modules[package]
    face.__class__ = _Face
    face._FACE = where  # type: ignore[attr-defined]

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(face, name, value)  # found once: the next look-up is a plain attribute
        return value

    return __getattr__
