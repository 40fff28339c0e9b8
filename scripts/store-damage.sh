#!/usr/bin/env bash
# A damaged store file never crashes the process, on loopback: a release
# `linkpath serve` makes a store file with a few real games (seeded deals,
# some moves, an Idempotency-Key, a won game on its leaderboard) and is
# stopped with SIGTERM, which closes the file cleanly. Then, for each of
# about 300 offsets spread over the whole file (every fourth byte of the
# header, the first pages, its pages holding data, and evenly over the
# rest), one byte of a copy is flipped (XOR 0xFF) and `linkpath serve` is
# started on the copy. Shows that each run either
#
#   1. exits, within 10 s, with a non-zero code (not a signal) and a
#      message naming the file (`... is damaged (...): restore it from a
#      backup, or move it aside ...`, or `... is not a linkpath store`);
#   2. or serves: /healthz 200, a game read and a move on it each 200 or a
#      JSON `503 store_unavailable`, /readyz 200 `ready` or 503
#      `store_unavailable`, and a game read after it agreeing (200 when
#      ready, 503 when not); then it exits 0 on SIGTERM within 10 s;
#
# and prints how many runs did which, with the causes given and the
# slowest start.
#
#   LINKPATH_BIN=target/release/linkpath scripts/store-damage.sh
#
# Without LINKPATH_BIN it runs the Dockerfile's build first. About a
# minute. Only 127.0.0.1; each server on a free port, stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

step "the binary"
dockerfile_binary

tmp=$(mktemp -d)
clean_up_on_exit "$tmp"
linkpath_defaults

step "a store file with a few games"
mkdir -p "$tmp/base"
start_replica "$tmp/base.log" --store "file:$tmp/base/games.redb" --shutdown-grace-ms 0
echo "127.0.0.1:$replica_port, pid $replica_pid"
python3 - "127.0.0.1:$replica_port" "$tmp/games.json" <<'EOF'
import http.client, json, sys, uuid

host, out = sys.argv[1], sys.argv[2]

def call(method, path, body=None, key=None):
    conn = http.client.HTTPConnection(*host.split(":"), timeout=10)
    headers = {"content-type": "application/json"}
    if key:
        headers["idempotency-key"] = key
    conn.request(method, path, json.dumps(body) if body is not None else None, headers)
    answer = conn.getresponse()
    data = answer.read()
    conn.close()
    if answer.status not in (200, 201):
        sys.exit(f"{method} {path}: {answer.status} {data[:200]!r}")
    return json.loads(data)

games = []
for seed, moves in ((1, 6), (2, 12), (3, None)):
    deal = dict(width=8, height=6, types=12, rules="shisen-sho", seed=seed, player=f"player{seed}")
    dealt = call("POST", "/v1/deal", {k: v for k, v in deal.items() if k != "player"})
    game = call("POST", "/v1/games", deal, key=str(uuid.uuid4()))
    played = dealt["moves"] if moves is None else dealt["moves"][:moves]
    for move in played:
        version = call("POST", f"/v1/games/{game['id']}/moves", move, key=str(uuid.uuid4()))["version"]
    games.append({"id": game["id"], "version": version, "status": "won" if moves is None else "open",
                  "next": None if moves is None else dealt["moves"][moves]})
json.dump(games, open(out, "w"))
print(f"{len(games)} games: versions {[g['version'] for g in games]}, the last one won")
EOF
stop_cleanly "$replica_pid" "the server that made the file"
ls -l "$tmp/base/games.redb"

step "a flipped byte at each offset, and linkpath serve on the copy"
python3 - "$bin" "$tmp" <<'EOF'
import collections, http.client, json, os, re, signal, socket, subprocess, sys, time

binary, tmp = sys.argv[1], sys.argv[2]
base = open(f"{tmp}/base/games.redb", "rb").read()
games = json.load(open(f"{tmp}/games.json"))
probe = games[0]
PAGE = 4096
START_BOUND = 10.0   # to serve /healthz, or to exit
STOP_BOUND = 10.0    # to exit after SIGTERM
HTTP_TIMEOUT = 5.0

# The offsets: every fourth byte of redb's header (magic number, god
# byte, layout, both commit slots), a spread over the first pages, the
# first bytes of every page holding data (page and leaf headers, first
# keys), and an even spread over the whole file.
pages = [p for p in range(0, len(base), PAGE) if any(base[p:p + PAGE])]
offsets = set(range(0, 320, 4))
offsets |= {PAGE + i * 991 for i in range(60)}
offsets |= {p + 16 + (i * 7) % 64 for i, p in enumerate(pages[:100])}
offsets |= {i * len(base) // 100 + (i * 37) % PAGE for i in range(100)}
offsets = sorted(o for o in offsets if o < len(base))
print(f"the file: {len(base)} bytes, {len(pages)} of its {len(base) // PAGE} pages not all zeros; "
      f"{len(offsets)} offsets")

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

def call(port, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HTTP_TIMEOUT)
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None,
                     {"content-type": "application/json"} if body is not None else {})
        answer = conn.getresponse()
        data = answer.read()
        return answer.status, answer.getheader("content-type"), data
    finally:
        conn.close()

