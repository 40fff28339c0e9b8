#!/usr/bin/env bash
# Redis going away under a flood of moves, on loopback: a redis-server of
# its own on a free port (append-only file, fsync every second, as
# compose.yaml runs it) and two release `linkpath serve` on it. Six
# clients play seeded deals (each its own game, the deal's clearing
# sequence, every move with an Idempotency-Key, each request to the next
# replica in turn, a 503 retried with the same key after its Retry-After),
# and a probe reads a game from each replica every 50 ms, while:
#
#   1. Redis is frozen (SIGSTOP) for 4 s, then thawed (SIGCONT);
#   2. Redis is killed (SIGKILL) and, 3 s later, started again on the same
#      port and the same append-only directory.
#
# Shows: every request answered, none slower than the store timeout's
# bound (a move makes three store calls, each bounded by
# --store-timeout-ms); every answer 200/201 or 503 `store_unavailable`
# with Retry-After (never a 500, never a hang), and only 503 while Redis
# is away; the service takes moves again by itself once Redis is back (no
# restart), and how long that took; every move answered 200 is in its
# game's replay afterwards, in order, at consecutive versions, none
# applied twice, and the replay played again (POST /v1/replays) ends on
# the game as stored.
#
#   LINKPATH_BIN=target/release/linkpath scripts/redis-fault.sh
#   STORE_TIMEOUT_MS=2000 FREEZE_S=6 DEAD_S=3 LINKPATH_BIN=... scripts/redis-fault.sh
#
# (the defaults: 1000 ms, 4 s, 3 s). Without LINKPATH_BIN it runs the
# Dockerfile's build first. About 20 s.
# Only 127.0.0.1; never the machine's own Redis. Stops, by PID, every
# process it started. Installs redis-server with apt-get if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

store_timeout_ms=${STORE_TIMEOUT_MS:-1000}
freeze_s=${FREEZE_S:-4}
dead_s=${DEAD_S:-3}

step "redis-server"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  apt_install redis-server
fi
redis-server --version

step "the binary"
dockerfile_binary

tmp=$(mktemp -d)
redis_pid=""
clean_up_on_exit "$tmp"
before_cleanup() {
  # A stopped Redis would not act on SIGTERM until continued.
  [ -z "$redis_pid" ] || kill -CONT "$redis_pid" 2>/dev/null || true
}
# The moment, for the clients' analysis: NAME and the Unix time.
event() { echo "$1 $(date +%s.%N)" >>"$tmp/events"; }

redis_port=$(free_port)
mkdir -p "$tmp/redis"
redis_up() {
  # compose.yaml's persistence: each change in the append-only file,
  # synced every second, no snapshots.
  start_redis "$redis_port" "$tmp/redis" "$tmp/redis.log" \
    --appendonly yes --appendfsync everysec --save ''
}

step "redis-server on 127.0.0.1:$redis_port, appendonly yes, appendfsync everysec"
redis_up
echo "pid $redis_pid"

step "two replicas on it, store timeout $store_timeout_ms ms"
# The defaults but for the store and its timeout.
linkpath_defaults
replicas=()
for i in 1 2; do
  start_replica "$tmp/replica$i.log" --shutdown-grace-ms 0 \
    --store "redis://127.0.0.1:$redis_port/0?prefix=fault" \
    --store-timeout-ms "$store_timeout_ms"
  replicas+=("127.0.0.1:$replica_port")
  echo "replica $i: 127.0.0.1:$replica_port, pid $replica_pid"
done

cat >"$tmp/flood.py" <<'EOF'
import http.client, json, os, re, sys, threading, time, uuid

replicas = sys.argv[1].split(",")
tmp = sys.argv[2]
store_timeout = int(sys.argv[3]) / 1000
CLIENTS = 6
PACE = 0.0                        # no pause between two moves: a flood
HTTP_TIMEOUT = 3 * store_timeout + 5   # past this, an answer is a hang
BOUND = 3 * store_timeout + 0.5   # a move's three store calls, and slack
DEAL = {"width": 12, "height": 8, "types": 24, "rules": "shisen-sho"}

