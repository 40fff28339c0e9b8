#!/usr/bin/env bash
# Contract test: schemathesis generates requests from openapi.yaml (its
# examples, the boundaries of every schema, then random valid and invalid
# data), sends them to a release build of `linkpath serve` on a free
# loopback port, and checks every answer against the description with all
# of its checks. Exits non-zero on any failure, or if the server logged a
# panic or did not exit 0 on SIGTERM.
#
#   scripts/schemathesis.sh                   # about a minute after the build
#   ST_MAX_EXAMPLES=300 ST_SEED=7 scripts/schemathesis.sh
#
# schemathesis is pinned in scripts/requirements.txt and installed into
# target/schemathesis-venv on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

max_examples=${ST_MAX_EXAMPLES:-100}
seed=${ST_SEED:-}
venv=target/schemathesis-venv
log=target/schemathesis-server.log
config=target/schemathesis.toml
started=$SECONDS

step() { printf '\n== %s\n' "$*"; }

# The binary under test: LINKPATH_BIN (CI passes the image's static one),
# or a release build made here.
bin=${LINKPATH_BIN:-target/release/linkpath}
if [ -z "${LINKPATH_BIN:-}" ]; then
  step "cargo build --release"
  cargo build --release --locked
fi

step "schemathesis (scripts/requirements.txt)"
if ! cmp -s scripts/requirements.txt "$venv/requirements.txt"; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/requirements.txt
  cp scripts/requirements.txt "$venv/requirements.txt"
fi
"$venv/bin/st" --version

# A body breaking the schema in two ways is refused for the first problem
# the parser meets, which may be a size over a limit: 413 is a refusal too.
# A schema-valid body to a /v1/ route may rightly be refused too: with 413
# when it is over one of this server's configured limits (sizes, counts),
# with 422 when it breaks what JSON Schema cannot say (rows of one length,
# points on the board, max_segments within the server's limit). Any other
# refusal of one (400, 415, ...) is still a failure.
cat >"$config" <<'EOF'
[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]

[[operations]]
include-path-regex = "^/v1/(?!games/|players/|leaderboards/|matches)"
checks.positive_data_acceptance.expected-statuses = ["2xx", "413", "422"]

# What a signed-in player reads or changes: the player (`/v1/players/me`),
# `me` for an id, `around=me`. schemathesis sends no token (one it could
# use would be erased by its own `DELETE /v1/players/me`), so 401 is the
# right answer to a request that fits the schema.
[[operations]]
include-path-regex = "^/v1/(players/|leaderboards/)"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "413", "422"]

# A match's routes: its changes take a player's token, which schemathesis
# has none of (401); a generated id names no match (404).
[[operations]]
include-path-regex = "^/v1/matches"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "404", "409", "413", "422"]

# A held game's routes: a generated id names no game (404), and an action
# that fits the schema may not fit the game (409) or its version (412).
[[operations]]
include-path-regex = "^/v1/games/"
checks.positive_data_acceptance.expected-statuses = ["2xx", "404", "409", "412", "413", "422"]
EOF

step "linkpath serve"
# The defaults, whatever this shell has set: no keys, no rate limit.
while read -r name; do unset "$name"; done < <(compgen -e | grep '^LINKPATH_' || true)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Enough slots that schemathesis never meets a 503 of ours.
"$bin" serve --listen "127.0.0.1:$port" --store memory --workers 8 \
  --shutdown-grace-ms 0 >"$log" 2>&1 &
server=$!
stop_server() {
  if kill -0 "$server" 2>/dev/null; then
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
  fi
}
trap stop_server EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
  kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/healthz" >/dev/null
echo "listening on 127.0.0.1:$port (log: $log)"

step "st run openapi.yaml --checks all --max-examples $max_examples"
status=0
HYPOTHESIS_STORAGE_DIRECTORY=target/schemathesis-hypothesis \
  timeout 900 "$venv/bin/st" --config-file "$config" run openapi.yaml \
  --url "http://127.0.0.1:$port" \
  --checks all \
  --workers 1 \
  --max-examples "$max_examples" \
  --request-timeout 15 \
  --generation-database none \
  --no-color \
  ${seed:+--seed "$seed"} || status=$?

step "server"
kill -TERM "$server"
exit_code=0
wait "$server" || exit_code=$?
trap - EXIT
echo "linkpath exited $exit_code on SIGTERM"
[ "$exit_code" -eq 0 ] || status=1
if grep -q 'panicked' "$log"; then
  echo "the server logged a panic:" >&2
  grep 'panicked' "$log" >&2
  status=1
fi
echo "schemathesis.sh: $([ "$status" -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - started)) s"
exit "$status"
