#!/usr/bin/env bash
# Replays the attacks of RELIABILITY.md's promises against a release
# `linkpath serve` on loopback, one server per case so that each case's peak
# memory is its own. Prints one line per case as it goes, then a table:
#
#   case  request  status  time  peak RSS (VmHWM)  serving afterwards  slot free  notes
#
# "serving afterwards" is a fresh client's GET /healthz (2 s timeout), or
# "server died" with how; "slot free" is how long after the answer
# linkpath_solves_in_flight fell back to 0 on /metrics.
#
#   scripts/attack.sh                     # every case, about 6 to 9 minutes
#   scripts/attack.sh 1a 4b               # only these cases
#   scripts/attack.sh b4                  # a name without its letter: b4a to b4e
#   ATTACK_RSS_CAP_MIB=2048 scripts/attack.sh
#
# Cases 0a to 8 are RELIABILITY.md's table. The b cases replay later
# attacks (about 4 minutes together):
#
#   b1a  3,000 GET /healthz, each with its own made-up 60 KB method; /metrics
#        (size, series lines, scrape time) before and after
#   b1b  20,000 /v1/solve with distinct made-up methods against
#        LINKPATH_API_KEYS=k and LINKPATH_RATE_LIMIT_PER_SECOND=1 (401
#        each); the series lines of /metrics before and after
#   b2   48 connections each send a 16 MB body to /v1/solve but its last
#        byte, wait 5 s, close; a fresh /v1/solve is tried meanwhile
#   b3   two clients ask /v1/shuffle of a 1000x1000 board (a 35 MB answer)
#        on a new connection each time and never read the answers, for
#        ATTACK_B3_SECONDS (default 30), at most 100 sockets each
#   b4a-e connections that send a /v1/solve's headers (or body) one byte a
#        second, each reopened when the server closes it: 160 against
#        LINKPATH_MAX_CONNECTIONS=64 (a: headers, b: body, e: headers with
#        LINKPATH_API_KEYS on), 2,100 against the default 1,024 (c: headers,
#        d: body; skipped when `ulimit -n` cannot be raised to hold them);
#        meanwhile every 0.5 s /healthz on the admin listener and a fresh
#        client's small /v1/solve, 3 s timeout each: how many answered, in
#        what time. ATTACK_B4_SECONDS (default 20) each.
#   b5a-b /v1/render of a 128x127 board with 2,000 and 10,000 queries: SVG size
#   b6a-b /v1/solve whose rules hold 1.5 million one-type matching groups
#        (13.9 MB body), once, then two at once
#   b7   /v1/solve bodies with a lone \ud800, a raw 0xFF byte, 1e400
#   b8a-b LINKPATH_API_KEYS="," and " ": exit code and first line within 3 s,
#        or what /v1/solve without a key gets if it serves
#   b9   /v1/solve of ["X\tX", "XXX"]; `linkpath judge mahjong` with a tab
#   b236a-b b2, b3 and b6b (retried on 503) at once against
#        LINKPATH_MEMORY_BUDGET_BYTES=134217728 (the default under a 512 MiB
#        cgroup limit, as in the Kubernetes manifests), then 268435456 (the
#        default without a limit); the note says whether the peak stayed
#        under 512 MiB
#
# Bounded on purpose: a server whose RSS passes ATTACK_RSS_CAP_MIB (default
# 4096) is killed and reported as such, the wait for a free slot gives up
# after ATTACK_SLOT_WAIT_S (default 20) seconds, every client call has a
# timeout, and every loop a fixed count or duration. Boards come from fixed
# seeds. Every socket a case opens is closed by its end.
# Only 127.0.0.1 is ever sent traffic; the clients are Python 3 standard
# library only. The script stops the servers it started, and only those.
set -uo pipefail
# Its servers keep games in memory: a run starts fresh, and servers that
# overlap do not contend for one store file.
export LINKPATH_STORE=memory
cd "$(dirname "$0")/.."

bin="${CARGO_TARGET_DIR:-target}/release/linkpath"
tmp=$(mktemp -d)
pids="$tmp/server.pids"
: >"$pids"

stop_servers() {
  local pid
  while read -r pid; do
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  done <"$pids"
  rm -rf "$tmp"
}
trap stop_servers EXIT
trap 'exit 130' INT TERM

echo "== cargo build --release ($(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ', with uncommitted changes'))"
cargo build --release --locked || exit 1

# b4c and b4d hold 2,100 sockets at once: room for them if the hard limit allows.
[ "$(ulimit -n)" -ge 4096 ] || ulimit -n 4096 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null

python3 - "$bin" "$tmp" "$pids" "$@" <<'EOF'
import http.client
import json
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

BIN, TMP, PIDS = sys.argv[1:4]
ONLY = set(sys.argv[4:])
CAP_MIB = int(os.environ.get("ATTACK_RSS_CAP_MIB", "4096"))
SLOT_WAIT = float(os.environ.get("ATTACK_SLOT_WAIT_S", "20"))
B3_SECONDS = float(os.environ.get("ATTACK_B3_SECONDS", "30"))
B4_SECONDS = float(os.environ.get("ATTACK_B4_SECONDS", "20"))
MIB = 1 << 20
TEXT_TILES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


