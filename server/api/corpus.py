"""The corpus the search operation reads: the project's own by default; with
``HARMONY_CORPUS`` (paths separated by ``os.pathsep``), an index folder written by
``harmony corpus import`` (memory-mapped, shared by every worker) or files and folders of the
user's charts, loaded with the project's own at start-up."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from functools import partial

from engine.corpus import corpus_index, search
from server.api.schemas import Operation


def corpus_paths(spec: str) -> list[str]:
    return [p for p in spec.split(os.pathsep) if p.strip()]


def with_corpus(operations: Mapping[str, Operation], spec: str) -> dict[str, Operation]:
    """``operations`` with search reading the corpus ``spec`` names (unchanged when blank)."""
    table = dict(operations)
    paths = corpus_paths(spec)
    if paths and "search" in table:
        index = corpus_index(paths)
        table["search"] = dataclasses.replace(table["search"], impl=partial(search, index=index))
    return table
