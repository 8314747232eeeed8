"""The harmony command in-process: accounts, keys, usage, vocab-gaps and an operation."""

from __future__ import annotations

import argparse
import base64
import time
from pathlib import Path

import orjson
import pytest

import engine
from server.accounts.store import LogRow, Store, hash_secret
from server.cli.main import COMMANDS, build_parser, command_of, main
from server.cli.serve import bootstrap, serve_settings
from server.http.settings import Settings
from tests.server_fixtures import fake_analyze


def harmony(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--db", str(db), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_accounts_and_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.db"
    assert harmony(capsys, db, "accounts", "create", "acme", "--plan", "free")[0] == 0
    code, out, err = harmony(capsys, db, "keys", "create", "acme")
    secret = out.strip()
    assert code == 0 and out == secret + "\n" and secret.startswith("hk_live_")
    assert len(secret) >= len("hk_live_") + 32 and secret not in err
    # The free plan allows one key.
    code, out, err = harmony(capsys, db, "keys", "create", "acme")
    assert code == 1 and out == "" and "allows 1" in err
    listed = orjson.loads(harmony(capsys, db, "keys", "list", "acme")[1])
    assert len(listed) == 1 and listed[0]["account"] == "acme"
    assert listed[0]["prefix"] == secret[:12] + "…" and listed[0]["revoked"] is None
    key_id = listed[0]["id"]
    code, out, _ = harmony(capsys, db, "keys", "rotate", key_id)
    rotated = out.strip()
    assert code == 0 and rotated.startswith("hk_live_") and rotated != secret
    store = Store(str(db))
    record = store.lookup_key(hash_secret(secret))
    assert record is not None and record.revoked
    listed = orjson.loads(harmony(capsys, db, "keys", "list")[1])
    assert [k["revoked"] is not None for k in listed] == [True, False]
    assert listed[0]["replacedBy"] == listed[1]["id"]
    assert harmony(capsys, db, "keys", "revoke", listed[1]["id"])[0] == 0
    assert harmony(capsys, db, "keys", "revoke", listed[1]["id"])[0] == 1
    assert harmony(capsys, db, "accounts", "set-plan", "acme", "developer")[0] == 0
    assert harmony(capsys, db, "accounts", "set-limits", "acme", "--per-minute", "5",
                   "--per-month", "9")[0] == 0
    assert orjson.loads(harmony(capsys, db, "accounts", "list")[1]) == [
        {"name": "acme", "plan": "enterprise"}]
    assert harmony(capsys, db, "accounts", "set-plan", "nobody", "free")[0] == 1


def test_usage_and_vocab_gaps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "h.db"
    store = Store(str(db))
    store.create_account("acme", "developer")
    key_id, _ = store.create_key("acme")
    now = time.time()
    rows = [LogRow(now, key_id, "rest", "analyze", 200, None, lat, None)
            for lat in (100, 200, 300, 400)]
    rows += [LogRow(now, key_id, "rest", "analyze", 400, "invalid_chord", 50, b"{}", "Cmaj7#13#")
             for _ in range(3)]
    rows.append(LogRow(now, key_id, "mcp", "analyze", 400, "invalid_chord", 50, None, "H7"))
    store.write_log(rows, retention_days=30)
    usage = orjson.loads(harmony(capsys, db, "usage", "--json")[1])
    assert usage == [{"key": key_id, "account": "acme", "calls": 8, "errors": 4,
                      "errorRate": 0.5, "p50Us": 50, "p95Us": 400}]
    code, out, _ = harmony(capsys, db, "usage", "--account", "acme")
    assert code == 0 and key_id in out and " 8 " in out
    gaps = orjson.loads(harmony(capsys, db, "vocab-gaps", "--json")[1])
    assert [(g["symbol"], g["count"]) for g in gaps] == [("Cmaj7#13#", 3), ("H7", 1)]
    assert harmony(capsys, db, "vocab-gaps", "--limit", "1")[1].split() == ["3", "Cmaj7#13#"]


def test_operation_subcommand_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "analyze", fake_analyze, raising=False)
    code, out, _ = harmony(capsys, tmp_path / "h.db", "analyze", "Dm7", "--key", "F")
    assert code == 0 and orjson.loads(out) == {"chord": "Dm7", "key": "F"}
    code, out, _ = harmony(capsys, tmp_path / "h.db", "analyze", "H7")
    assert code == 1 and orjson.loads(out)["error"]["code"] == "invalid_chord"


