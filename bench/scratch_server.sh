# Sourced by the bench scripts that drive a real server (run_conformance.sh,
# run_schemathesis.sh): `harmony serve --no-auth` with a throw-away database on a free loopback
# port, waited for until /health answers (30 s at most), stopped and its folder removed on exit.
# Sets WORK (the scratch folder), PORT and SERVER (its pid).
WORK=$(mktemp -d)
PORT=$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
HARMONY_DB="$WORK/harmony.db" .venv/bin/harmony serve --no-auth --host 127.0.0.1 --port "$PORT" \
  --workers 1 >"$WORK/server.log" 2>&1 </dev/null &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; rm -rf "$WORK"' EXIT
.venv/bin/python - "$PORT" <<'PY'
import sys, time, urllib.request
for _ in range(300):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/health", timeout=1)
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit("harmony serve did not answer /health within 30 s")
PY
