"""Service configuration: one frozen record, read from the environment (``harmony serve`` passes
its flags to the granian workers through the same variables)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

PROFILES = ("local", "hosted")
INTERFACES = ("", "wsgi", "rsgi")


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
    retention_days: int = 30                # request bodies kept this long (then blanked)
    log_days: int = 90                      # log rows kept this long (then deleted)
    log_flush_seconds: float = 0.25         # the log writer runs at least once a second
    key_cache_seconds: float = 60.0
    store_timeout: float = 0.1              # seconds a request waits for the key store: then 503
    redis_url: str = ""                     # the limit counters in Redis ("": this machine's)
    machines: int = 1                       # machines sharing the limits (Redis fallback)
    user_agent_policy: bool = field(default=False)
    render_workers: int = 1                 # render processes per service worker
    render_queue: int = 2                   # renders that may wait for one; more: 503 busy
    render_max_seconds: int = 300           # longest audio a render may make (at most 900)
    render_deadline: float = 60.0           # s a render may run; past it, it is stopped (503)
    soundfont: str = ""                     # a .sf2/.sf3; blank: the system's default GM font
    corpus: str = ""                        # search: an index folder or chart files (os.pathsep)
    # granian's interface: "wsgi" (the faster), "rsgi" (a held-back body costs no thread), or
    # "" for the profile's: wsgi when local, rsgi when hosted (``server.http.wsgi``)
    interface: str = ""
    threads: int = 0                        # WSGI: request threads a worker; 0: 2 a core + 1

    def __post_init__(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"unknown profile {self.profile!r}; use local or hosted")
        if not self.auth and self.profile != "local":
            raise ValueError("--no-auth is only allowed in the local profile")
        if self.flood_per_minute < 1 or self.workers < 1 or self.retention_days < 0:
            raise ValueError("the flood limit and workers must be at least 1, the retention "
                             "period at least 0 days")
        if self.render_workers < 1 or self.render_queue < 0 \
                or not 1 <= self.render_max_seconds <= 900:
            raise ValueError("renders need at least 1 process, a queue of 0 or more and a "
                             "longest audio of 1 to 900 seconds")
        if not 1 <= self.log_days <= 100_000:
            raise ValueError("HARMONY_LOG_DAYS is the days log rows are kept: 1 or more")
        if not 0 < self.render_deadline <= 3600:
            raise ValueError("HARMONY_RENDER_DEADLINE is the seconds a render may run: more "
                             "than 0, at most 3600")
        if not 0 < self.log_flush_seconds <= 1:
            raise ValueError("the log is flushed at least once a second")
        if self.interface not in INTERFACES:
            raise ValueError(f"unknown interface {self.interface!r}; use wsgi or rsgi")
        if self.threads < 0:
            raise ValueError("HARMONY_THREADS is a worker's request threads: 1 or more, or 0 "
                             "for two a core and one")
        if self.machines < 1:
            raise ValueError("HARMONY_MACHINES counts the machines sharing the limits: 1 or "
                             "more")
        if not 0 < self.store_timeout <= 10:
            raise ValueError("HARMONY_STORE_TIMEOUT is the seconds a request waits for the "
                             "key store: more than 0, at most 10")
        if not 0 <= self.key_cache_seconds <= 60:
            raise ValueError("keys are cached 0 to 60 seconds (API.md: a plan change reaches "
                             "running servers within 60 s)")
        # The hosted profile always applies the gateway policy.
        object.__setattr__(self, "user_agent_policy",
                           self.user_agent_policy or self.profile == "hosted")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **given: Any) -> Settings:
        """The settings of the environment, with ``given`` (e.g. ``harmony serve``'s flags that
        were actually passed; None means not given) taking precedence: a variable is read only
        for a setting not given, so a malformed one that a flag overrides is no error. A blank
        variable is an unset one."""
        e = os.environ if env is None else env
        passed = {name: value for name, value in given.items() if value is not None}
        fields = dict(passed)
        for name, (variable, kind) in ENV_VARIABLES.items():
            if name not in fields:
                fields[name] = kind.read(e, variable, getattr(cls, name))
        if fields["profile"] in PROFILES and fields["profile"] != "local" \
                and not fields["auth"] and "auth" not in passed:
            # Settings() would blame --no-auth, which was not passed. (An unknown profile is
            # left to Settings(), which names it first.)
            variable = ENV_VARIABLES["auth"][0]
            raise ValueError(f"{variable}={e[variable]!r} is only allowed in the local profile")
        return cls(**fields)

    @property
    def served_interface(self) -> str:
        """The interface granian serves: the one set, else the profile's."""
        return self.interface or ("wsgi" if self.profile == "local" else "rsgi")

    @property
    def request_threads(self) -> int:
        """A WSGI worker's request threads: the ones set, else granian's own ceiling (two a
        core and one, above which it warns that the interpreter is oversubscribed)."""
        return self.threads or 2 * (os.cpu_count() or 1) + 1

    def to_env(self) -> dict[str, str]:
        """The variables that reproduce these settings in a worker process."""
        return {variable: kind.write(getattr(self, name))
                for name, (variable, kind) in ENV_VARIABLES.items()}


