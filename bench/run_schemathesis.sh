#!/usr/bin/env bash
# Schemathesis (schema-driven generated requests) against `harmony serve --no-auth` on a free
# loopback port with a throw-away database: every operation of /openapi.json, every check
# (5xx, response schema, status codes, content type, headers, schema-valid requests accepted,
# schema-invalid requests refused), a fixed seed. Then bench/schemathesis_summary.py reads
# the HAR of every request sent and prints, per operation, the requests, their statuses and
# the share of schema-valid requests the service accepted (docs/reliability.md).
#
# Schemathesis lives in its own scratch venv (.venv/schemathesis, made once): its pins of
# hypothesis and friends are not the project's. Loopback only; the run stops by itself.
#   bench/run_schemathesis.sh                 # 100 examples per operation and phase
#   ST_EXAMPLES=20 bench/run_schemathesis.sh  # a quicker look
# Exit: schemathesis's (0 when no check failed).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=4.32.5
VENV=${SCHEMATHESIS_VENV:-.venv/schemathesis}
if [ ! -x "$VENV/bin/st" ] || ! "$VENV/bin/st" --version 2>/dev/null | grep -q "$VERSION"; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "schemathesis==$VERSION" </dev/null
fi

. bench/scratch_server.sh
curl -s "http://127.0.0.1:$PORT/openapi.json" >"$WORK/openapi.json"
status=0
"$VENV/bin/st" run "http://127.0.0.1:$PORT/openapi.json" --checks all --seed "${ST_SEED:-1}" \
  -n "${ST_EXAMPLES:-100}" --workers 2 --continue-on-failure --request-timeout 60 --no-color \
  --report har --report-har-path "$WORK/requests.har" </dev/null >"$WORK/st.txt" 2>&1 || status=$?
sed -n '/^=* SUMMARY =*$/,$p' "$WORK/st.txt"
grep -E '^- ST[0-9]+|^    curl ' "$WORK/st.txt" | cut -c1-240 | head -40 || true
.venv/bin/python bench/schemathesis_summary.py "$WORK/openapi.json" "$WORK/requests.har"
echo "server errors logged: $(grep -c 'internal_error' "$WORK/server.log" || true)"
exit "$status"
