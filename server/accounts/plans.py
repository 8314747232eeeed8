"""The plans of API.md section 10, as data. Enterprise limits are set per account."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Plan:
    name: str
    per_minute: int
    per_month: int
    max_keys: int


PLANS: dict[str, Plan] = {p.name: p for p in (
    Plan("free", 30, 1_000, 1),
    Plan("builder", 300, 1_000, 2),
    Plan("theory_pro", 120, 10_000, 2),
    Plan("developer", 300, 100_000, 10),
    Plan("licence", 1_000, 1_000_000, 25),
    # Defaults until `harmony accounts set-limits` gives the account its own.
    Plan("enterprise", 1_000, 1_000_000, 100),
)}


def plan_named(name: str) -> Plan:
    try:
        return PLANS[name]
    except KeyError:
        raise ValueError(f"unknown plan {name!r}; plans: {', '.join(PLANS)}") from None
