"""The ``harmony`` command: serve, keys, accounts, usage, the operations, and ``batch``."""

from server.cli.main import main

__all__ = ["main"]
