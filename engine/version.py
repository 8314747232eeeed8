"""Versions reported by /health and checked by the golden files.

GRID_VERSION changes whenever any engine output changes (rule grid, vocabulary, voicing rules,
arrangement): bump it, add a CHANGELOG entry and run ``make golden``.
"""

PACKAGE_VERSION = "0.6.0"
GRID_VERSION = "13"