def json_503(what, status, content_type, data, code):
    """200, or a JSON 503 with `code`; returns whether 200."""
    if status == 200:
        return True
    if status != 503 or content_type != "application/json":
        raise Failure(f"{what}: {status} {content_type} {data[:200]!r}")
    body = json.loads(data)
    found = body.get("error", {}).get("code") if "error" in body else body.get("status")
    if found != code:
        raise Failure(f"{what}: 503 with {body}, not {code}")
    return False

class Failure(Exception):
    pass

env = {k: v for k, v in os.environ.items() if not k.startswith("LINKPATH_")}
outcomes = collections.Counter()
causes = collections.Counter()
failures = []
slowest = (0.0, None)
panics = 0
run_dir = f"{tmp}/run"
os.makedirs(run_dir)
store = f"{run_dir}/games.redb"
for offset in offsets:
    damaged = bytearray(base)
    damaged[offset] ^= 0xFF
    for name in os.listdir(run_dir):
        os.remove(os.path.join(run_dir, name))
    open(store, "wb").write(damaged)
    port = free_port()
    log = open(f"{tmp}/serve.log", "wb")
    started = time.monotonic()
    server = subprocess.Popen(
        [binary, "serve", "--store", f"file:{store}", "--shutdown-grace-ms", "0"],
        env=dict(env, LINKPATH_LISTEN=f"127.0.0.1:{port}"), stdout=log, stderr=subprocess.STDOUT)
    try:
        serving = False
        while time.monotonic() - started < START_BOUND:
            if server.poll() is not None:
                break
            try:
                if call(port, "GET", "/healthz")[0] == 200:
                    serving = True
                    break
            except OSError:
                pass
            time.sleep(0.02)
        took = time.monotonic() - started
        if not serving and server.poll() is None:
            raise Failure(f"neither served nor exited within {START_BOUND} s")
        slowest = max(slowest, (took, offset))
        if not serving:
            code = server.returncode
            text = open(f"{tmp}/serve.log", "rb").read().decode(errors="replace")
            if code < 0:
                raise Failure(f"killed by signal {signal.Signals(-code).name}: {text[-600:]}")
            if code == 0:
                raise Failure(f"exited 0 without serving: {text[-600:]}")
            last = text.strip().splitlines()[-1]
            if store not in last:
                raise Failure(f"exited {code}, its last line not naming the file: {last}")
            panics += text.count("panicked")
            if " is damaged (" in last:
                outcomes[f"exited {code}: damaged"] += 1
                cause = re.search(r" is damaged \((.*)\): restore it from a backup, or move it aside", last)
                if not cause:
                    raise Failure(f"a damaged file without what to do: {last}")
                causes[re.sub(r"[0-9]+", "N", cause.group(1))[:90]] += 1
            elif " is not a linkpath store " in last:
                outcomes[f"exited {code}: not a store"] += 1
            else:
                outcomes[f"exited {code}: other"] += 1
                causes[last[-90:]] += 1
            continue
        read = json_503("a game read", *call(port, "GET", f"/v1/games/{probe['id']}"), "store_unavailable")
        moved = json_503("a move", *call(port, "POST", f"/v1/games/{probe['id']}/moves", probe["next"]),
                         "store_unavailable")
        status, content_type, data = call(port, "GET", "/readyz")
        ready = json_503("/readyz", status, content_type, data, "store_unavailable")
        again = call(port, "GET", f"/v1/games/{probe['id']}")
        if (again[0] == 200) != ready:
            raise Failure(f"/readyz {status}, then a game read {again[0]}")
        if read:
            game = json.loads(call(port, "GET", f"/v1/games/{probe['id']}")[2])
            if game["version"] != probe["version"] + moved:
                raise Failure(f"the game read back at version {game['version']}, not {probe['version'] + moved}")
        outcomes["served: " + ", ".join([
            "read 200" if read else "read 503", "move 200" if moved else "move 503",
            "/readyz 200" if ready else "/readyz 503"])] += 1
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(STOP_BOUND)
        except subprocess.TimeoutExpired:
            raise Failure(f"did not exit within {STOP_BOUND} s of SIGTERM")
        if code != 0:
            raise Failure(f"exited {code} on SIGTERM")
        panics += open(f"{tmp}/serve.log", "rb").read().count(b"panicked")
    except Failure as failure:
        failures.append(f"offset {offset}: {failure}")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        log.close()

for outcome, count in sorted(outcomes.items()):
    print(f"{count:5}  {outcome}")
print("the causes named:")
for cause, count in causes.most_common():
    print(f"{count:5}  {cause}")
print(f"slowest to serve or exit: {slowest[0]:.3f} s (offset {slowest[1]}); "
      f"panic messages logged (each contained): {panics}")
for failure in failures[:20]:
    print(f"FAILED: {failure}", file=sys.stderr)
if failures:
    sys.exit(1)
print(f"ok: {len(offsets)} offsets, every one served or exited non-zero naming the file; no signal, "
      f"every run within its bounds")
EOF

printf '\nstore-damage: passed in %s s\n' "$((SECONDS - started))"
