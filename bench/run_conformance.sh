#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance) against
# `harmony serve --no-auth` on a free loopback port with a throw-away database.
# The suite needs Node >= 22: when the system node is older, Node 22 is installed from the npm
# registry as a package into .venv/conformance (with the suite), once.
# Exit 0 when every scenario passes except those in bench/conformance-expected-failures.yml.
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${CONFORMANCE_PREFIX:-.venv/conformance}
SUITE=@modelcontextprotocol/conformance@0.1.16
case "$(uname -m)" in x86_64) ARCH=x64 ;; aarch64|arm64) ARCH=arm64 ;; *) ARCH=$(uname -m) ;; esac

node_major() { "$1" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || echo 0; }
NODE=$(command -v node || true)
if [ -z "$NODE" ] || [ "$(node_major "$NODE")" -lt 22 ]; then
  NODE=$PREFIX/node_modules/node-linux-$ARCH/bin/node
  PACKAGES="node-linux-$ARCH@22"
fi
if [ ! -x "$NODE" ] || [ ! -e "$PREFIX/node_modules/.bin/conformance" ]; then
  mkdir -p "$PREFIX"
  npm install --silent --no-audit --no-fund --prefix "$PREFIX" ${PACKAGES:-} "$SUITE" </dev/null
fi
export PATH="$(dirname "$NODE"):$PATH"

. bench/scratch_server.sh
"$NODE" "$PREFIX/node_modules/.bin/conformance" server --url "http://127.0.0.1:$PORT/mcp" \
  --suite "${CONFORMANCE_SUITE:-active}" \
  --expected-failures bench/conformance-expected-failures.yml -o "$WORK/results" </dev/null \
  | sed -n '/=== SUMMARY ===/,$p'
