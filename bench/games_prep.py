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
  games_prep.py create PORT N DIR [--players]
      Creates N games on that board (DIR/create.json: the deal's board and
      rules; THREADS connections at once, a 503 retried), checks each one's
      board, and writes their ids to DIR/ids.txt, one a line; prints the
      seconds it took. (A game created with the deal's fields is dealt
      the same board, but each such deal searches for a clearable board
      again: about half a second on a busy 2-core machine.) With
      --players, each game is created by a player of its own, signed up
      first (POST /v1/players), with its token, and checked to be that
      player's; a line is then `id token`. A player a game keeps the run
      within LINKPATH_MAX_GAMES_PER_PLAYER whatever it is.
  games_prep.py players PORT DIR
      After `deal`: a signed-up player's game on the deal's board is
      played to the end with its token, each board checked against
      /v1/play's; a move on it without a token must be refused 401, and
      with another player's token 403, both changing nothing.
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

    def post(self, path, body, token=None):
        headers = HEADERS if token is None else {**HEADERS, "Authorization": f"Bearer {token}"}
        for attempt in range(3):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
            try:
                self.conn.request("POST", path, body=body, headers=headers)
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


def sign_up(c, name):
    """A new player: its id and token."""
    player = expect(*c.post("/v1/players", json.dumps({"name": name})), 201, "POST /v1/players")
    return player["id"], player["token"]


def new_game(c, body, token=None):
    """POST /v1/games, retried while every solver slot is busy (503)."""
    for _ in range(500):
        status, data = c.post("/v1/games", body, token)
        if status != 503:
            break
        time.sleep(0.005)
    return expect(status, data, 201, "POST /v1/games")


def create(port, n, out, players):
    with open(f"{out}/create.json") as f:
        body = f.read()
    with open(f"{out}/board0.json") as f:
        board0 = json.load(f)
    lines = [None] * n
    failed = []

    def worker(k):
        c = Client(port)
        try:
            for i in range(k, n, THREADS):
                owner, token = sign_up(c, f"player {i}") if players else (None, None)
                game = new_game(c, body, token)
                if game["board"] != board0:
                    raise RuntimeError("a game was dealt another board")
                if game.get("owner") != owner:
                    raise RuntimeError(f"a game's owner is {game.get('owner')}, not {owner}")
                lines[i] = game["id"] if token is None else f"{game['id']} {token}"
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
        f.writelines(line + "\n" for line in lines)
    print(f"{time.monotonic() - started:.1f}")


def players(port, out):
    with open(f"{out}/create.json") as f:
        body = f.read()
    with open(f"{out}/moves.txt") as f:
        moves = f.read().splitlines()
    with open(f"{out}/play.txt") as f:
        boards = [json.loads(p)["board"] for p in f.read().splitlines()]
    c = Client(port)
    owner, token = sign_up(c, "owner")
    _, other = sign_up(c, "other")
    game = new_game(c, body, token)
    if game.get("owner") != owner:
        sys.exit(f"a game created with a token is owned by {game.get('owner')}, not its player")
    path = f"/v1/games/{game['id']}/moves"
    for who, bearer, want in (("no token", None, 401), ("another player's token", other, 403)):
        status, data = c.post(path, moves[0], bearer)
        if status != want:
            sys.exit(f"a move on a player's game with {who} answered {status}, not {want}: {data[:300]!r}")
    # Move 0 made now proves the refused ones changed nothing.
    for j, m in enumerate(moves):
        game = expect(*c.post(path, m, token), 200, f"the player's move {j}")
        if j + 1 < len(boards) and game["board"] != boards[j + 1]:
            sys.exit(f"after move {j} the player's board is not /v1/play's")
    if game["status"] != "won":
        sys.exit(f"the player's game ended {game['status']}, not won")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "deal":
        deal(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) in (5, 6) and sys.argv[1] == "create" and sys.argv[5:] in ([], ["--players"]):
        create(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:] == ["--players"])
    elif len(sys.argv) == 4 and sys.argv[1] == "players":
        players(int(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
