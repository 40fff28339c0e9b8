#!/usr/bin/env python3
"""Load and RSS sampling for bench/memory.sh (stdlib only).

  memory_load.py --port P --pid PID --rounds R --concurrency C
                 [--timeout S] [--pause S] [--settle S] BODY...

Each round sends C POST /v1/solve requests at once (threads, one
http.client connection each, started together through a barrier); request
i of a round takes BODY[i % len(BODY)]. While a round runs, a sampler reads
VmRSS of PID every 20 ms. After every answer is in, it waits --pause seconds
and reads VmRSS and VmHWM; after the last round it also waits --settle
seconds more and reads VmRSS again (what the server holds once quiet).
Prints a Markdown table of the rounds and one line `MEMSTAT idle_kb=…
hwm_kb=… first_kb=… last_kb=… before_last_kb=… settled_kb=… non200=…
errors=…` (before_last_kb: the largest RSS after any round but the last).
Loopback only; every request is bounded by --timeout.
"""
import argparse
import http.client
import threading
import time


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/{pid}/status")


def one_request(port, body, timeout, out, i, barrier):
    barrier.wait()
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("POST", "/v1/solve", body=body,
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        data = r.read()
        c.close()
        out[i] = (r.status, time.monotonic() - t0, len(data), data[:200] if r.status != 200 else b"")
    except Exception as e:  # a refused or timed-out request is a result too
        out[i] = ("error", time.monotonic() - t0, 0, repr(e).encode())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--timeout", type=float, default=900)
    p.add_argument("--pause", type=float, default=1.0)
    p.add_argument("--settle", type=float, default=0.0)
    p.add_argument("bodies", nargs="+")
    a = p.parse_args()
    bodies = []
    for path in a.bodies:
        with open(path, "rb") as f:
            bodies.append((path.rsplit("/", 1)[-1], f.read()))

    idle = status_kb(a.pid, "VmRSS")
    rows, after, non200, errors, samples = [], [], 0, 0, []
    for rnd in range(1, a.rounds + 1):
        out = [None] * a.concurrency
        barrier = threading.Barrier(a.concurrency + 1)
        threads = [threading.Thread(target=one_request,
                                    args=(a.port, bodies[i % len(bodies)][1], a.timeout, out, i, barrier))
                   for i in range(a.concurrency)]
        for t in threads:
            t.start()
        peak_round, stop = [0], threading.Event()

        def sample():
            while not stop.is_set():
                try:
                    peak_round[0] = max(peak_round[0], status_kb(a.pid, "VmRSS"))
                except (OSError, RuntimeError):
                    return
                stop.wait(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        t0 = time.monotonic()
        barrier.wait()
        for t in threads:
            t.join()
        wall = time.monotonic() - t0
        stop.set()
        sampler.join()
        time.sleep(a.pause)
        rss, hwm = status_kb(a.pid, "VmRSS"), status_kb(a.pid, "VmHWM")
        after.append(rss)
        ok = sum(1 for o in out if o[0] == 200)
        bad = [o for o in out if o[0] != 200]
        non200 += sum(1 for o in bad if o[0] != "error")
        errors += sum(1 for o in bad if o[0] == "error")
        for o in bad[:3]:
            samples.append(f"round {rnd}: {o[0]} after {o[1]:.2f} s: {o[3][:200].decode(errors='replace')}")
        rows.append((rnd, wall, ok, len(bad), max(o[1] for o in out), peak_round[0], rss, hwm))

    mib = lambda kb: f"{kb / 1024:.1f} MiB"
    print("| round | wall time | 200 answers | other | slowest request | RSS peak sampled in the round | RSS after the round | VmHWM after the round |")
    print("|---|---|---|---|---|---|---|---|")
    for rnd, wall, ok, bad, slow, peak, rss, hwm in rows:
        print(f"| {rnd} | {wall:.2f} s | {ok} | {bad} | {slow:.2f} s | {mib(peak)} | {mib(rss)} | {mib(hwm)} |")
    for s in samples:
        print(f"\n- not 200: {s}")
    print()
    time.sleep(a.settle)
    settled = status_kb(a.pid, "VmRSS")
    hwm = status_kb(a.pid, "VmHWM")
    before_last = max(after[:-1]) if len(after) > 1 else after[0]
    print(f"MEMSTAT idle_kb={idle} hwm_kb={hwm} first_kb={after[0]} last_kb={after[-1]} "
          f"before_last_kb={before_last} settled_kb={settled} non200={non200} errors={errors}")


if __name__ == "__main__":
    main()