stop = threading.Event()
lock = threading.Lock()
records = []    # (who, method, path, start, end, status, detail)
failures = []

def failed(message):
    with lock:
        failures.append(message)

class Client:
    """One keep-alive connection per replica; each request goes to the next."""
    def __init__(self, who, fixed=None):
        self.who, self.fixed, self.turn = who, fixed, 0
        self.conns = {}

    def call(self, method, path, body=None, key=None, replica=None):
        if replica is None:
            replica = self.fixed or replicas[self.turn % len(replicas)]
            self.turn += 1
        headers = {"content-type": "application/json"} if body is not None else {}
        if key:
            headers["idempotency-key"] = key
        data = None if body is None else json.dumps(body).encode()
        start = time.time()
        try:
            conn = self.conns.get(replica)
            if conn is None:
                host, port = replica.split(":")
                conn = self.conns[replica] = http.client.HTTPConnection(host, int(port), timeout=HTTP_TIMEOUT)
            conn.request(method, path, data, headers)
            answer = conn.getresponse()
            raw = answer.read()
            status, got = answer.status, {k.lower(): v for k, v in answer.getheaders()}
        except Exception as err:   # a hang or a dropped connection: never expected
            self.conns.pop(replica, None)
            end = time.time()
            with lock:
                records.append((self.who, method, path, start, end, None, repr(err)))
            failed(f"{method} {path} on {replica}: no answer after {end - start:.2f} s: {err!r}")
            return None, {}, None
        end = time.time()
        detail = ""
        if status == 503:
            try:
                code = json.loads(raw)["error"]["code"]
            except Exception:
                code = None
            # Dealing takes a solver slot: with every slot busy, 503
            # `overloaded`; only the store's routes say store_unavailable.
            allowed = {"store_unavailable"} if path.startswith("/v1/games/") else {"overloaded", "store_unavailable"}
            if code not in allowed or got.get("retry-after") is None \
                    or got.get("content-type") != "application/json":
                failed(f"{method} {path}: a 503 that is not {' or '.join(allowed)} with Retry-After: {got} {raw[:200]!r}")
            detail = code
        elif status not in (200, 201):
            failed(f"{method} {path} on {replica}: {status} {raw[:300]!r}")
        if got.get("idempotent-replayed") == "true":
            detail = "replayed"
        with lock:
            records.append((self.who, method, path, start, end, status, detail))
        return status, got, json.loads(raw) if raw else None

    def until_done(self, method, path, body, key, ok):
        """Sends until answered `ok`, a 503 retried with the same key after
        its Retry-After; anything else ends the run."""
        deadline = None
        while True:
            status, got, answer = self.call(method, path, body, key)
            if status == ok:
                return answer, got
            if status != 503:
                raise SystemExit(f"{self.who}: {method} {path} answered {status}")
            if stop.is_set():
                deadline = deadline or time.time() + 30
                if time.time() > deadline:
                    raise SystemExit(f"{self.who}: {method} {path} still 503 30 s after the faults")
            time.sleep(float(got.get("retry-after", "1")))

games = {}      # id -> list of (key, move, version) acknowledged, in order

def player(n):
    client = Client(f"client {n}")
    try:
        for round_no in range(1000):
            if stop.is_set():
                return
            seed = 1000 * n + round_no
            deal, _ = client.until_done("POST", "/v1/deal", dict(DEAL, seed=seed), None, 200)
            game, _ = client.until_done("POST", "/v1/games", dict(DEAL, seed=seed), str(uuid.uuid4()), 201)
            if game["board"] != deal["board"]:
                raise SystemExit(f"client {n}: the game's board is not the deal's")
            acks = games.setdefault(game["id"], [])
            for move in deal["moves"]:
                if stop.is_set():
                    return
                key = str(uuid.uuid4())
                answer, got = client.until_done("POST", f"/v1/games/{game['id']}/moves", move, key, 200)
                acks.append((key, move, answer["version"], got.get("idempotent-replayed") == "true", time.time()))
                time.sleep(PACE)
    except SystemExit as err:
        failed(str(err))
        stop.set()

