#!/usr/bin/env bash
# A game that grows: a 100 x 100 game on a store file, shuffled 59 times,
# then checked as docs/games.md ("What a game stores") says it holds:
#
#   - its replay gives each shuffle by its seed, fits the bound the docs
#     state for a game of its size (4,096 bytes of settings, 21 a cell, 96
#     an action), and POST /v1/replays checks it again to the same board
#     and version;
#   - undo takes back the last shuffles to the boards they were made on,
#     and redo makes them again;
#   - the store file grows with each shuffle by about the board it keeps
#     (the board before the shuffle, for undo), not by the game's history:
#     the growth from the 10th to the 59th shuffle is within 4 times what
#     the first 10 cost, each.
#
# Prints the time of the first and the last shuffles, which the docs do
# not assert. Only 127.0.0.1; stops only the server it started, by PID.
#
#   scripts/game-growth.sh                       # builds the image's binary first
#   LINKPATH_BIN=target/release/linkpath scripts/game-growth.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

step "the binary"
dockerfile_binary

tmp=$(mktemp -d)
clean_up_on_exit "$tmp"
linkpath_defaults

step "a 100 x 100 game on a store file, shuffled 59 times"
start_replica "$tmp/server.log" --store "file:$tmp/games.redb" --shutdown-grace-ms 0
echo "127.0.0.1:$replica_port, pid $replica_pid"
python3 - "127.0.0.1:$replica_port" "$tmp/games.redb" <<'PY'
import http.client, json, os, statistics, sys, time

host, path = sys.argv[1], sys.argv[2]

def call(method, route, body=None, expect=(200, 201)):
    conn = http.client.HTTPConnection(*host.split(":"), timeout=120)
    conn.request(method, route, json.dumps(body) if body is not None else None,
                 {"content-type": "application/json"})
    answer = conn.getresponse()
    data = answer.read()
    conn.close()
    if answer.status not in expect:
        sys.exit(f"game-growth: FAILED: {method} {route}: {answer.status} {data[:300]!r}")
    return data

def fail(text):
    sys.exit(f"game-growth: FAILED: {text}")

game = json.loads(call("POST", "/v1/games",
                       dict(width=100, height=100, types=100, encoding="numbers", rules="mahjong", seed=7)))
gid = game["id"]
sizes, times, boards = [os.path.getsize(path)], [], [game["board"]]
for n in range(59):
    started = time.monotonic()
    game = json.loads(call("POST", f"/v1/games/{gid}/shuffle"))
    times.append(time.monotonic() - started)
    sizes.append(os.path.getsize(path))
    boards.append(game["board"])
if game["version"] != 59 or game["assists"]["shuffles"] != 59:
    fail(f"version {game['version']}, shuffles {game['assists']['shuffles']}, expected 59 and 59")
first, rest = sizes[10] - sizes[0], sizes[59] - sizes[10]
print(f"store file: {sizes[0]} bytes after the deal, {sizes[10]} after 10 shuffles, {sizes[59]} after 59")
if rest > 4 * first * 49 // 10:
    fail(f"the file grew {rest} bytes over the last 49 shuffles, past 4 x {first // 10} a shuffle")
print(f"a shuffle: {statistics.median(times[:5]) * 1000:.0f} ms (median of the first 5), "
      f"{statistics.median(times[-5:]) * 1000:.0f} ms (of the last 5)")

replay = call("GET", f"/v1/games/{gid}/replay")
bound = 4096 + 21 * 100 * 100 + 96 * 59
print(f"the replay: {len(replay)} bytes (the stated bound for this game: {bound})")
if len(replay) > bound:
    fail(f"the replay is {len(replay)} bytes, past {bound}")
actions = json.loads(replay)["actions"]
if any(a["action"] != "shuffle" or "seed" not in a or "moved" in a for a in actions):
    fail("a replayed shuffle without its seed, or with its moves")
check = json.loads(call("POST", "/v1/replays", body=json.loads(replay)))
if (check["version"], check["board"]) != (59, game["board"]):
    fail(f"the replay checked again came to version {check['version']}, another board")
print("POST /v1/replays: the same board at version 59")

for back in range(1, 4):
    undone = json.loads(call("POST", f"/v1/games/{gid}/undo"))
    if undone["board"] != boards[59 - back]:
        fail(f"undo {back} did not put back the board before shuffle {60 - back}")
for again in range(3, 0, -1):
    redone = json.loads(call("POST", f"/v1/games/{gid}/redo"))
    if redone["board"] != boards[60 - again]:
        fail(f"a redo did not make shuffle {60 - again} again")
print("undo took back the last 3 shuffles to their boards; redo made them again")
PY
stop_cleanly "$replica_pid" "the server"
ok "a 100 x 100 game shuffled 59 times: its replay fits and checks again, undo and redo hold"