def test_reharmonize_subcommand_runs_the_engine(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = harmony(capsys, tmp_path / "h.db", "reharmonize", "Dm7 G7 Cmaj7",
                           "--key", "C")
    result = orjson.loads(out)
    assert code == 0 and result["key"] == "C"
    assert result["progression"] == ["Dm7", "G7", "Cmaj7"]
    first = result["alternatives"][0]
    assert first["technique"] == "tritone_sub"
    assert first["progression"] == ["Dm7", "Db7", "Cmaj7"]
    code, out, _ = harmony(capsys, tmp_path / "h.db", "reharmonize", "Dm7 G7 Cmaj7",
                           "--key", "C", "--technique", "backdoor")
    assert code == 0
    assert [a["technique"] for a in orjson.loads(out)["alternatives"]] == ["backdoor"]
    code, out, _ = harmony(capsys, tmp_path / "h.db", "reharmonize", "Dm7 Gzz7 Cmaj7")
    error = orjson.loads(out)["error"]
    assert code == 1 and error["code"] == "invalid_chord"
    assert error["symbol"] == "Gzz7" and error["index"] == 1


def test_conduct_writes_the_midi_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    smf = b"MThd\x00\x00\x00\x06\x00\x01\x00\x01\x01\xe0"
    seen = {}

    def fake_conduct(request: dict[str, object]) -> dict[str, object]:
        seen.update(request)
        return {"midi": base64.b64encode(smf).decode(), "leadSheet": "| C |",
                "conductor": {"tempo": 120}}

    monkeypatch.setattr(engine, "conduct", fake_conduct, raising=False)
    out_file = tmp_path / "out.mid"
    code, out, _ = harmony(capsys, tmp_path / "h.db", "conduct", "swing blues in F",
                           "--duration", "30", "--midi", str(out_file))
    assert code == 0 and out_file.read_bytes() == smf
    assert seen == {"prompt": "swing blues in F", "durationSec": 30.0}
    # with a file written, the terminal gets the lead sheet and the facts, not the base64
    assert out == '| C |\n{\n  "tempo": 120\n}\n'
    code, out, _ = harmony(capsys, tmp_path / "h.db", "conduct", "swing blues in F",
                           "--midi", str(out_file), "--json")
    assert code == 0 and orjson.loads(out)["midi"] == base64.b64encode(smf).decode()


def test_db_is_accepted_after_the_command_as_the_contract_writes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "after.db"
    assert main(["accounts", "create", "band", "--plan", "free", "--db", str(db)]) == 0
    assert main(["keys", "create", "band", "--db", str(db)]) == 0
    secret = capsys.readouterr().out.strip()
    assert secret.startswith("hk_live_")
    # The same file, named before the command, holds the key.
    assert main(["--db", str(db), "keys", "list", "band"]) == 0
    assert "band" in capsys.readouterr().out


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(a for a in parser._actions
                if isinstance(a, argparse._SubParsersAction)).choices


def test_a_command_named_builds_its_own_parser_alone_and_the_same() -> None:
    everything = _commands(build_parser())
    assert sorted(everything) == sorted(COMMANDS)  # the table names every command
    for command in COMMANDS:
        alone = _commands(build_parser(command))
        assert command in alone and set(alone) < set(everything)
        assert alone[command].format_help() == everything[command].format_help()
    assert command_of(["--db", "x.db", "batch", "in.csv"]) == "batch"
    assert command_of(["--db=x.db", "keys", "list"]) == "keys"
    for unsure in (["--help"], ["--version"], ["--d", "x.db", "batch"], [], ["nothing"]):
        assert command_of(unsure) is None


def test_serve_takes_the_environment_and_only_the_flags_given(tmp_path: Path) -> None:
    env = {"HARMONY_PROFILE": "hosted", "HARMONY_STORE_BODIES": "0",
           "HARMONY_RETENTION_DAYS": "7", "HARMONY_CORS_ORIGINS": "https://a.example, https://b",
           "HARMONY_FLOOD_PER_MINUTE": "120", "HARMONY_WORKERS": "3"}
    db = str(tmp_path / "h.db")
    settings = serve_settings(build_parser().parse_args(["--db", db, "serve"]), env)
    assert (settings.profile, settings.user_agent_policy, settings.store_bodies,
            settings.retention_days, settings.cors_origins, settings.flood_per_minute,
            settings.workers, settings.auth, settings.db_path) == (
        "hosted", True, False, 7, ("https://a.example", "https://b"), 120, 3, True, db)
    # The workers get the same settings back through the environment.
    assert Settings.from_env(settings.to_env()) == settings
    given = serve_settings(build_parser().parse_args(
        ["serve", "--profile", "local", "--retention-days", "0", "--cors-origins", "",
         "--flood-per-minute", "9", "--workers", "2", "--db", db]), env)
    assert (given.profile, given.user_agent_policy, given.store_bodies, given.retention_days,
            given.cors_origins, given.flood_per_minute, given.workers) == (
        "local", False, False, 0, (), 9, 2)
    local = {"HARMONY_NO_AUTH": "1", "HARMONY_UA_POLICY": "1"}
    settings = serve_settings(build_parser().parse_args(["serve", "--no-store-bodies"]), local)
    assert (settings.auth, settings.user_agent_policy, settings.store_bodies) == (
        False, True, False)
    assert serve_settings(build_parser().parse_args(["serve"]), {}) == Settings()


def test_serve_reads_a_variable_only_when_its_flag_is_not_given(tmp_path: Path) -> None:
    malformed = {"HARMONY_WORKERS": "two", "HARMONY_PROFILE": "cloud", "HARMONY_NO_AUTH": "maybe",
                 "HARMONY_FLOOD_PER_MINUTE": "lots", "HARMONY_STORE_BODIES": "perhaps",
                 "HARMONY_RETENTION_DAYS": "soon", "HARMONY_DB": str(tmp_path / "env.db")}
    settings = serve_settings(build_parser().parse_args(
        ["serve", "--workers", "2", "--profile", "local", "--no-auth", "--flood-per-minute", "5",
         "--no-store-bodies", "--retention-days", "3"]), malformed)
    assert (settings.workers, settings.profile, settings.auth, settings.flood_per_minute,
            settings.store_bodies, settings.retention_days) == (2, "local", False, 5, False, 3)
    # The database comes from the environment given, not from the process's.
    assert settings.db_path == str(tmp_path / "env.db")
    given = serve_settings(build_parser().parse_args(["serve", "--db", str(tmp_path / "a.db")]),
                           {"HARMONY_DB": str(tmp_path / "env.db")})
    assert given.db_path == str(tmp_path / "a.db")
    # Without the flag, the malformed variable is still refused.
    with pytest.raises(ValueError, match="HARMONY_WORKERS='two' is not a whole number"):
        serve_settings(build_parser().parse_args(["serve"]), {"HARMONY_WORKERS": "two"})


def test_commands_take_the_database_of_harmony_db(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "env.db"
    monkeypatch.setenv("HARMONY_DB", str(db))
    assert main(["accounts", "create", "acme"]) == 0
    assert harmony(capsys, db, "accounts", "list")[1].count('"acme"') == 1


def test_a_blank_harmony_db_is_the_default_database(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # A blank variable is an unset one (as for the numbers and flags): harmony.db in the working
    # directory, not a throwaway database that each command (and each worker) opens afresh.
    monkeypatch.chdir(tmp_path)
    for blank in ("", "  "):
        monkeypatch.setenv("HARMONY_DB", blank)
        assert main(["accounts", "create", f"acme{len(blank)}"]) == 0
        assert main(["accounts", "list"]) == 0
        assert f'"acme{len(blank)}"' in capsys.readouterr().out
    assert {name for name, _ in Store(str(tmp_path / "harmony.db")).accounts()} == \
        {"acme0", "acme2"}
    env = {"HARMONY_DB": "", "HARMONY_PROFILE": " "}
    assert Settings.from_env(env) == Settings()


def test_serve_refuses_bad_settings_in_one_line(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARMONY_PROFILE", "hosted")
    assert main(["serve", "--no-auth"]) == 1
    assert capsys.readouterr().err == \
        "harmony: --no-auth is only allowed in the local profile\n"
    # The same refusal, from the variable: it names the variable, not a flag never passed.
    monkeypatch.setenv("HARMONY_NO_AUTH", "1")
    assert main(["serve"]) == 1
    assert capsys.readouterr().err == \
        "harmony: HARMONY_NO_AUTH='1' is only allowed in the local profile\n"
    monkeypatch.setenv("HARMONY_PROFILE", "local")
    assert main(["serve", "--profile", "hosted"]) == 1
    assert capsys.readouterr().err == \
        "harmony: HARMONY_NO_AUTH='1' is only allowed in the local profile\n"
    # An unknown profile is named first: no-auth is not the problem there.
    monkeypatch.setenv("HARMONY_PROFILE", "cloud")
    assert main(["serve"]) == 1
    assert capsys.readouterr().err == \
        "harmony: unknown profile 'cloud'; use local or hosted\n"
    monkeypatch.delenv("HARMONY_NO_AUTH")
    monkeypatch.setenv("HARMONY_PROFILE", "local")
    monkeypatch.setenv("HARMONY_RETENTION_DAYS", "soon")
    assert main(["serve"]) == 1
    assert capsys.readouterr().err == \
        "harmony: HARMONY_RETENTION_DAYS='soon' is not a whole number\n"


def test_first_start_prints_the_local_key_once(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    settings = Settings(db_path=str(tmp_path / "h.db"))
    bootstrap(settings)
    out, err = capsys.readouterr()
    secret = out.strip()
    assert out == secret + "\n" and secret.startswith("hk_live_") and secret not in err
    assert "'local' (developer plan)" in err
    record = Store(settings.db_path).lookup_key(hash_secret(secret))
    assert record is not None and not record.revoked
    assert (record.account, record.plan.name) == ("local", "developer")
    bootstrap(settings)  # a restart: the key exists, nothing is printed or made
    assert capsys.readouterr() == ("", "")
    assert len(Store(settings.db_path).list_keys()) == 1
    bootstrap(Settings(db_path=str(tmp_path / "open.db"), auth=False))  # --no-auth: no key
    assert capsys.readouterr() == ("", "")


def test_cli_errors_are_one_clean_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_conduct(request: dict[str, object]) -> dict[str, object]:
        return {"midi": base64.b64encode(b"MThd").decode(), "leadSheet": "| Bb |",
                "conductor": {"key": "Bb"}}

    monkeypatch.setattr(engine, "conduct", fake_conduct, raising=False)
    db = tmp_path / "h.db"
    # The arrangement is printed; the file that cannot be written is one line and exit 1.
    code, out, err = harmony(capsys, db, "conduct", "bossa in Bb", "--midi",
                             str(tmp_path / "missing" / "x.mid"))
    assert code == 1 and out == '| Bb |\n{\n  "key": "Bb"\n}\n'
    assert err == f"harmony: cannot write the MIDI file: No such file or directory: " \
                  f"{tmp_path / 'missing' / 'x.mid'}\n"
    code, out, err = harmony(capsys, db, "batch", str(tmp_path / "missing.txt"))
    assert (code, out) == (1, "")
    assert err == f"harmony: cannot open input file '{tmp_path / 'missing.txt'}': " \
                  "No such file or directory\n"
    for port in ("99999", "0", "http"):
        with pytest.raises(SystemExit) as exit_:
            main(["--db", str(db), "serve", "--port", port])
        assert exit_.value.code == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "argument --port" in err
        assert "Traceback" not in err


def test_invalid_utf8_on_the_command_line_is_an_invalid_chord(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    symbol = b"C\xff7".decode("utf-8", "surrogateescape")  # what Python makes of such argv
    code, out, err = harmony(capsys, tmp_path / "h.db", "resolve", symbol)
    assert code == 1 and err == ""
    error = orjson.loads(out)["error"]
    assert (error["code"], error["symbol"]) == ("invalid_chord", "C\ufffd7")