_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
Reader = Callable[[Mapping[str, str], str, Any], Any]


def _text(env: Mapping[str, str], name: str, default: str) -> str:
    value = env.get(name, "")
    return value if value.strip() else default


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = env.get(name, "").strip().lower()
    if not value:
        return default
    if value not in _TRUE + _FALSE:
        raise ValueError(f"{name}={env[name]!r}: use 1 or 0")
    return value in _TRUE


def _no_flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    """A variable that switches a setting off (HARMONY_NO_AUTH=1: auth False)."""
    return not _flag(env, name, not default)


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    value = env.get(name, "").strip()
    try:
        return int(value) if value else default
    except ValueError:
        raise ValueError(f"{name}={env[name]!r} is not a whole number") from None


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    value = env.get(name, "").strip()
    try:
        return float(value) if value else default
    except ValueError:
        raise ValueError(f"{name}={env[name]!r} is not a number") from None


def _origins(env: Mapping[str, str], name: str, default: tuple[str, ...]) -> tuple[str, ...]:
    return parse_origins(env[name]) if name in env else default


def _write_flag(value: bool) -> str:
    return "1" if value else "0"


def _write_no_flag(value: bool) -> str:
    return "0" if value else "1"


class Kind(NamedTuple):
    """How a setting is read from its variable (a blank one gives the default) and written."""

    read: Reader
    write: Callable[[Any], str]


TEXT, INT, NUMBER = Kind(_text, str), Kind(_int, str), Kind(_number, repr)
FLAG, NO_FLAG = Kind(_flag, _write_flag), Kind(_no_flag, _write_no_flag)
ORIGINS = Kind(_origins, ",".join)

# Setting -> (variable, kind): what ``from_env`` reads and ``to_env`` writes; the default is the
# field's own. One line here (and the field) adds a setting to both.
ENV_VARIABLES: dict[str, tuple[str, Kind]] = {
    "profile": ("HARMONY_PROFILE", TEXT),
    "db_path": ("HARMONY_DB", TEXT),
    "auth": ("HARMONY_NO_AUTH", NO_FLAG),
    "cors_origins": ("HARMONY_CORS_ORIGINS", ORIGINS),
    "flood_per_minute": ("HARMONY_FLOOD_PER_MINUTE", INT),
    "workers": ("HARMONY_WORKERS", INT),
    "store_bodies": ("HARMONY_STORE_BODIES", FLAG),
    "retention_days": ("HARMONY_RETENTION_DAYS", INT),
    "log_days": ("HARMONY_LOG_DAYS", INT),
    "user_agent_policy": ("HARMONY_UA_POLICY", FLAG),
    "render_workers": ("HARMONY_RENDER_WORKERS", INT),
    "render_queue": ("HARMONY_RENDER_QUEUE", INT),
    "render_max_seconds": ("HARMONY_RENDER_MAX_SECONDS", INT),
    "render_deadline": ("HARMONY_RENDER_DEADLINE", NUMBER),
    "soundfont": ("HARMONY_SOUNDFONT", TEXT),
    "corpus": ("HARMONY_CORPUS", TEXT),
    "key_cache_seconds": ("HARMONY_KEY_CACHE_SECONDS", NUMBER),
    "store_timeout": ("HARMONY_STORE_TIMEOUT", NUMBER),
    "redis_url": ("HARMONY_REDIS_URL", TEXT),
    "machines": ("HARMONY_MACHINES", INT),
    "interface": ("HARMONY_INTERFACE", TEXT),
    "threads": ("HARMONY_THREADS", INT),
}


def env_db_path(env: Mapping[str, str] | None = None) -> str:
    """The database when no ``--db`` is given: HARMONY_DB, else harmony.db."""
    variable, kind = ENV_VARIABLES["db_path"]
    return str(kind.read(os.environ if env is None else env, variable, Settings.db_path))


def env_log_days(env: Mapping[str, str] | None = None) -> int:
    """The days the request log keeps (HARMONY_LOG_DAYS, else 90): ``harmony usage`` reads
    within them."""
    variable, kind = ENV_VARIABLES["log_days"]
    return int(kind.read(os.environ if env is None else env, variable, Settings.log_days))


def parse_origins(text: str) -> tuple[str, ...]:
    return tuple(o.strip() for o in text.split(",") if o.strip())