# ------------------------------------------------------------ the server

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid):
    """VmHWM and VmRSS in MiB, or None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    kib = {k: int(v) for k, v in re.findall(r"^(VmHWM|VmRSS):\s+(\d+) kB", text, re.M)}
    if "VmHWM" not in kib:
        return None  # a zombie: exited, not yet reaped
    return kib["VmHWM"] / 1024, kib["VmRSS"] / 1024


class Server:
    def __init__(self, env):
        self.port = free_port()
        full = {k: v for k, v in os.environ.items() if not k.startswith("LINKPATH_")}
        full.update({"LINKPATH_LISTEN": f"127.0.0.1:{self.port}", "LINKPATH_SHUTDOWN_GRACE_MS": "0"})
        full.update(env)
        admin = full.get("LINKPATH_ADMIN_LISTEN")
        self.admin_port = int(admin.rsplit(":", 1)[1]) if admin else None
        self.log_path = os.path.join(TMP, f"server-{self.port}.log")
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen([BIN, "serve"], env=full, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)
        with open(PIDS, "a") as f:
            f.write(f"{self.proc.pid}\n")
        self.peak = 0.0
        self.rss = 0.0
        self.capped = False
        self.watching = True
        self.watcher = threading.Thread(target=self._watch, daemon=True)
        self.watcher.start()

    def wait_ready(self):
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited at start: {self.tail()}")
            if get(self.port, "/healthz", timeout=1)[0] == 200:
                return
            time.sleep(0.05)
        raise RuntimeError("the server did not answer /healthz within 15 s")

    def _watch(self):
        # Every 20 ms: the peak, and the cap that keeps a runaway request
        # from taking the machine.
        while self.watching:
            seen = proc_status(self.proc.pid)
            if seen is None:
                return
            self.peak, self.rss = max(self.peak, seen[0]), seen[1]
            if self.rss > CAP_MIB and not self.capped:
                self.capped = True
                self.proc.kill()
                return
            time.sleep(0.02)

    def alive(self):
        return self.proc.poll() is None

    def first_line(self):
        self.log.flush()
        with open(self.log_path, "rb") as f:
            lines = f.read(4096).decode("utf-8", "replace").strip().splitlines()
        return lines[0] if lines else ""

    def tail(self, n=300):
        self.log.flush()
        with open(self.log_path, "rb") as f:
            return f.read()[-n:].decode("utf-8", "replace").strip()

    def fate(self):
        """How the server ended, or None while it runs."""
        code = self.proc.poll()
        if code is None:
            return None
        if self.capped:
            return f"killed at the {CAP_MIB} MiB cap"
        self.log.flush()
        with open(self.log_path, "rb") as f:
            log = f.read()
        why = "stack overflow" if b"overflowed its stack" in log else (
            f"signal {-code}" if code < 0 else f"exit {code}")
        return f"server died ({why})"

    def stop(self):
        seen = proc_status(self.proc.pid)
        if seen:
            self.peak = max(self.peak, seen[0])
        self.watching = False
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.watcher.join(1)
        self.log.close()
        with open(PIDS) as f:
            left = [p for p in f.read().split() if p != str(self.proc.pid)]
        with open(PIDS, "w") as f:
            f.write("".join(p + "\n" for p in left))


# ------------------------------------------------------------ the clients

def call(port, method, path, body=b"", headers=None, timeout=60, keep=1 << 16, on_chunk=None):
    """(status or what went wrong, seconds, body bytes, first `keep` bytes, headers);
    `on_chunk` sees the whole body as it comes."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        all_headers = {"Content-Type": "application/json"} if body else {}
        all_headers.update(headers or {})
        conn.request(method, path, body=body or None, headers=all_headers)
        response = conn.getresponse()
        size, head = 0, b""
        while True:
            chunk = response.read(1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if on_chunk:
                on_chunk(chunk)
            if len(head) < keep:
                head += chunk[: keep - len(head)]
        return response.status, time.monotonic() - started, size, head, dict(response.getheaders())
    except (socket.timeout, TimeoutError):
        return "timeout", time.monotonic() - started, 0, b"", {}
    except (ConnectionError, http.client.HTTPException, OSError) as e:
        return type(e).__name__, time.monotonic() - started, 0, b"", {}
    finally:
        conn.close()


def get(port, path, timeout=2):
    return call(port, "GET", path, timeout=timeout)


def post(port, path, body, timeout=60, headers=None):
    if not isinstance(body, bytes):
        body = json.dumps(body, separators=(",", ":")).encode()
    return call(port, "POST", path, body=body, timeout=timeout, headers=headers)


def scrape(port, timeout=10):
    """One /metrics, read line by line as it streams (it may be big):
    (status, seconds, bytes, series lines, linkpath_solves_in_flight)."""
    seen = {"carry": b"", "series": 0, "in_flight": None}

    def lines(chunk):
        *whole, seen["carry"] = (seen["carry"] + chunk).split(b"\n")
        for line in whole:
            if line and not line.startswith(b"#"):
                seen["series"] += 1
                if line.startswith(b"linkpath_solves_in_flight "):
                    seen["in_flight"] = float(line.split()[1])
    status, seconds, size, _, _ = call(port, "GET", "/metrics", timeout=timeout, keep=0, on_chunk=lines)
    return status, seconds, size, seen["series"], seen["in_flight"]


def in_flight(port):
    status, _, _, _, value = scrape(port)
    return value if status == 200 else None


def raw_request(method, path, length=None, headers=None):
    """The head of one HTTP/1.1 request, through its blank line."""
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if length is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {length}"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def peek_status(s, with_code=False):
    """The status of an answer left unread on socket `s` (with the error
    code of a short error answer), or why there is none."""
    try:
        head = s.recv(1024 if with_code else 12, socket.MSG_PEEK)
    except (socket.timeout, TimeoutError):
        return "no answer"
    except OSError as e:
        return type(e).__name__
    if not head.startswith(b"HTTP/1.1 "):
        return "closed"
    return f"{head[9:12].decode()} {refusal(head) if with_code else ''}".strip()


def in_threads(count, work, timeout=180):
    """work(0) .. work(count - 1) in threads at once; their results, None
    for one that failed or outlived `timeout`."""
    results = [None] * count

    def one(i):
        results[i] = work(i)
    threads = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    until = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, until - time.monotonic()))
    return results


