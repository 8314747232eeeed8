"""Service configuration: one frozen record, read from the environment (``harmony serve`` passes
its flags to the granian workers through the same variables)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

PROFILES = ("local", "hosted")


@dataclass(frozen=True)
class Settings:
    profile: str = "local"                  # "hosted" turns the User-Agent policy on
    db_path: str = "harmony.db"
    auth: bool = True                       # False: --no-auth (local profile only)
    cors_origins: tuple[str, ...] = ()      # browser origins allowed; "*" allows any
    flood_per_minute: int = 6000            # per client IP, all routes
    workers: int = 1                        # the flood budget is shared out among them
    max_body: int = 64 * 1024
    store_bodies: bool = True               # keep request bodies in the log (vocabulary work)
    retention_days: int = 30
    log_flush_seconds: float = 0.25         # the log writer runs at least once a second
    key_cache_seconds: float = 60.0
    user_agent_policy: bool = field(default=False)

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}; use local or hosted")
        if not self.auth and self.profile != "local":
            raise ValueError("--no-auth is only allowed in the local profile")
        if not 0 < self.log_flush_seconds <= 1:
            raise ValueError("the log is flushed at least once a second")
        # The hosted profile always applies the gateway policy.
        object.__setattr__(self, "user_agent_policy",
                           self.user_agent_policy or self.profile == "hosted")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        e = os.environ if env is None else env
        origins = tuple(o.strip() for o in e.get("HARMONY_CORS_ORIGINS", "").split(",")
                        if o.strip())
        return cls(
            profile=e.get("HARMONY_PROFILE", "local"),
            db_path=e.get("HARMONY_DB", "harmony.db"),
            auth=e.get("HARMONY_NO_AUTH", "") not in ("1", "true", "yes"),
            cors_origins=origins,
            flood_per_minute=int(e.get("HARMONY_FLOOD_PER_MINUTE", "6000")),
            workers=max(1, int(e.get("HARMONY_WORKERS", "1"))),
            store_bodies=e.get("HARMONY_STORE_BODIES", "1") not in ("0", "false", "no"),
            retention_days=int(e.get("HARMONY_RETENTION_DAYS", "30")),
            user_agent_policy=e.get("HARMONY_UA_POLICY", "") in ("1", "true", "yes"),
        )

    def to_env(self) -> dict[str, str]:
        """The variables that reproduce these settings in a worker process."""
        return {
            "HARMONY_PROFILE": self.profile,
            "HARMONY_DB": self.db_path,
            "HARMONY_NO_AUTH": "0" if self.auth else "1",
            "HARMONY_CORS_ORIGINS": ",".join(self.cors_origins),
            "HARMONY_FLOOD_PER_MINUTE": str(self.flood_per_minute),
            "HARMONY_WORKERS": str(self.workers),
            "HARMONY_STORE_BODIES": "1" if self.store_bodies else "0",
            "HARMONY_RETENTION_DAYS": str(self.retention_days),
            "HARMONY_UA_POLICY": "1" if self.user_agent_policy else "0",
        }
