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
#   scripts/attack.sh                     # every case, about 3 to 5 minutes
#   scripts/attack.sh 1a 4b               # only these cases
#   ATTACK_RSS_CAP_MIB=2048 scripts/attack.sh
#
# Bounded on purpose: a server whose RSS passes ATTACK_RSS_CAP_MIB (default
# 4096) is killed and reported as such, the wait for a free slot gives up
# after ATTACK_SLOT_WAIT_S (default 20) seconds, every client call has a
# timeout, and every loop a fixed count. Boards come from fixed seeds.
# Only 127.0.0.1 is ever sent traffic; the clients are Python 3 standard
# library only. The script stops the servers it started, and only those.
set -uo pipefail
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

python3 - "$bin" "$tmp" "$pids" "$@" <<'EOF'
import http.client
import json
import os
import random
import re
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

def call(port, method, path, body=b"", headers=None, timeout=60, keep=1 << 16):
    """(status or what went wrong, seconds, body bytes, first `keep` bytes, headers)."""
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


def in_flight(port):
    status, _, _, text, _ = call(port, "GET", "/metrics", timeout=2, keep=1 << 22)
    if status != 200:
        return None
    found = re.search(rb"^linkpath_solves_in_flight (\S+)$", text, re.M)
    return float(found.group(1)) if found else None


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
    text = f"{status} {code(head)}".strip()
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
        results = [None, None]

        def one(i):
            results[i] = post(server.port, path, body)
        threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(90)
        done = [r for r in results if r]
        return {"status": tally(described(r[0], r[3], r[2]) for r in done),
                "time": max((r[1] for r in done), default=0.0), "answered": time.monotonic()}
    return run


def unread_renders(body):
    """Five connections, one after another, that ask for a picture and never
    read it; held 12 s (past the default write timeout), then drained."""
    raw = json.dumps(body, separators=(",", ":")).encode()
    request = (f"POST /v1/render HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(raw)}\r\n\r\n").encode() + raw

    def run(server):
        started = time.monotonic()
        sockets, statuses = [], []
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
            s.sendall(request)
            s.settimeout(30)
            try:
                head = s.recv(12, socket.MSG_PEEK)  # the status line, left unread
                statuses.append(head[9:12].decode() if head.startswith(b"HTTP/1.1 ") else "closed")
            except OSError as e:
                statuses.append(type(e).__name__)
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
           {"LINKPATH_MAX_CONNECTIONS": "64"}, lambda: silent_sockets)
    yield ("8", "clear shisen-sho 40x40 full, budget 1e9 ms; timeout 2 s; 3 tries",
           {"LINKPATH_SOLVE_TIMEOUT_MS": "2000"},
           lambda: single("/v1/clear", {"board": text_board(40, 40, 1.0, seed=8),
                                        "rules": "shisen-sho", "budget_ms": 1_000_000_000},
                          tries=3))


def main():
    rows = []
    for name, summary, env, make in cases():
        if ONLY and name not in ONLY:
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
        try:
            server.wait_ready()
            result = run(server)
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