def slot_free(server, since):
    """Seconds from `since` until no solve is in flight, or why not."""
    deadline = time.monotonic() + SLOT_WAIT
    while time.monotonic() < deadline:
        if not server.alive():
            return "-"
        if in_flight(server.port) == 0:
            return f"+{max(0.0, time.monotonic() - since):.2f} s"
        time.sleep(0.05)
    return f"busy > {SLOT_WAIT:.0f} s"


def code(head):
    """The error code of a JSON error body, when it is one."""
    found = re.search(rb'"code":"([a-z_]+)"', head)
    return found.group(1).decode() if found else ""


def refusal(head):
    """The error code, and whether a 503 is the memory budget's rather than
    the solver slots'."""
    return code(head) + (" (memory)" if b"memory budget" in head else "")


# ------------------------------------------------------------ boards

def text_board(width, height, fill, seed):
    """Rows of `.` and letters, pairs of each letter, `fill` of the cells tiles."""
    rng = random.Random(seed)
    cells = width * height
    tiles = int(cells * fill) // 2 * 2
    kinds = [TEXT_TILES[(i // 2) % len(TEXT_TILES)] for i in range(tiles)]
    grid = ["."] * cells
    for cell, kind in zip(rng.sample(range(cells), tiles), kinds):
        grid[cell] = kind
    return ["".join(grid[y * width:(y + 1) * width]) for y in range(height)]


def number_board(width, height, types, copies, seed):
    """A full board of `types` numbered tiles, `copies` of each, shuffled."""
    rng = random.Random(seed)
    tiles = [1 + i // copies for i in range(types * copies)]
    tiles += [0] * (width * height - len(tiles))
    rng.shuffle(tiles)
    return [tiles[y * width:(y + 1) * width] for y in range(height)]


def tile_cells(rows, count, seed):
    rng = random.Random(seed)
    cells = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c != "."]
    return [{"from": list(rng.choice(cells)), "to": list(rng.choice(cells))} for _ in range(count)]


# ------------------------------------------------------------ the cases

def tally(outcomes):
    counts = {}
    for o in outcomes:
        counts[o] = counts.get(o, 0) + 1
    return ", ".join(o if n == 1 else f"{o} x{n}" for o, n in counts.items())


def described(status, head, size):
    """The status with the error code or `/v1/clear`'s verdict."""
    text = f"{status} {refusal(head)}".strip()
    if status == 200 and size == len(head):
        try:
            answer = json.loads(head)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and "outcome" in answer:
            text += f" outcome={answer['outcome']}"
    return text


def single(path, body, timeout=60, tries=1):
    def run(server):
        outcomes, times, size = [], [], 0
        for _ in range(tries):
            status, seconds, size, head, _ = post(server.port, path, body, timeout=timeout)
            outcomes.append(described(status, head, size))
            times.append(seconds)
            if not server.alive():
                break
        notes = f"{size / MIB:.1f} MiB answer" if size >= MIB else ""
        if tries > 1:
            notes = f"{len(times)} tries, slowest shown"
        return {"status": tally(outcomes), "time": max(times), "notes": notes, "answered": time.monotonic()}
    return run


def two_at_once(path, body):
    def run(server):
        done = [r for r in in_threads(2, lambda _: post(server.port, path, body), timeout=90) if r]
        return {"status": tally(described(r[0], r[3], r[2]) for r in done),
                "time": max((r[1] for r in done), default=0.0), "answered": time.monotonic()}
    return run


def unread_renders(body):
    """Five connections, one after another, that ask for a picture and never
    read it; held 12 s (past the default write timeout), then drained."""
    raw = json.dumps(body, separators=(",", ":")).encode()
    request = raw_request("POST", "/v1/render", len(raw)) + raw

    def run(server):
        started = time.monotonic()
        sockets, statuses = [], []
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.sendall(request)
            s.settimeout(30)
            statuses.append(peek_status(s))
            sockets.append(s)
            # The next one once this picture is made, as a client would retry.
            deadline = time.monotonic() + 30
            while server.alive() and in_flight(server.port) != 0 and time.monotonic() < deadline:
                time.sleep(0.05)
        held_since = time.monotonic()
        while time.monotonic() - held_since < 12 and server.alive():
            time.sleep(0.2)
        held = server.rss
        healthz = get(server.port, "/healthz")[0] if server.alive() else "-"
        cut = 0
        for s in sockets:
            s.settimeout(1)
            got, eof, until = 0, False, time.monotonic() + 3
            try:
                while time.monotonic() < until:
                    chunk = s.recv(1 << 20)
                    if not chunk:
                        eof = True
                        break
                    got += len(chunk)
            except OSError:
                eof = True
            # Still sending after 3 s of reading: the server kept it all.
            cut += eof and got < 180 * MIB
            s.close()
        return {"status": ",".join(statuses), "time": time.monotonic() - started,
                "notes": f"RSS {held:.0f} MiB after 12 s held; /healthz then {healthz}; "
                         f"{cut}/5 ended by the server", "answered": time.monotonic()}
    return run


def urllib_big_body(server):
    """What a client that writes its whole body before reading sees."""
    body = b" " * (20 * MIB)
    outcomes, started = [], time.monotonic()
    for _ in range(5):
        request = urllib.request.Request(f"http://127.0.0.1:{server.port}/v1/solve", data=body,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                outcomes.append(str(response.status))
        except urllib.error.HTTPError as e:
            text = e.read()
            outcomes.append(f"{e.code}" + (" readable" if code(text) else ""))
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            outcomes.append(type(reason).__name__ if not isinstance(reason, str) else reason)
    return {"status": tally(outcomes),
            "time": (time.monotonic() - started) / 5, "notes": "time is per try", "answered": time.monotonic()}


def echoed_body(path, body):
    def run(server):
        status, seconds, size, head, _ = post(server.port, path, body)
        return {"status": f"{status} {code(head)}".strip(), "time": seconds,
                "notes": f"answer body {size:,} bytes", "answered": time.monotonic()}
    return run


def long_request_id(server):
    status, seconds, _, _, headers = call(server.port, "GET", "/healthz", timeout=10,
                                          headers={"X-Request-Id": "r" * 60_000})
    echoed = {k.lower(): v for k, v in headers.items()}.get("x-request-id", "")
    return {"status": str(status), "time": seconds,
            "notes": f"echoed X-Request-Id {len(echoed):,} characters", "answered": time.monotonic()}


def silent_sockets(server):
    """200 sockets that connect and say nothing, then a new client's /healthz."""
    silent, until = [], time.monotonic() + 10
    for _ in range(200):
        if time.monotonic() > until:
            break
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", server.port))
        except OSError:
            s.close()
            continue
        silent.append(s)
    time.sleep(0.5)
    times, ok = [], 0
    for _ in range(10):
        status, seconds, _, _, _ = get(server.port, "/healthz", timeout=2)
        ok += status == 200
        times.append(seconds)
    for s in silent:
        s.close()
    return {"status": f"/healthz 200 x{ok}/10", "time": max(times),
            "notes": f"{len(silent)} silent sockets connected; /healthz median {sorted(times)[5]:.3f} s, max {max(times):.3f} s",
            "answered": time.monotonic()}


# ------------------------------------------------------------ the b cases

SMALL_SOLVE = {"board": ["AB.A", "B..C", "ACBA"], "rules": "lianliankan",
               "queries": [{"from": [0, 0], "to": [3, 0]}]}


def byte_size(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} KB"


def scraped(found):
    status, seconds, size, series, _ = found
    if status != 200:
        return f"/metrics {status} after {seconds:.2f} s"
    return f"/metrics {byte_size(size)}, {series:,} series, scraped in {seconds:.2f} s"


def median(values):
    return sorted(values)[len(values) // 2] if values else None


def spread(times):
    """Median and max of some seconds."""
    if not times:
        return "none"
    return f"median {median(times):.3f} s, max {max(times):.3f} s"


def made_up_methods(path, count, length, threads, headers=None):
    """`count` requests to `path`, each with a made-up method of `length`
    characters of its own, then what /metrics has become."""
    def run(server):
        before = scrape(server.port, timeout=30)
        started = time.monotonic()
        until = started + 120

        def client(t):
            seen = []
            for i in range(t, count, threads):
                if time.monotonic() > until or not server.alive():
                    break
                method = f"M{i:07d}".ljust(length, "X")
                seen.append(str(call(server.port, method, path, timeout=10, headers=headers)[0]))
            return seen
        outcomes = [o for seen in in_threads(threads, client) if seen for o in seen]
        took = time.monotonic() - started
        after = scrape(server.port, timeout=60) if server.alive() else ("-", 0.0, 0, 0, None)
        return {"status": tally(outcomes), "time": took, "answered": time.monotonic(),
                "notes": f"{len(outcomes):,} sent; before: {scraped(before)}; after: {scraped(after)}"}
    return run


def withheld_last_bytes(count, size, hold):
    """`count` connections each send a `size`-byte body to /v1/solve but
    its last byte, all wait `hold` seconds, then close."""
    head = raw_request("POST", "/v1/solve", size)
    start = b'{"board":["XX"],"queries":['
    body = memoryview(start + b" " * (size - len(start) - 2) + b"]}")[:-1]

    def run(server):
        started = time.monotonic()

        def send(_):
            try:
                s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            except OSError as e:
                return None, type(e).__name__
            try:
                s.sendall(head)
                s.sendall(body)
                return s, "sent"
            except (socket.timeout, TimeoutError):
                return s, "send stalled 30 s"
            except OSError as e:
                return s, type(e).__name__
        sent = [r for r in in_threads(count, send, timeout=120) if r]
        took = time.monotonic() - started
        probe = post(server.port, "/v1/solve", SMALL_SOLVE, timeout=3)
        while time.monotonic() - started < took + hold and server.alive():
            time.sleep(0.1)
        held = server.rss
        outcomes = []
        for s, how in sent:
            if s:
                s.settimeout(0.2)
                answer = peek_status(s, with_code=True)
                how = answer if how == "sent" else f"{how}, then {answer}"
                s.close()
            outcomes.append(how)
        return {"status": tally(outcomes), "time": took, "answered": time.monotonic(),
                "notes": f"{len(sent)} of {count} connected; time is to send; a fresh /v1/solve while held: "
                         f"{described(probe[0], probe[3], probe[2])}; RSS {held:.0f} MiB after {hold} s held"}
    return run


def unread_answers(loops, seconds, cap):
    """`loops` clients that for `seconds` each ask /v1/shuffle of a 1000x1000
    board on a new connection, wait for the answer to start, never read it
    and ask again (after a 503, once its Retry-After second has passed);
    every socket stays open until the end (at most `cap` a client)."""
    raw = json.dumps({"board": text_board(1000, 1000, 0.6, seed=11), "rules": "mahjong", "seed": 1},
                     separators=(",", ":")).encode()
    request = raw_request("POST", "/v1/shuffle", len(raw)) + raw

    def run(server):
        started = time.monotonic()
        end = started + seconds

        def client(_):
            sockets, statuses = [], []
            while time.monotonic() < end and len(sockets) < cap and server.alive():
                s = socket.socket()
                s.settimeout(10)
                try:
                    s.connect(("127.0.0.1", server.port))
                    s.sendall(request)
                except OSError as e:
                    statuses.append(type(e).__name__)
                    s.close()
                    continue
                s.settimeout(max(0.1, end - time.monotonic()))
                statuses.append(peek_status(s, with_code=True))
                sockets.append(s)
                if statuses[-1].startswith("503"):
                    time.sleep(max(0.0, min(1.0, end - time.monotonic())))
            return sockets, statuses
        results = [r for r in in_threads(loops, client, timeout=seconds + 60) if r]
        held, alive = server.rss, server.alive()
        healthz = get(server.port, "/healthz")[0] if alive else "-"
        sockets = [s for r in results for s in r[0]]
        for s in sockets:
            s.close()
        return {"status": tally(o for r in results for o in r[1]), "time": time.monotonic() - started,
                "answered": time.monotonic(),
                "notes": f"{len(sockets)} sockets held unread; RSS {held:.0f} MiB at the end; /healthz then {healthz}"}
    return run


def nofile_room():
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def slow_senders(count, part, seconds, api_key=None):
    """`count` connections that send a /v1/solve request's `part` (headers
    or body) one byte a second, each opened again the next second when the
    server closes it (so at most `count` a second); meanwhile, every 0.5 s, /healthz on the admin
    listener and a fresh client's small /v1/solve, each with a 3 s timeout."""
    body = b'{"board":["XX"],"queries":[' + b" " * 1000 + b"]}"
    request = raw_request("POST", "/v1/solve", len(body)) + body
    at_once = 0 if part == "headers" else len(raw_request("POST", "/v1/solve", len(body)))
    key = {"Authorization": f"Bearer {api_key}"} if api_key else None

    def probing(server, end, ask):
        results = []
        while time.monotonic() < end and server.alive():
            status, took = ask()[:2]
            results.append((status, took))
            time.sleep(0.5)
        return results

    def step(s, state):
        """One second of one slow sender; False once the server closed it."""
        try:
            data = s.recv(4096)
            if not data:
                return False
            if data.startswith(b"HTTP/1.1 "):
                state["answers"].append(data[9:12].decode())
        except BlockingIOError:
            pass
        except OSError:
            return False
        upto = min(len(request) - 1, max(at_once, state["sent"] + 1))
        try:
            state["sent"] += s.send(request[state["sent"]:upto])
        except BlockingIOError:
            pass  # still connecting, or the server reads none of it
        except OSError:
            return False
        return True

    def run(server):
        if nofile_room() < count + 200:
            return {"status": "skipped", "time": 0.0, "answered": time.monotonic(),
                    "notes": f"ulimit -n is {nofile_room()}, too few for {count} sockets"}
        started = time.monotonic()
        end = started + seconds
        admin = server.admin_port or server.port
        asks = [lambda: get(admin, "/healthz", timeout=3),
                lambda: post(server.port, "/v1/solve", SMALL_SOLVE, timeout=3, headers=key)]
        probes = [None, None]
        threads = [threading.Thread(target=lambda i=i: probes.__setitem__(i, probing(server, end, asks[i])),
                                    daemon=True) for i in range(2)]
        for t in threads:
            t.start()
        open_, opened, lived, answers = {}, 0, [], []
        while time.monotonic() < end and server.alive():
            tick = time.monotonic()
            while len(open_) < count:
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex(("127.0.0.1", server.port))
                open_[s] = {"sent": 0, "since": time.monotonic(), "answers": []}
                opened += 1
            for s, state in list(open_.items()):
                if not step(s, state):
                    lived.append(time.monotonic() - state["since"])
                    answers += state["answers"]
                    s.close()
                    del open_[s]
            time.sleep(max(0.0, tick + 1 - time.monotonic()))
        for t in threads:
            t.join(5)
        still = len(open_)
        for s in open_:
            s.close()
        health, solve = [p or [] for p in probes]
        ok = lambda rs: sum(status == 200 for status, _ in rs)  # noqa: E731
        return {"status": f"healthz {ok(health)}/{len(health)}, solve {ok(solve)}/{len(solve)}",
                "time": max((t for _, t in health + solve), default=0.0), "answered": time.monotonic(),
                "notes": f"/healthz (admin) {spread([t for _, t in health])}; /v1/solve {spread([t for _, t in solve])}"
                         f" ({tally(str(s) for s, _ in solve)}); {count} {part} at 1 B/s: {opened} opened, "
                         f"{len(lived)} closed by the server" + (f" (median after {median(lived):.1f} s)" if lived else "") + ", "
                         f"{still} open at the end" + (f"; answered them {tally(answers)}" if answers else "")}
    return run


def render_size(width, height, queries):
    rows = text_board(width, height, 0.6, seed=12)
    raw = json.dumps({"board": rows, "rules": "mahjong", "queries": tile_cells(rows, queries, seed=6)},
                     separators=(",", ":")).encode()

    def run(server):
        status, seconds, size, head, _ = post(server.port, "/v1/render", raw)
        return {"status": described(status, head, size), "time": seconds, "answered": time.monotonic(),
                "notes": f"{byte_size(len(raw))} body, {byte_size(size)} answer, "
                         f"{size / (width * height):.0f} bytes a cell"}
    return run


def until_served(path, body, copies, seconds):
    """`copies` clients at once that each send `body` to `path` and, while
    it is 503, send it again after its Retry-After second, for at most
    `seconds`."""
    def run(server):
        end = time.monotonic() + seconds

        def client(_):
            tries = 0
            while True:
                tries += 1
                status, took, size, head, _ = post(server.port, path, body)
                if status != 503 or time.monotonic() + 1 > end or not server.alive():
                    return f"{described(status, head, size)} at try {tries}", took
                time.sleep(1)
        done = [r for r in in_threads(copies, client, timeout=seconds + 90) if r]
        return {"status": tally(r[0] for r in done), "time": max((r[1] for r in done), default=0.0),
                "answered": time.monotonic()}
    return run


def one_type_groups(count):
    """A /v1/solve body whose rules have `count` matching groups of one type each."""
    groups = ",".join(f"[{t}]" for t in range(1, count + 1))
    return (f'{{"board":[[1,1]],"rules":{{"preset":"shisen-sho","match":{{"groups":[{groups}]}}}},'
            f'"queries":[{{"from":[0,0],"to":[1,0]}}]}}').encode()


def each_body(path, bodies):
    """Each of `bodies` (label, bytes) to `path`, one after another."""
    def run(server):
        seen = [(label, post(server.port, path, body, timeout=10)) for label, body in bodies]
        return {"status": tally(described(r[0], r[3], r[2]) for _, r in seen),
                "time": max(r[1] for _, r in seen), "answered": time.monotonic(),
                "notes": "; ".join(f"{label}: {described(r[0], r[3], r[2])}" for label, r in seen)}
    return run


def start_only(within=3):
    """Whether the server starts: its exit code and first line of output
    within `within` seconds, or, when it serves, what /v1/solve without a
    key gets."""
    def run(server):
        started = time.monotonic()
        while time.monotonic() - started < within and server.alive():
            if get(server.port, "/healthz", timeout=0.5)[0] == 200:
                break
            time.sleep(0.05)
        took = time.monotonic() - started
        if not server.alive():
            return {"status": f"exit {server.proc.returncode}", "time": took, "answered": time.monotonic(),
                    "notes": f"first line: {server.first_line()[:150]}"}
        status, _, size, head, _ = post(server.port, "/v1/solve", SMALL_SOLVE, timeout=5)
        return {"status": "started", "time": took, "answered": time.monotonic(),
                "notes": f"/v1/solve without a key: {described(status, head, size)}"}
    run.starts_itself = True
    return run


def tabs_in_rows(server):
    """A tab in a /v1/solve text row, and in a `linkpath judge mahjong` board."""
    status, seconds, size, head, _ = post(server.port, "/v1/solve", {
        "board": ["X\tX", "XXX"], "rules": "mahjong", "queries": [{"from": [0, 0], "to": [2, 0]}]})
    solve = described(status, head, size) + (f" {head[:80].decode('utf-8', 'replace')}" if status == 200 else "")
    with open("tests/data/mahjong.in") as f:
        judge_in = f.read().replace("X   X", "X \t X", 1)
    try:
        judged = subprocess.run([BIN, "judge", "mahjong"], input=judge_in.encode(), capture_output=True, timeout=10)
        out = judged.stdout.decode("utf-8", "replace").split()
        err = (judged.stderr.decode("utf-8", "replace").strip().splitlines() or [""])[0][:120]
        judge = f"exit {judged.returncode}, printed {' '.join(out) or 'nothing'}, stderr {err!r}"
    except subprocess.TimeoutExpired:
        judge = "no answer within 10 s"
    return {"status": solve.split(" {")[0], "time": seconds, "answered": time.monotonic(),
            "notes": f"/v1/solve: {solve}; judge mahjong (tests/data/mahjong.in, a tab in row 2; "
                     f"4 3 0 without it): {judge}"}


def at_once(named_runs):
    """Several attacks against one server at the same time."""
    def run(server):
        started = time.monotonic()
        results = in_threads(len(named_runs), lambda i: named_runs[i][1](server), timeout=240)
        return {"status": "; ".join(f"{name} {r['status'] if r else 'failed'}" for (name, _), r in zip(named_runs, results)),
                "time": time.monotonic() - started, "answered": time.monotonic(), "peak_limit": 512,
                "notes": " | ".join(f"{name}: {r.get('notes') or r['status']}" for (name, _), r in zip(named_runs, results) if r)}
    return run


def cases():
    """(name, summary, server settings, run): built lazily, boards are big."""
    big = lambda: text_board(1000, 1000, 0.6, seed=11)  # noqa: E731
    yield ("0a", "deal 100x100, 2500 types x4, numbers, shisen-sho", {},
           lambda: single("/v1/deal", {"width": 100, "height": 100, "types": 2500, "copies": 4,
                                       "encoding": "numbers", "rules": "shisen-sho"}))
    yield ("0b", "shuffle solvable 100x100 (2500 types x4), shisen-sho", {},
           lambda: single("/v1/shuffle", {"board": number_board(100, 100, 2500, 4, seed=3),
                                          "rules": "shisen-sho", "solvable": True, "seed": 1}))
    yield ("1a", "clear mahjong 200x200 60%, budget 100 ms; timeout 2 s, 1 worker",
           {"LINKPATH_SOLVE_TIMEOUT_MS": "2000", "LINKPATH_WORKERS": "1"},
           lambda: single("/v1/clear", {"board": text_board(200, 200, 0.6, seed=7),
                                        "rules": "mahjong", "budget_ms": 100}))
    yield ("1b", "clear mahjong 1000x1000 60%, budget 100 ms; timeout 2 s, 1 worker",
           {"LINKPATH_SOLVE_TIMEOUT_MS": "2000", "LINKPATH_WORKERS": "1"},
           lambda: single("/v1/clear", {"board": big(), "rules": "mahjong", "budget_ms": 100}))
    yield ("2", "moves mahjong 1000x1000 60%", {},
           lambda: single("/v1/moves", {"board": big(), "rules": "mahjong"}))
    deal = {"width": 1000, "height": 1000, "types": 62, "rules": "shisen-sho"}
    yield ("3a", "deal 1000x1000, 62 types, shisen-sho (70 bytes)", {}, lambda: single("/v1/deal", deal))
    yield ("3b", "the same deal, two at once", {}, lambda: two_at_once("/v1/deal", deal))

    def picture():
        rows = big()
        return {"board": rows, "rules": "mahjong", "queries": tile_cells(rows, 4, seed=5)}
    yield ("4a", "render 1000x1000 (1 MB body), read whole; 1 worker", {"LINKPATH_WORKERS": "1"},
           lambda: single("/v1/render", picture()))
    yield ("4b", "render 1000x1000, 5 connections that never read; 1 worker",
           {"LINKPATH_WORKERS": "1"}, lambda: unread_renders(picture()))
    yield ("5", "20 MB body from urllib to /v1/solve, 5 tries", {}, lambda: urllib_big_body)
    yield ("6a", '{"<10 MB of a>":1} to /v1/solve', {},
           lambda: echoed_body("/v1/solve", b'{"' + b"a" * (10 * MIB) + b'":1}'))
    yield ("6b", "a 5 MB preset name to /v1/solve", {},
           lambda: echoed_body("/v1/solve", {"board": ["XX"], "rules": "a" * (5 * MIB), "queries": []}))
    yield ("6c", "GET /healthz with a 60 KB X-Request-Id", {}, lambda: long_request_id)
    yield ("7", "200 silent sockets, LINKPATH_MAX_CONNECTIONS=64, /healthz x10",
           {"LINKPATH_MAX_CONNECTIONS": "64", "LINKPATH_MAX_STREAMS": "48"}, lambda: silent_sockets)
    yield ("8", "clear shisen-sho 40x40 full, budget 1e9 ms; timeout 2 s; 3 tries",
           {"LINKPATH_SOLVE_TIMEOUT_MS": "2000"},
           lambda: single("/v1/clear", {"board": text_board(40, 40, 1.0, seed=8),
                                        "rules": "shisen-sho", "budget_ms": 1_000_000_000},
                          tries=3))
    yield from b_cases()


def b_cases():
    keys = {"LINKPATH_API_KEYS": "k"}
    yield ("b1a", "3,000 GET /healthz, each its own 60 KB made-up method", {},
           lambda: made_up_methods("/healthz", 3000, 60 * 1024, threads=2))
    yield ("b1b", "20,000 /v1/solve, each its own made-up method; API key, 1 a second",
           {**keys, "LINKPATH_RATE_LIMIT_PER_SECOND": "1"},
           lambda: made_up_methods("/v1/solve", 20_000, 16, threads=4))
    b2 = lambda: withheld_last_bytes(48, 16_000_000, hold=5)  # noqa: E731
    yield ("b2", "48 bodies of 16 MB to /v1/solve but their last byte, held 5 s", {}, b2)
    b3 = lambda: unread_answers(2, B3_SECONDS, cap=100)  # noqa: E731
    yield ("b3", f"2 clients: shuffle 1000x1000 (35 MB answer) never read, {B3_SECONDS:.0f} s", {}, b3)

    def slow(count, part, cap=None, key=None):
        env = {"LINKPATH_ADMIN_LISTEN": f"127.0.0.1:{free_port()}"}
        # Event streams leave 16 connections to other requests, or the
        # server refuses to start.
        env.update({"LINKPATH_MAX_CONNECTIONS": str(cap), "LINKPATH_MAX_STREAMS": str(cap - 16)} if cap else {})
        env.update({"LINKPATH_API_KEYS": key} if key else {})
        return env, lambda: slow_senders(count, part, B4_SECONDS, api_key=key)
    for name, count, part, cap, key in (("b4a", 160, "headers", 64, None), ("b4b", 160, "body", 64, None),
                                        ("b4c", 2100, "headers", None, None), ("b4d", 2100, "body", None, None),
                                        ("b4e", 160, "headers", 64, "k")):
        env, run = slow(count, part, cap, key)
        yield (name, f"{count} senders of their {part} at 1 B/s, max connections {cap or 1024}"
                     + (", API key" if key else "") + f"; probes, {B4_SECONDS:.0f} s", env, run)
    yield ("b5a", "render 128x127 at 60% with 2,000 queries", {}, lambda: render_size(128, 127, 2000))
    yield ("b5b", "render 128x127 at 60% with 10,000 queries", {}, lambda: render_size(128, 127, 10_000))
    b6 = lambda: two_at_once("/v1/solve", one_type_groups(1_500_000))  # noqa: E731
    yield ("b6a", "solve with 1.5 million one-type matching groups (13.9 MB body)", {},
           lambda: single("/v1/solve", one_type_groups(1_500_000)))
    yield ("b6b", "the same, two at once", {}, b6)
    yield ("b7", "/v1/solve with a lone \\ud800, a raw 0xFF byte, 1e400", {},
           lambda: each_body("/v1/solve", [
               ("lone surrogate", b'{"board":["X\\ud800X"],"queries":[]}'),
               ("0xFF byte", b'{"board":["X\xffX"],"queries":[]}'),
               ("1e400", b'{"board":["XX"],"queries":[{"from":[0,0],"to":[1e400,0]}]}')]))
    yield ("b8a", 'LINKPATH_API_KEYS=",": does the server start', {"LINKPATH_API_KEYS": ","}, start_only)
    yield ("b8b", 'LINKPATH_API_KEYS=" ": does the server start', {"LINKPATH_API_KEYS": " "}, start_only)
    yield ("b9", 'solve ["X\\tX", "XXX"]; linkpath judge mahjong with a tab', {}, lambda: tabs_in_rows)
    for name, mib_budget in (("b236a", 128), ("b236b", 256)):
        yield (name, f"b2, b3 and b6b (retried on 503) at once; memory budget {mib_budget} MiB",
               {"LINKPATH_MEMORY_BUDGET_BYTES": str(mib_budget * MIB)},
               lambda: at_once([("b2", b2()), ("b3", b3()),
                                ("b6b", until_served("/v1/solve", one_type_groups(1_500_000), 2,
                                                     B3_SECONDS))]))


def main():
    rows = []
    for name, summary, env, make in cases():
        if ONLY and name not in ONLY and re.sub(r"[a-z]$", "", name) not in ONLY:
            continue
        row = {"case": name, "request": summary, "status": "-", "time": None, "peak": None,
               "serving": "-", "slot": "-", "notes": ""}
        try:
            run = make()
        except Exception as e:  # noqa: BLE001 - reported, and the next case runs
            row["status"] = f"not run: {e}"
            rows.append(row)
            print_row(row)
            continue
        server = Server(env)
        limit = None
        try:
            if not getattr(run, "starts_itself", False):
                server.wait_ready()
            result = run(server)
            limit = result.get("peak_limit")
            row.update({k: result[k] for k in ("status", "time") if k in result})
            row["notes"] = result.get("notes", "")
            fate = server.fate()
            if fate:
                row["serving"] = fate
            else:
                status = get(server.port, "/healthz", timeout=2)[0]
                row["serving"] = "yes" if status == 200 else f"no ({status})"
                row["slot"] = slot_free(server, result["answered"])
                fate = server.fate()
                if fate:
                    row["serving"] = fate
                elif row["slot"] != "-":
                    row["notes"] = "; ".join(n for n in (row["notes"], f"RSS {server.rss:.0f} MiB after") if n)
        except Exception as e:  # noqa: BLE001
            row["status"] = f"client failed: {type(e).__name__}: {e}"
            row["serving"] = server.fate() or "yes"
        finally:
            server.stop()
            row["peak"] = server.peak
        if limit:
            verdict = "under" if server.peak < limit else "OVER"
            row["notes"] = f"peak {verdict} {limit} MiB; {row['notes']}"
        rows.append(row)
        print_row(row)
    print("\n== summary (peak RSS is VmHWM of the server, one fresh server per case)")
    widths = (4, 68, 34, 8, 10, 30, 12)
    heads = ("case", "request", "status", "time", "peak RSS", "serving afterwards", "slot free")
    print("  ".join(h.ljust(w) for h, w in zip(heads, widths)) + "  notes")
    for row in rows:
        cells = (row["case"], row["request"], row["status"], seconds(row["time"]), mib(row["peak"]),
                 row["serving"], row["slot"])
        print("  ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + "  " + row["notes"])


def seconds(t):
    return "-" if t is None else f"{t:.2f} s"


def mib(m):
    return "-" if m is None else f"{m:.0f} MiB"


def print_row(row):
    print(f"[{row['case']}] {row['request']}: {row['status']} in {seconds(row['time'])}, "
          f"peak {mib(row['peak'])}, serving afterwards: {row['serving']}, slot free: {row['slot']}"
          + (f"; {row['notes']}" if row["notes"] else ""), flush=True)


main()
EOF
