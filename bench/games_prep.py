#!/usr/bin/env python3
"""Inputs for bench/games.sh (stdlib only; loopback; every call bounded).

  games_prep.py deal PORT DIR
      POST /v1/deal with DEAL (below) and its clearing moves; the boards
      before each move through /v1/play, one move at a time; then one game
      created with DEAL is played to the end with those moves, each answer's
      board checked against /v1/play's, and so is one game created on the
      deal's board. Writes in DIR:
        moves.txt  line j: move j's body, {"from": [x, y], "to": [x, y]}
        play.txt   line j: a /v1/play body, the board before move j and move j
        create.json  the body that creates a game on the deal's board
        board0.json  that board
        deal.json  the /v1/deal body (DEAL)
      and prints the number of moves.
  games_prep.py create PORT N DIR
      Creates N games on that board (DIR/create.json: the deal's board and
      rules; THREADS connections at once, a 503 retried), checks each one's
      board, and writes their ids to DIR/ids.txt, one a line; prints the
      seconds it took. (A game created with the deal's fields is dealt
      the same board, but each such deal searches for a clearable board
      again: about half a second on a busy 2-core machine.)
"""
import http.client
import json
import sys
import threading
import time

# The standard deal: 36 tile types, 4 of each, on 18 x 8, from a fixed seed.
DEAL = {"width": 18, "height": 8, "types": 36, "rules": "shisen-sho", "seed": 7}
THREADS = 8
TIMEOUT = 10
HEADERS = {"Content-Type": "application/json"}


class Client:
    def __init__(self, port):
        self.port = port
        self.conn = None

    def post(self, path, body):
        for attempt in range(3):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
            try:
                self.conn.request("POST", path, body=body, headers=HEADERS)
                r = self.conn.getresponse()
                return r.status, r.read()
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def expect(status, data, want, what):
    if status != want:
        sys.exit(f"{what} answered {status}: {data[:300]!r}")
    return json.loads(data)


def deal(port, out):
    c = Client(port)
    body = json.dumps(DEAL)
    dealt = expect(*c.post("/v1/deal", body), 200, "/v1/deal")
    moves = [{"from": m["from"], "to": m["to"]} for m in dealt["moves"]]
    boards, plays = [dealt["board"]], []
    for j, m in enumerate(moves):
        play = json.dumps({"board": boards[-1], "rules": DEAL["rules"], "moves": [m]})
        after = expect(*c.post("/v1/play", play), 200, f"/v1/play of move {j}")
        if len(after["steps"]) != 1 or "stopped_at" in after:
            sys.exit(f"/v1/play did not make move {j}: {after}")
        plays.append(play)
        boards.append(after["board"])
    if not after["cleared"]:
        sys.exit("the deal's moves do not clear its board")
    # A game created with the same fields, and one created on the board:
    # the same board, and the same boards after each move.
    on_board = json.dumps({"board": boards[0], "rules": DEAL["rules"]})
    for how, create_body in (("the deal's fields", body), ("the deal's board", on_board)):
        game = expect(*c.post("/v1/games", create_body), 201, "POST /v1/games")
        if game["board"] != boards[0]:
            sys.exit(f"a game created with {how} has another board")
        for j, m in enumerate(moves):
            game = expect(*c.post(f"/v1/games/{game['id']}/moves", json.dumps(m)), 200, f"move {j}")
            if game["board"] != boards[j + 1]:
                sys.exit(f"after move {j} the board of a game created with {how} is not /v1/play's")
        if game["status"] != "won":
            sys.exit(f"a game created with {how} ended {game['status']}, not won")
    with open(f"{out}/moves.txt", "w") as f:
        f.writelines(json.dumps(m) + "\n" for m in moves)
    with open(f"{out}/play.txt", "w") as f:
        f.writelines(p + "\n" for p in plays)
    with open(f"{out}/create.json", "w") as f:
        f.write(on_board)
    with open(f"{out}/deal.json", "w") as f:
        f.write(body)
    with open(f"{out}/board0.json", "w") as f:
        json.dump(boards[0], f)
    print(len(moves))


def create(port, n, out):
    with open(f"{out}/create.json") as f:
        body = f.read()
    with open(f"{out}/board0.json") as f:
        board0 = json.load(f)
    ids = [None] * n
    failed = []

    def worker(k):
        c = Client(port)
        try:
            for i in range(k, n, THREADS):
                for _ in range(500):
                    status, data = c.post("/v1/games", body)
                    if status != 503:  # all solver slots busy: retry
                        break
                    time.sleep(0.005)
                game = expect(status, data, 201, "POST /v1/games")
                if game["board"] != board0:
                    raise RuntimeError("a game was dealt another board")
                ids[i] = game["id"]
        except BaseException as e:  # reported once every thread is done
            failed.append(repr(e))

    started = time.monotonic()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        sys.exit(f"creating games failed: {failed[0]}")
    with open(f"{out}/ids.txt", "w") as f:
        f.writelines(i + "\n" for i in ids)
    print(f"{time.monotonic() - started:.1f}")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "deal":
        deal(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "create":
        create(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