def probe(replica, game_id):
    client = Client(f"probe {replica}", fixed=replica)
    while not stop.is_set():
        client.call("GET", f"/v1/games/{game_id}")
        time.sleep(0.05)

setup = Client("setup", fixed=replicas[0])
status, _, probe_game = setup.call("POST", "/v1/games", dict(DEAL, seed=1))
if status != 201:
    sys.exit(f"the probe's game: {status}")
threads = [threading.Thread(target=player, args=(n,)) for n in range(CLIENTS)]
threads += [threading.Thread(target=probe, args=(r, probe_game["id"])) for r in replicas]
for t in threads:
    t.start()
open(f"{tmp}/ready", "w").close()
give_up = time.time() + 90
while not os.path.exists(f"{tmp}/done") and not stop.is_set() and time.time() < give_up:
    time.sleep(0.05)
stop.set()
for t in threads:
    t.join(60)
    if t.is_alive():
        failed("a client did not finish within 60 s")

if failures:
    for f in failures[:20]:
        print(f"FAILED: {f}", file=sys.stderr)
    sys.exit(1)
events = dict(line.split() for line in open(f"{tmp}/events"))
events = {name: float(at) for name, at in events.items()}

def ok(message):
    print(f"ok: {message}")

# Every request answered, in time.
answered = [r for r in records if r[5] is not None]
latest = max(answered, key=lambda r: r[4] - r[3])
worst = latest[4] - latest[3]
statuses = {}
for r in answered:
    statuses[r[5]] = statuses.get(r[5], 0) + 1
slowest_what = f"{latest[1]} {re.sub('[0-9a-f]{32}', '{id}', latest[2])}, {latest[5]}"
if worst > BOUND:
    failed(f"an answer took {worst:.3f} s, past {BOUND:.1f} s")
over = sum(1 for r in answered if r[4] - r[3] > store_timeout + 0.1)
flood = (len(records), len(answered), statuses)

# Only 503s from the store's routes while Redis was away; and some, or
# the faults did not bite. (Dealing needs no store.)
for down, up, what in (("stop", "cont", "frozen"), ("kill", "restart", "dead")):
    inside = [r for r in answered if r[3] > events[down] and r[4] < events[up]
              and r[2].startswith("/v1/games")]
    good = [r for r in inside if r[5] in (200, 201)]
    unavailable = [r for r in inside if r[5] == 503]
    if good:
        failed(f"Redis {what}: {len(good)} requests sent after it went away were answered {good[0][5]}")
    if not unavailable:
        failed(f"Redis {what}: no request answered 503 (the fault did not bite)")
    slowest = max((r[4] - r[3] for r in unavailable), default=0)
    if not good and unavailable:
        ok(f"Redis {what} ({events[up] - events[down]:.1f} s): {len(unavailable)} answers, every one "
           f"503 store_unavailable with Retry-After, slowest {slowest:.3f} s")

# Back by itself: the first probe started after Redis was back that got
# 200, for each replica.
for back, what in (("cont", "thawed"), ("ready", "restarted")):
    worst_back = 0
    for replica in replicas:
        first = [r for r in answered if r[0] == f"probe {replica}" and r[3] >= events[back] and r[5] == 200]
        if not first:
            failed(f"Redis {what}: replica {replica} never answered 200 again")
            continue
        worst_back = max(worst_back, min(r[4] for r in first) - events[back])
    ok(f"Redis {what}: both replicas answer 200 again {worst_back:.2f} s after Redis answers, "
       f"with no restart of theirs")

