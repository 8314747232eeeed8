"""Corpus search (API.md section 14): loaders, the token stream and its index, queries. Empty
until the corpus issue lands."""
