#!/usr/bin/env python3
"""Event streams for bench/replicas.sh (stdlib only; loopback; bounded).

  replicas_watch.py PORT IDS N READY MAX_SECONDS

Opens one `GET /v1/games/{id}/events` stream on each of the first N games
of IDS (one id a line) at 127.0.0.1:PORT, and writes READY once every
stream has had its first event. It reads until SIGTERM (or MAX_SECONDS),
then asks the same address for each game's version and waits, at most
5 s, for every stream to reach it. A stream is complete when its events'
ids run from the first one to that version with none missing, repeated
or out of order, and it was still open. Prints one line:

  WATCH streams=N events=E expected=X complete=C gaps=G ended=D first_s=S

events: all events received; expected: what complete streams would hold
(the game's version less the first event's, plus one, summed); gaps:
streams that missed or repeated a version; ended: streams the server
closed early (a reader too far behind is dropped); first_s: seconds
until every stream had its first event. The first failures go to stderr.
"""
import asyncio
import json
import signal
import sys
import time

SETTLE_S = 5


class Stream:
    def __init__(self, game):
        self.game = game
        self.versions = []
        self.ended = False
        self.first = asyncio.Event()


async def read_stream(port, s):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /v1/games/{s.game}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"{s.game}: {status!r}")
    chunked = False
    while (line := await reader.readline()) not in (b"\r\n", b""):
        if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
            chunked = True
    buf = b""
    try:
        while True:
            if chunked:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    break
                data = await reader.readexactly(size + 2)
                buf += data[:-2]
            else:
                data = await reader.read(65536)
                if not data:
                    break
                buf += data
            # Events end with a blank line; only the id matters here.
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                for field in block.split(b"\n"):
                    if field.startswith(b"id:"):
                        s.versions.append(int(field[3:].strip()))
                        s.first.set()
        s.ended = True
    except (asyncio.IncompleteReadError, ConnectionError):
        s.ended = True
    finally:
        writer.close()


async def version(port, game):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET /v1/games/{game} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    raw = await reader.read()
    writer.close()
    head, body = raw.split(b"\r\n\r\n", 1)
    if b"chunked" in head.lower():
        out, rest = b"", body
        while True:
            size_line, rest = rest.split(b"\r\n", 1)
            size = int(size_line, 16)
            if size == 0:
                break
            out, rest = out + rest[:size], rest[size + 2:]
        body = out
    return json.loads(body)["version"]


async def main(port, ids_file, n, ready, max_s):
    with open(ids_file) as f:
        games = [line.strip() for line in f if line.strip()][:n]
    if len(games) < n:
        sys.exit(f"{ids_file} has {len(games)} ids, fewer than {n}")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    started = time.monotonic()
    streams = [Stream(g) for g in games]
    tasks = [asyncio.create_task(read_stream(port, s)) for s in streams]
    await asyncio.wait_for(asyncio.gather(*(s.first.wait() for s in streams)), 10)
    first_s = time.monotonic() - started
    open(ready, "w").close()
    try:
        await asyncio.wait_for(stop.wait(), max_s)
    except asyncio.TimeoutError:
        pass
    want = await asyncio.gather(*(version(port, s.game) for s in streams))
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline and any(
        not s.ended and (not s.versions or s.versions[-1] < v) for s, v in zip(streams, want)
    ):
        await asyncio.sleep(0.05)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    events = complete = gaps = ended = expected = 0
    shown = 0
    for s, v in zip(streams, want):
        events += len(s.versions)
        run = list(range(s.versions[0], v + 1)) if s.versions else []
        expected += len(run)
        ok = s.versions == run
        gaps += not ok and not s.ended
        ended += s.ended
        complete += ok and not s.ended
        if not (ok and not s.ended) and shown < 3:
            shown += 1
            print(f"stream {s.game}: {len(s.versions)} events, versions {s.versions[:3]}..{s.versions[-3:]},"
                  f" game at {v}, ended early: {s.ended}", file=sys.stderr)
    print(f"WATCH streams={n} events={events} expected={expected} complete={complete}"
          f" gaps={gaps} ended={ended} first_s={first_s:.2f}")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])))