# Every acknowledged move in its game, once, in order, at consecutive
# versions. (New connections: the replicas closed the idle ones.)
setup = Client("check", fixed=replicas[1])
moves = sum(len(a) for a in games.values())
replayed = sum(1 for a in games.values() for x in a if x[3])
won = 0
for game_id, acks in games.items():
    status, _, replay = setup.call("GET", f"/v1/games/{game_id}/replay")
    if status != 200:
        failed(f"game {game_id[:8]}: replay answered {status}")
        continue
    played = [{"from": a["from"], "to": a["to"]} for a in replay["actions"] if a["action"] == "move"]
    if len(played) != len(replay["actions"]):
        failed(f"game {game_id[:8]}: actions other than moves in its replay")
    if played != [a[1] for a in acks]:
        failed(f"game {game_id[:8]}: {len(acks)} moves acknowledged, the replay has {len(played)}, "
               f"and not the same")
    if [a[2] for a in acks] != list(range(1, len(acks) + 1)):
        failed(f"game {game_id[:8]}: acknowledged versions {[a[2] for a in acks]}")
    if len({a[0] for a in acks}) != len(played):
        failed(f"game {game_id[:8]}: {len(played)} moves for {len({a[0] for a in acks})} keys")
    status, _, now = setup.call("GET", f"/v1/games/{game_id}")
    status2, _, again = setup.call("POST", "/v1/replays", replay)
    if status != 200 or status2 != 200:
        failed(f"game {game_id[:8]}: {status} to a read, {status2} to its replay played again")
        continue
    if now["version"] != len(acks) \
            or again["version"] != now["version"] or again["board"] != now["board"] \
            or again["status"] != now["status"]:
        failed(f"game {game_id[:8]}: the game and its replay played again differ")
    won += now["status"] == "won"
if not failures:
    ok(f"{moves} moves answered 200 on {len(games)} games ({won} won): every one in its game's replay, "
       f"in order, at versions 1, 2, 3, ... without a gap, none applied twice; each replay played "
       f"again ends on the game as stored; {replayed} of them answered only on a retry with "
       f"its key after a 503 (Idempotent-Replayed: applied after its 503)")
    before_kill = sum(1 for a in games.values() for x in a if x[4] < events["kill"])
    ok(f"Redis killed and started again on its append-only file (appendfsync everysec): "
       f"all {before_kill} moves acknowledged before the kill are there")
    sent, got, statuses = flood
    ok(f"{sent} requests in the flood, every one answered ({statuses.get(200, 0) + statuses.get(201, 0)} × 2xx, "
       f"{statuses.get(503, 0)} × 503, no other status); slowest {worst:.3f} s ({slowest_what}), within "
       f"{BOUND:.1f} s (3 × the store timeout + 0.5 s); {over} past the store timeout + 0.1 s")
for f in failures[:20]:
    print(f"FAILED: {f}", file=sys.stderr)
sys.exit(1 if failures else 0)
EOF

step "the flood: 6 clients, one game each at a time, two probes"
python3 "$tmp/flood.py" "$(IFS=,; echo "${replicas[*]}")" "$tmp" "$store_timeout_ms" \
  >"$tmp/flood.out" 2>&1 &
flood_pid=$!; pids+=("$flood_pid")
for _ in $(seq 200); do
  [ -e "$tmp/ready" ] && break
  kill -0 "$flood_pid" 2>/dev/null || { cat "$tmp/flood.out" >&2; fail "the clients exited"; }
  sleep 0.05
done
[ -e "$tmp/ready" ] || fail "the clients did not start"
sleep 2

step "1. Redis frozen (SIGSTOP) for $freeze_s s"
kill -STOP "$redis_pid"
event stop
sleep "$freeze_s"
event cont
kill -CONT "$redis_pid"
sleep 3

step "2. Redis killed (SIGKILL), started again $dead_s s later on the same append-only file"
kill_hard "$redis_pid"; redis_pid=""
event kill
sleep "$dead_s"
event restart
redis_up
event ready
echo "pid $redis_pid"
sleep 3

step "the checks"
touch "$tmp/done"
flood_status=0
wait "$flood_pid" || flood_status=$?
forget "$flood_pid"
cat "$tmp/flood.out"
if [ "$flood_status" != 0 ]; then
  grep -hE 'ERROR|panic' "$tmp"/replica*.log | head -n 5 >&2 || true
  fail "see above"
fi
for i in 1 2; do
  if grep -q 'panicked' "$tmp/replica$i.log"; then fail "replica $i panicked"; fi
done
errors=$(cat "$tmp"/replica*.log | grep -c 'the game store failed' || true)
echo "ok: the replicas logged $errors store failures (at level ERROR), no panic"

printf '\nredis-fault: passed in %s s\n' "$((SECONDS - started))"
