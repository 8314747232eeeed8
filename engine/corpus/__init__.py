"""Corpus search (API.md section 14): loaders of charts, iReal Pro links and ChordPro
(``loaders``, ``ireal``), the token stream of root motions and quality families (``tokens``),
its suffix-array index written to ``.npy`` files and memory-mapped (``index``), the local
alignment kernel (``align``), the search (``operation``) with its pattern read and compiled
(``pattern``) and its ``similarTo`` ranking (``similar``). The project's own corpus (common
forms and charts of songs in the US public domain) lives in ``data/``.
"""

from pathlib import Path

from engine.corpus.build import build_index, write_index
from engine.corpus.index import Index, open_index, save_index
from engine.corpus.loaders import load_paths
from engine.corpus.operation import DATA, search, shipped_index
from engine.corpus.songs import Problem, Song


def corpus_index(paths: list[str], *, shipped: bool = True) -> Index:
    """The index a service searches: one folder written by ``save_index`` (memory-mapped), or
    the songs of ``paths`` (files and folders) with the shipped corpus, built in memory."""
    if len(paths) == 1 and (Path(paths[0]) / "songs.json").is_file():
        return open_index(Path(paths[0]))
    songs, _ = load_paths([*([DATA] if shipped else []), *paths])
    return build_index(songs)


__all__ = ["DATA", "Index", "Problem", "Song", "build_index", "corpus_index", "load_paths",
           "open_index", "save_index", "search", "shipped_index", "write_index"]
