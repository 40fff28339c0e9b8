"""A Python client of linkpath as its users build one.

The package `linkpath_client` is generated from openapi.yaml by
openapi-python-client (pinned in requirements.txt) and installed into the
venv. Every JSON route of the README is called through it with the README's
own request bodies (or openapi.yaml's examples where the README shows none);
every answer must parse into the generated models, and is compared whole
with its documented value twice: as the JSON sent, and as the parsed model
written back (so no field was dropped or changed by the models). Fields are
then read through the models.

It also plays a whole held game through it: a seeded deal, an illegal move
(409, nothing changed), a hint, a move taken back and made again, the rest
of /v1/clear's sequence to `won`, every answer compared whole (its clock
taken as it came, the score computed from it), the event stream read
alongside (one event a change), a move on the won game (409), and the
game's replay played again by /v1/replays.

And the day's deal: fetched for a small board (its seed computed here as
docs/games.md derives it), a game made from it and won, and the win read
back, whole, from the deal's leaderboard. Both games are a player's: Ann
signs up first and creates them with her token (players.py), then her win
is found, she is renamed, given a new token and erased. Last, two players
race a match to a winner (players.py).

    python clients/python/main.py http://127.0.0.1:8080 docs/render.svg

Prints one line a check and exits 1 when any failed.
"""

import hashlib
import json
import math
import re
import sys
import threading
from pathlib import Path
from typing import Any

from linkpath_client import Client
from linkpath_client.api.game import clear, deal, moves, play, shuffle
from linkpath_client.api.games import (
    check_replay,
    create_game,
    game_events,
    get_daily_deal,
    get_game,
    get_leaderboard,
    get_replay,
    hint,
    move_tiles,
    redo,
    undo,
)
from linkpath_client.api.operations import healthz, readyz
from linkpath_client.api.solve import render, solve
from linkpath_client.models import (
    ClearRequest,
    ClearResponse,
    ClearOutcome,
    Connected,
    CreateGame,
    DailyDeal,
    DealRequest,
    DealResponse,
    ErrorBody,
    ErrorCode,
    GameStatus,
    GameView,
    Health,
    Leaderboard,
    MoveRequest,
    MovesRequest,
    MovesResponse,
    NotConnected,
    PlayRequest,
    PlayResponse,
    Preset,
    Query,
    Ready,
    Replay,
    ReplayCheck,
    RulesObject,
    ShuffleRequest,
    ShuffleResponse,
    SolveRequest,
    SolveResponse,
)
from linkpath_client.types import UNSET, Response, Unset

from checks import check, finish, instants, parsed
from players import after_win, race, sign_up_ann

base_url, render_svg_path = sys.argv[1:3]
# Statuses are checked by each check itself, the 200 of /v1/render included
# (an SVG, which the generated client leaves unparsed).
client = Client(base_url=base_url)


def point(p: list[int]) -> str:
    x, y = p
    return f"[{x}, {y}]"


def describe_board(board: list[str] | list[list[int]]) -> str:
    rows = [row if isinstance(row, str) else ",".join(map(str, row)) for row in board]
    return f"{len(rows)} rows [{' | '.join(rows)}]"


def describe_results(answer: SolveResponse) -> str:
    parts = []
    for result in answer.results:
        if isinstance(result, Connected):
            corners = "no path asked" if isinstance(result.path, Unset) else " ".join(map(point, result.path))
            parts.append(f"{result.segments} segments ({corners})")
        else:
            assert isinstance(result, NotConnected)
            parts.append(result.reason.value)
    return "; ".join(parts)


def describe_moves(plain_moves: Any) -> str:
    if plain_moves is UNSET:
        return "no moves"
    first = plain_moves[0]
    return f"{len(plain_moves)} moves, first {point(first.from_)}-{point(first.to)}"


# ---------------------------------------------------------------------------
# /v1/solve and /v1/render

README_BOARD = ["XXXXX", "X   X", "XXX X", " XXX "]


@check("POST /v1/solve, the README's example")
def _() -> str:
    # The README's body, built from the generated models.
    body = SolveRequest(
        board=README_BOARD,
        rules=Preset.MAHJONG,
        queries=[Query(from_=[1, 2], to=[4, 2]), Query(from_=[0, 2], to=[3, 3])],
    )
    answer = parsed(
        solve.sync_detailed(client=client, body=body),
        200,
        SolveResponse,
        {
            "results": [
                {"connected": True, "segments": 4, "path": [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]]},
                {"connected": True, "segments": 3, "path": [[0, 2], [0, 4], [3, 4], [3, 3]]},
            ]
        },
    )
    return describe_results(answer)


@check("POST /v1/solve, a rules object")
def _() -> str:
    body = SolveRequest(
        board=README_BOARD,
        rules=RulesObject(preset=Preset.MAHJONG, outside=False),
        queries=[Query(from_=[1, 2], to=[4, 2]), Query(from_=[0, 2], to=[3, 3])],
    )
    answer = parsed(
        solve.sync_detailed(client=client, body=body),
        200,
        SolveResponse,
        {
            "results": [
                {"connected": True, "segments": 4, "path": [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]]},
                {"connected": False, "reason": "no_path"},
            ]
        },
    )
    return describe_results(answer)


@check("POST /v1/solve, every reason, include_path false")
def _() -> str:
    body = SolveRequest.from_dict(
        {
            "board": ["X X", "XYX"],
            "rules": "lianliankan",
            "queries": [
                {"from": [0, 0], "to": [0, 0]},
                {"from": [0, 0], "to": [1, 0]},
                {"from": [0, 0], "to": [1, 1]},
                {"from": [0, 0], "to": [2, 0]},
            ],
            "include_path": False,
        }
    )
    answer = parsed(
        solve.sync_detailed(client=client, body=body),
        200,
        SolveResponse,
        {
            "results": [
                {"connected": False, "reason": "same_cell"},
                {"connected": False, "reason": "not_a_tile"},
                {"connected": False, "reason": "type_mismatch"},
                {"connected": True, "segments": 1},
            ]
        },
    )
    return describe_results(answer)


@check("POST /v1/solve, number rows (curling)")
def _() -> str:
    body = SolveRequest.from_dict(
        {
            "board": [[0, 0, 1], [0, 1, 0]],
            "rules": "curling",
            "queries": [
                {"from": [0, 0], "to": [2, 0]},
                {"from": [0, 0], "to": [0, 1]},
                {"from": [0, 0], "to": [2, 1]},
            ],
        }
    )
    answer = parsed(
        solve.sync_detailed(client=client, body=body),
        200,
        SolveResponse,
        {
            "results": [
                {"connected": False, "reason": "blocked"},
                {"connected": True, "segments": 1, "path": [[0, 0], [0, 1]]},
                {"connected": False, "reason": "no_path"},
            ]
        },
    )
    return describe_results(answer)


@check("POST /v1/solve, the README's ragged board: 422 parsed into ErrorBody")
def _() -> str:
    body = SolveRequest.from_dict(
        {"board": ["XXXXX", "X  X", "XXX X", " XXX "], "queries": [{"from": [1, 2], "to": [4, 2]}]}
    )
    answer = parsed(
        solve.sync_detailed(client=client, body=body),
        422,
        ErrorBody,
        {"error": {"code": "invalid_board", "message": "row 1 has 4 cells, expected 5", "field": "board[1]"}},
    )
    assert answer.error.code is ErrorCode.INVALID_BOARD
    return f"422 {answer.error.code.value} at {answer.error.field}: {answer.error.message}"


@check("POST /v1/render, docs/render.json: the SVG of docs/render.svg")
def _() -> str:
    body = SolveRequest.from_dict(json.loads(Path(render_svg_path).with_suffix(".json").read_text()))
    response = render.sync_detailed(client=client, body=body)
    assert response.status_code == 200, f"status {response.status_code}: {response.content!r}"
    assert response.headers["content-type"] == "image/svg+xml", response.headers["content-type"]
    svg = response.content.decode()
    assert svg == Path(render_svg_path).read_text(), "the picture differs from the file"
    return f"{response.headers['content-type']}, {len(svg)} bytes, equal to {render_svg_path}"


# ---------------------------------------------------------------------------
# The game routes

DEALT = ["BCDFFB", "DCCFED", "DEBBEE", "AACFAA"]


@check("POST /v1/moves, the README's hint")
def _() -> str:
    body = MovesRequest.from_dict({"board": DEALT, "rules": "shisen-sho", "limit": 1})
    answer = parsed(
        moves.sync_detailed(client=client, body=body),
        200,
        MovesResponse,
        {
            "moves": [{"from": [0, 0], "to": [5, 0], "segments": 3, "path": [[0, 0], [0, -1], [5, -1], [5, 0]]}],
            "stuck": False,
            "cleared": False,
            "truncated": False,
        },
    )
    hint = answer.moves[0]
    assert not isinstance(hint.path, Unset), "no path"
    flags = f"stuck {answer.stuck}, cleared {answer.cleared}, truncated {answer.truncated}"
    return f"{point(hint.from_)}-{point(hint.to)} in {hint.segments} via {' '.join(map(point, hint.path))}; {flags}"


@check("POST /v1/moves, the README's moves of one tile")
def _() -> str:
    body = MovesRequest.from_dict({"board": DEALT, "rules": "shisen-sho", "from": [3, 0]})
    answer = parsed(
        moves.sync_detailed(client=client, body=body),
        200,
        MovesResponse,
        {
            "moves": [
                {"from": [3, 0], "to": [4, 0], "segments": 1, "path": [[3, 0], [4, 0]]},
                {"from": [3, 0], "to": [3, 1], "segments": 1, "path": [[3, 0], [3, 1]]},
            ],
            "stuck": False,
            "cleared": False,
            "truncated": False,
        },
    )
    return f"{len(answer.moves)} partners: {' '.join(point(m.to) for m in answer.moves)}"


@check("POST /v1/play, the README's example")
def _() -> str:
    body = PlayRequest.from_dict(
        {
            "board": DEALT,
            "rules": "shisen-sho",
            "gravity": "down",
            "moves": [{"from": [0, 3], "to": [1, 3]}, {"from": [3, 2], "to": [2, 2]}, {"from": [0, 0], "to": [1, 0]}],
        }
    )
    answer = parsed(
        play.sync_detailed(client=client, body=body),
        200,
        PlayResponse,
        {
            "board": ["....FB", "BCDFED", "DCCFEE", "DECFAA"],
            "steps": [
                {
                    "from": [0, 3],
                    "to": [1, 3],
                    "segments": 1,
                    "path": [[0, 3], [1, 3]],
                    "moved": [
                        {"from": [0, 0], "to": [0, 1]},
                        {"from": [1, 0], "to": [1, 1]},
                        {"from": [0, 1], "to": [0, 2]},
                        {"from": [1, 1], "to": [1, 2]},
                        {"from": [0, 2], "to": [0, 3]},
                        {"from": [1, 2], "to": [1, 3]},
                    ],
                },
                {
                    "from": [3, 2],
                    "to": [2, 2],
                    "segments": 1,
                    "path": [[3, 2], [2, 2]],
                    "moved": [
                        {"from": [2, 0], "to": [2, 1]},
                        {"from": [3, 0], "to": [3, 1]},
                        {"from": [2, 1], "to": [2, 2]},
                        {"from": [3, 1], "to": [3, 2]},
                    ],
                },
            ],
            "cleared": False,
            "stuck": False,
            "moves_open": 11,
            "stopped_at": {"index": 2, "from": [0, 0], "to": [1, 0], "reason": "not_a_tile"},
        },
    )
    stop = answer.stopped_at
    assert not isinstance(stop, Unset), "not stopped"
    stopped = f"stopped at {stop.index} ({point(stop.from_)}-{point(stop.to)}: {stop.reason.value})"
    return (
        f"{len(answer.steps)} steps, {stopped}, cleared {answer.cleared}, stuck {answer.stuck}, "
        f"board {describe_board(answer.board)}"
    )


@check("POST /v1/clear, a board that can be cleared")
def _() -> str:
    body = ClearRequest.from_dict({"board": ["ABCA", "BB.C", "A.BA"], "rules": "shisen-sho"})
    answer = parsed(
        clear.sync_detailed(client=client, body=body),
        200,
        ClearResponse,
        {
            "outcome": "solvable",
            "moves": [
                {"from": [2, 0], "to": [3, 1]},
                {"from": [0, 0], "to": [3, 0]},
                {"from": [0, 2], "to": [3, 2]},
                {"from": [1, 0], "to": [0, 1]},
                {"from": [1, 1], "to": [2, 2]},
            ],
            "states": 5,
            "budget_ms": 1000,
        },
        varying=("elapsed_ms",),
    )
    assert answer.outcome is ClearOutcome.SOLVABLE
    return f"{answer.outcome.value}, {describe_moves(answer.moves)}, {answer.states} states"


@check("POST /v1/clear, two crossed pairs")
def _() -> str:
    body = ClearRequest.from_dict({"board": ["AB", "BA"], "rules": "lianliankan"})
    answer = parsed(
        clear.sync_detailed(client=client, body=body),
        200,
        ClearResponse,
        {"outcome": "unsolvable", "states": 1, "budget_ms": 1000},
        varying=("elapsed_ms",),
    )
    assert answer.outcome is ClearOutcome.UNSOLVABLE
    return f"{answer.outcome.value}, {describe_moves(answer.moves)}, {answer.states} states"


@check("POST /v1/clear, the README's odd type")
def _() -> str:
    body = ClearRequest.from_dict({"board": ["BCDFFB", "DCCFED", "DEBBEE", "AACFA."], "rules": "shisen-sho"})
    answer = parsed(
        clear.sync_detailed(client=client, body=body),
        200,
        ClearResponse,
        {"outcome": "unsolvable", "states": 0, "reason": "odd_type", "tile": "A", "count": 3, "budget_ms": 1000},
        varying=("elapsed_ms",),
    )
    assert answer.outcome is ClearOutcome.UNSOLVABLE
    assert not isinstance(answer.reason, Unset), "no reason"
    return f"{answer.outcome.value}, {answer.reason.value} {answer.tile} x {answer.count}"


@check("POST /v1/deal, the README's example")
def _() -> str:
    body = DealRequest.from_dict(
        {"width": 6, "height": 4, "types": 6, "copies": 4, "rules": "shisen-sho", "gravity": "down", "seed": 42}
    )
    answer = parsed(
        deal.sync_detailed(client=client, body=body),
        200,
        DealResponse,
        {
            "board": DEALT,
            "moves": [
                {"from": [0, 3], "to": [4, 3]},
                {"from": [3, 2], "to": [2, 2]},
                {"from": [5, 0], "to": [0, 1]},
                {"from": [1, 3], "to": [5, 3]},
                {"from": [5, 2], "to": [2, 1]},
                {"from": [1, 3], "to": [4, 3]},
                {"from": [3, 3], "to": [3, 2]},
                {"from": [2, 3], "to": [1, 3]},
                {"from": [4, 2], "to": [3, 3]},
                {"from": [1, 3], "to": [2, 3]},
                {"from": [4, 3], "to": [5, 3]},
                {"from": [0, 2], "to": [0, 3]},
            ],
            "stats": {"moves_open": 15, "playouts": 32, "playouts_cleared": 32},
        },
    )
    return f"board {describe_board(answer.board)}, {describe_moves(answer.moves)}"


@check("POST /v1/deal, the README's Mahjong faces")
def _() -> str:
    body = DealRequest.from_dict(
        {
            "width": 6,
            "height": 2,
            "types": 3,
            "rules": "shisen-sho",
            "seed": 3,
            "alphabet": "🀀🀁🀂",
            "include_moves": False,
        }
    )
    answer = parsed(
        deal.sync_detailed(client=client, body=body),
        200,
        DealResponse,
        {"board": ["🀁🀁🀁🀀🀀🀁", "🀀🀂🀂🀂🀀🀂"], "stats": {"moves_open": 15, "playouts": 32, "playouts_cleared": 32}},
    )
    return f"board {describe_board(answer.board)}, {describe_moves(answer.moves)}"


@check("POST /v1/deal, number rows (openapi.yaml's small deal, encoding numbers)")
def _() -> str:
    body = DealRequest.from_dict(
        {"width": 4, "height": 3, "types": 3, "rules": "shisen-sho", "seed": 7, "encoding": "numbers"}
    )
    # The text deal is ["CBAA", "BABC", "CCBA"]: A, B, C are types 1, 2, 3.
    answer = parsed(
        deal.sync_detailed(client=client, body=body),
        200,
        DealResponse,
        {
            "board": [[3, 2, 1, 1], [2, 1, 2, 3], [3, 3, 2, 1]],
            "moves": [
                {"from": [0, 2], "to": [0, 0]},
                {"from": [2, 2], "to": [2, 1]},
                {"from": [3, 1], "to": [1, 2]},
                {"from": [3, 2], "to": [3, 0]},
                {"from": [1, 0], "to": [0, 1]},
                {"from": [1, 1], "to": [2, 0]},
            ],
            "stats": {"moves_open": 5, "playouts": 32, "playouts_cleared": 26},
        },
    )
    return f"board {describe_board(answer.board)}, {describe_moves(answer.moves)}"


@check("POST /v1/deal, onto a layout (openapi.yaml's pyramid)")
def _() -> str:
    body = DealRequest.from_dict(
        {
            "layout": ["..##..", ".####.", "######"],
            "types": 3,
            "rules": "shisen-sho",
            "gravity": "down",
            "settle": True,
            "seed": 2,
        }
    )
    answer = parsed(
        deal.sync_detailed(client=client, body=body),
        200,
        DealResponse,
        {
            "board": ["..BC..", ".BAAB.", "CACCBA"],
            "moves": [
                {"from": [3, 2], "to": [2, 2]},
                {"from": [0, 2], "to": [3, 1]},
                {"from": [2, 2], "to": [3, 2]},
                {"from": [4, 1], "to": [1, 1]},
                {"from": [1, 2], "to": [5, 2]},
                {"from": [4, 2], "to": [2, 2]},
            ],
            "stats": {"moves_open": 10, "playouts": 32, "playouts_cleared": 26},
        },
    )
    return f"board {describe_board(answer.board)}, {describe_moves(answer.moves)}"


@check("POST /v1/shuffle, so that a move exists")
def _() -> str:
    body = ShuffleRequest.from_dict({"board": ["AB", "BA"], "rules": "lianliankan", "seed": 1})
    answer = parsed(
        shuffle.sync_detailed(client=client, body=body),
        200,
        ShuffleResponse,
        {
            "board": ["AB", "AB"],
            "moved": [{"from": [0, 1], "to": [1, 1]}, {"from": [1, 1], "to": [0, 1]}],
        },
    )
    return f"board {describe_board(answer.board)}, {describe_moves(answer.moves)}"


@check("POST /v1/shuffle, so that the board can be cleared")
def _() -> str:
    body = ShuffleRequest.from_dict(
        {"board": ["ABCA", "BB.C", "A.BA"], "rules": "lianliankan", "seed": 3, "solvable": True}
    )
    answer = parsed(
        shuffle.sync_detailed(client=client, body=body),
        200,
        ShuffleResponse,
        {
            "board": ["BAAA", "CB.C", "B.AB"],
            "moves": [
                {"from": [1, 1], "to": [0, 2]},
                {"from": [3, 0], "to": [2, 0]},
                {"from": [1, 0], "to": [2, 2]},
                {"from": [0, 1], "to": [3, 1]},
                {"from": [3, 2], "to": [0, 0]},
            ],
            "moved": [
                {"from": [0, 0], "to": [1, 0]},
                {"from": [1, 0], "to": [0, 0]},
                {"from": [2, 0], "to": [0, 1]},
                {"from": [3, 0], "to": [2, 0]},
                {"from": [0, 1], "to": [1, 1]},
                {"from": [1, 1], "to": [0, 2]},
                {"from": [0, 2], "to": [3, 0]},
                {"from": [2, 2], "to": [3, 2]},
                {"from": [3, 2], "to": [2, 2]},
            ],
        },
    )
    return f"board {describe_board(answer.board)}, {describe_moves(answer.moves)}"


# ---------------------------------------------------------------------------
# A held game, played to the end: created, an illegal move, a hint, a move
# taken back and made again, the rest of /v1/clear's sequence to `won`, all
# watched on the event stream; then a move on the won game, and its replay
# played again by /v1/replays.

HELD_SETTINGS = {
    "width": 4,
    "height": 4,
    "encoding": "text",
    "types": 4,
    "seed": 1,
    "rules": "shisen-sho",
    "gravity": "none",
    "settle": False,
}
HELD_DEALT = ["ADCB", "ACAB", "DDAB", "CCDB"]
# /v1/clear's sequence for the dealt board: each move, the path the game
# answers in `last`, the board after it and the moves open on it (no
# gravity: nothing falls).
HELD_MOVES = [
    ({"from": [0, 0], "to": [0, 1]}, [[0, 0], [0, 1]], [".DCB", ".CAB", "DDAB", "CCDB"], 11),
    ({"from": [2, 1], "to": [2, 2]}, [[2, 1], [2, 2]], [".DCB", ".C.B", "DD.B", "CCDB"], 12),
    ({"from": [3, 0], "to": [3, 1]}, [[3, 0], [3, 1]], [".DC.", ".C..", "DD.B", "CCDB"], 7),
    ({"from": [3, 2], "to": [3, 3]}, [[3, 2], [3, 3]], [".DC.", ".C..", "DD..", "CCD."], 6),
    ({"from": [2, 0], "to": [1, 1]}, [[2, 0], [2, 1], [1, 1]], [".D..", "....", "DD..", "CCD."], 7),
    ({"from": [0, 3], "to": [1, 3]}, [[0, 3], [1, 3]], [".D..", "....", "DD..", "..D."], 6),
    ({"from": [1, 0], "to": [0, 2]}, [[1, 0], [0, 0], [0, 2]], ["....", "....", ".D..", "..D."], 1),
    ({"from": [1, 2], "to": [2, 3]}, [[1, 2], [2, 2], [2, 3]], ["....", "....", "....", "...."], 0),
]
# The leaderboard of the held game's deal: SHA-256 of its settings
# (docs/games.md), the same on every server.
HELD_LEADERBOARD = "f6dea614901119e8bb587b7b4d0916b7"
NO_ASSISTS = {"hints": 0, "undos": 0, "shuffles": 0}
HINTED = {"hints": 1, "undos": 0, "shuffles": 0}
ASSISTED = {"hints": 1, "undos": 1, "shuffles": 0}
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")

# The game as the program follows it: its id, when it was created, the last
# play time seen; and every answer that changed it, as sent, in order.
held: dict[str, Any] = {"id": "", "created_at": "", "elapsed_ms": 0}
answers: list[dict[str, Any]] = []

# Ann, who creates the held game and the day's game with her token.
ann = sign_up_ann(client, base_url)


def kshisen_score(removed: int, elapsed_ms: int) -> int:
    """docs/games.md's score, in the server's floating-point steps, for a game without gravity."""
    if removed == 0:
        return 0
    seconds = max(elapsed_ms, 1000) / 1000
    return math.floor(removed / seconds / 0.14 * 100 * math.sqrt(removed / 84))


def expected_game(sent: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A game answer expected whole: `state`, the id and settings of the game
    held, and what follows the server's clock (`elapsed_ms`, never going
    back; the times, in RFC 3339) taken as it came, with the score computed
    from it."""
    elapsed = sent["elapsed_ms"]
    assert isinstance(elapsed, int) and elapsed >= held["elapsed_ms"], (
        f"elapsed_ms {elapsed} after {held['elapsed_ms']}"
    )
    held["elapsed_ms"] = elapsed
    for key in ("created_at", "updated_at", "expires_at"):
        assert RFC3339.fullmatch(sent[key]), f"{key} is {sent[key]!r}"
    # The held game takes assists, and no pace floor is set: that is why
    # it is not ranked.
    unranked = {} if state["ranked"] else {"unranked": "assists"}
    return {
        "id": held["id"],
        **state,
        **unranked,
        "owner": ann.id,
        "settings": HELD_SETTINGS,
        "leaderboard": HELD_LEADERBOARD,
        "score": kshisen_score(16 - state["tiles_left"], elapsed),
        "elapsed_ms": elapsed,
        "created_at": held["created_at"] or sent["created_at"],
        "updated_at": sent["updated_at"],
        "expires_at": sent["expires_at"],
    }


def state_of(game: dict[str, Any]) -> dict[str, Any]:
    """What of a game answer does not follow the clock."""
    keys = ("version", "status", "board", "tiles_left", "moves_open", "assists", "ranked", "last")
    return {key: game[key] for key in keys}


def game(response: Response[Any], status: int, state: dict[str, Any]) -> GameView:
    """A game answer, checked by `parsed` against `state` (see expected_game), its `ETag` its version."""
    assert response.status_code == status, f"status {response.status_code}: {response.content!r}"
    sent = json.loads(response.content)
    answer = parsed(response, status, GameView, expected_game(sent, state))
    assert response.headers["etag"] == f'"{answer.version}"', response.headers.get("etag")
    return answer


def after_move(index: int, version: int, action: str, assists: dict[str, int]) -> dict[str, Any]:
    """The game after the `index`th move of the sequence was made (by a move or a redo) as change `version`."""
    move, path, board, moves_open = HELD_MOVES[index]
    # A redo gives the pair's path as the move did.
    last = {"action": action, "version": version, **move, "path": path, "moved": []}
    return {
        "version": version,
        "status": "won" if index == len(HELD_MOVES) - 1 else "playing",
        "board": board,
        "tiles_left": 14 - 2 * index,
        "moves_open": moves_open,
        "assists": assists,
        "ranked": False,
        "last": last,
    }


def describe_game(g: GameView) -> str:
    return (
        f"v{g.version} {g.status.value}, {g.tiles_left} tiles, {g.moves_open} moves open, "
        f"score {g.score}, ranked {g.ranked}"
    )


class EventReader(threading.Thread):
    """The game's event stream, read while the game is played.

    The generated game_events takes a body whole, and this one ends only
    with the game: the stream is read line by line through the generated
    client's own httpx client (its base URL and timeouts), and its events
    split here (blank-line separated fields; `:` lines are keep-alive
    comments)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(daemon=True)
        self.game_id = game_id
        self.started = threading.Event()
        self.head: tuple[int, str] | None = None
        self.events: list[dict[str, str]] = []
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            with client.get_httpx_client().stream("GET", f"/v1/games/{self.game_id}/events") as response:
                self.head = (response.status_code, response.headers["content-type"])
                fields: dict[str, str] = {}
                for line in response.iter_lines():
                    if line.startswith(":"):
                        continue
                    if line:
                        name, _, value = line.partition(":")
                        value = value.removeprefix(" ")
                        fields[name] = f"{fields[name]}\n{value}" if name == "data" and name in fields else value
                        continue
                    if "data" in fields:
                        self.events.append(fields)
                        self.started.set()
                    fields = {}
                assert not fields, f"the stream ended inside an event: {fields}"
        except Exception as error:  # noqa: BLE001 - reported by the check that reads the events
            self.error = error
        finally:
            self.started.set()


events: EventReader | None = None
cleared: list[Any] = []


@check("POST /v1/games, a dealt 4 x 4 Shisen-Sho game, with Ann's token: hers")
def _() -> str:
    body = CreateGame(width=4, height=4, types=4, rules=Preset.SHISEN_SHO, seed=1)
    response = create_game.sync_detailed(client=ann.client, body=body)
    assert response.status_code == 201, f"status {response.status_code}: {response.content!r}"
    sent = json.loads(response.content)
    assert re.fullmatch(r"[0-9a-f]{32}", sent["id"]), sent["id"]
    held["id"] = sent["id"]
    state = {
        "version": 0,
        "status": "playing",
        "board": HELD_DEALT,
        "tiles_left": 16,
        "moves_open": 10,
        "assists": NO_ASSISTS,
        "ranked": True,
        "last": {"action": "create", "version": 0, "moved": []},
    }
    created = game(response, 201, state)
    assert created.elapsed_ms == 0 and created.score == 0
    assert response.headers["etag"] == '"0"'
    assert response.headers["location"] == f"/v1/games/{created.id}"
    held["created_at"] = sent["created_at"]
    answers.append(sent)
    assert not isinstance(created.board, Unset), "no board"
    return f"{describe_game(created)}, board {describe_board(created.board)}"


@check("GET /v1/games/{id}/events, opened before the first action: the whole game first")
def _() -> str:
    global events
    events = EventReader(held["id"])
    events.start()
    # Bounded by the client's read timeout, which ends the reader.
    assert events.started.wait(10), "no event"
    assert events.error is None, f"{type(events.error).__name__}: {events.error}"
    assert events.head == (200, "text/event-stream"), events.head
    first = events.events[0]
    assert (first["event"], first["id"]) == ("game", "0"), first
    sent = json.loads(first["data"])
    assert sent == expected_game(sent, state_of(answers[0])), f"the first event is {sent}"
    # Parsed into the model as any game answer (its times as instants).
    assert instants(GameView.from_dict(sent).to_dict()) == instants(sent)
    return f"event {first['event']}, id {first['id']}, version {sent['version']}, {sent['status']}"


@check("POST /v1/clear on the game's board and rules: the sequence played")
def _() -> str:
    created = GameView.from_dict(answers[0])
    assert not isinstance(created.board, Unset), "no board"
    body = ClearRequest(board=created.board, rules=created.settings.rules)
    answer = parsed(
        clear.sync_detailed(client=client, body=body),
        200,
        ClearResponse,
        {"outcome": "solvable", "moves": [move for move, *_ in HELD_MOVES], "states": 8, "budget_ms": 1000},
        varying=("elapsed_ms",),
    )
    assert not isinstance(answer.moves, Unset), "no moves"
    cleared.extend(answer.moves)
    return f"{answer.outcome.value}, {describe_moves(answer.moves)}"


@check("POST /v1/games/{id}/moves, an illegal move: 409 illegal_move, the version unchanged")
def _() -> str:
    response = move_tiles.sync_detailed(held["id"], client=ann.client, body=MoveRequest(from_=[0, 0], to=[2, 2]))
    refused = parsed(
        response,
        409,
        ErrorBody,
        {
            "error": {
                "code": "illegal_move",
                "message": "the tiles at [0, 0] and [2, 2] cannot be removed: no_path",
                "reason": "no_path",
            }
        },
    )
    assert refused.error.code is ErrorCode.ILLEGAL_MOVE
    now = game(get_game.sync_detailed(held["id"], client=ann.client), 200, state_of(answers[0]))
    return f"409 {refused.error.code.value} ({refused.error.reason}); GET: {describe_game(now)}"


@check("POST /v1/games/{id}/hint: the first move /v1/moves lists")
def _() -> str:
    move, path, *_ = HELD_MOVES[0]
    first = {**move, "segments": 1, "path": path}
    parsed(
        moves.sync_detailed(
            client=client, body=MovesRequest.from_dict({"board": HELD_DEALT, "rules": "shisen-sho", "limit": 1})
        ),
        200,
        MovesResponse,
        {"moves": [first], "stuck": False, "cleared": False, "truncated": False},
    )
    response = hint.sync_detailed(held["id"], client=ann.client)
    hinted = game(
        response,
        200,
        {
            "version": 1,
            "status": "playing",
            "board": HELD_DEALT,
            "tiles_left": 16,
            "moves_open": 10,
            "assists": HINTED,
            "ranked": False,
            "last": {"action": "hint", "version": 1, "moved": [], "hint": first},
        },
    )
    answers.append(json.loads(response.content))
    assert not isinstance(hinted.last, Unset) and not isinstance(hinted.last.hint, Unset), "no hint"
    given = hinted.last.hint
    return f"hint {point(given.from_)}-{point(given.to)}; {describe_game(hinted)}"


@check("POST /v1/games/{id}/moves, the first move of the sequence")
def _() -> str:
    move = cleared[0]
    response = move_tiles.sync_detailed(held["id"], client=ann.client, body=MoveRequest(from_=move.from_, to=move.to))
    moved = game(response, 200, after_move(0, 2, "move", HINTED))
    answers.append(json.loads(response.content))
    return describe_game(moved)


@check("POST /v1/games/{id}/undo: the pair back, an assist")
def _() -> str:
    response = undo.sync_detailed(held["id"], client=ann.client)
    state = {
        "version": 3,
        "status": "playing",
        "board": HELD_DEALT,
        "tiles_left": 16,
        "moves_open": 10,
        "assists": ASSISTED,
        "ranked": False,
        "last": {"action": "undo", "version": 3, **HELD_MOVES[0][0], "path": HELD_MOVES[0][1], "moved": []},
    }
    undone = game(response, 200, state)
    answers.append(json.loads(response.content))
    return describe_game(undone)


@check("POST /v1/games/{id}/redo: the move made again")
def _() -> str:
    response = redo.sync_detailed(held["id"], client=ann.client)
    redone = game(response, 200, after_move(0, 4, "redo", ASSISTED))
    answers.append(json.loads(response.content))
    return describe_game(redone)


@check("POST /v1/games/{id}/moves, the rest of the sequence to won")
def _() -> str:
    assert len(cleared) == len(HELD_MOVES), "no sequence"
    for index, move in enumerate(cleared[1:], start=1):
        response = move_tiles.sync_detailed(held["id"], client=ann.client, body=MoveRequest(from_=move.from_, to=move.to))
        moved = game(response, 200, after_move(index, 4 + index, "move", ASSISTED))
        answers.append(json.loads(response.content))
    assert moved.status is GameStatus.WON
    return describe_game(moved)


@check("GET /v1/games/{id}: won, as the last move answered it")
def _() -> str:
    # The clock stopped with the last move: the game reads as that move left it.
    won = parsed(get_game.sync_detailed(held["id"], client=ann.client), 200, GameView, answers[-1])
    assert (won.status, won.version, won.tiles_left) == (GameStatus.WON, 11, 0)
    assert won.score == kshisen_score(16, won.elapsed_ms)
    return f"{describe_game(won)}, {won.elapsed_ms} ms"


@check("GET /v1/games/{id}/events: one event a change, ids the versions, ending with won")
def _() -> str:
    assert events is not None, "no stream"
    # The stream ends with the game; the client's read timeout bounds the wait.
    events.join(10)
    assert not events.is_alive(), "the stream did not end"
    assert events.error is None, f"{type(events.error).__name__}: {events.error}"
    later = events.events[1:]
    assert [(e["event"], e["id"]) for e in later] == [("game", str(a["version"])) for a in answers[1:]], [
        e["id"] for e in later
    ]
    # Each event is the game as the change answered it.
    assert [json.loads(e["data"]) for e in later] == answers[1:]
    return f"{len(later)} events after the first, ids {' '.join(e['id'] for e in later)}"


@check("GET /v1/games/{id}/events on the won game: the game, then the end")
def _() -> str:
    response = game_events.sync_detailed(held["id"], client=ann.client)
    assert response.status_code == 200, f"status {response.status_code}: {response.content!r}"
    assert response.headers["content-type"] == "text/event-stream", response.headers["content-type"]
    won = answers[-1]
    expected = f"event: game\nid: {won['version']}\ndata: {json.dumps(won, separators=(',', ':'))}\n\n"
    assert response.parsed == expected, response.parsed
    return f"{len(response.parsed)} characters, one event"


@check("POST /v1/games/{id}/moves on the won game: 409 game_over")
def _() -> str:
    response = move_tiles.sync_detailed(held["id"], client=ann.client, body=MoveRequest.from_dict(HELD_MOVES[0][0]))
    refused = parsed(
        response,
        409,
        ErrorBody,
        {
            "error": {
                "code": "game_over",
                "message": "the game is won, expected a game in play: nothing applies to a finished game",
            }
        },
    )
    assert refused.error.code is ErrorCode.GAME_OVER
    won = parsed(get_game.sync_detailed(held["id"], client=ann.client), 200, GameView, answers[-1])
    return f"409 {refused.error.code.value}: {refused.error.message}; GET: {describe_game(won)}"


@check("GET /v1/games/{id}/replay, POST /v1/replays: the same end")
def _() -> str:
    # The times of the actions are those of their answers.
    times = [a["elapsed_ms"] for a in answers[1:]]
    actions = [
        {"action": "hint", "after_ms": times[0]},
        {"action": "move", "after_ms": times[1], **HELD_MOVES[0][0]},
        {"action": "undo", "after_ms": times[2]},
        {"action": "redo", "after_ms": times[3]},
        *({"action": "move", "after_ms": after, **move} for after, (move, *_) in zip(times[4:], HELD_MOVES[1:])),
    ]
    replay = parsed(
        get_replay.sync_detailed(held["id"], client=ann.client),
        200,
        Replay,
        {"settings": HELD_SETTINGS, "board": HELD_DEALT, "actions": actions},
    )
    won = answers[-1]
    checked = parsed(
        check_replay.sync_detailed(client=client, body=replay),
        200,
        ReplayCheck,
        {
            "status": "won",
            "version": 11,
            "score": won["score"],
            "elapsed_ms": won["elapsed_ms"],
            "tiles_left": 0,
            "moves_open": 0,
            "assists": ASSISTED,
            "ranked": False,
            "board": HELD_MOVES[-1][2],
        },
    )
    return f"{len(replay.actions)} actions; replayed: {checked.status.value}, v{checked.version}, score {checked.score}"


# ---------------------------------------------------------------------------
# The day's deal, a game made from it and won, and its leaderboard

DAY = "2026-12-02"
daily: dict[str, Any] = {}
daily_won: dict[str, Any] = {}


@check("GET /v1/daily/{date}: the deal of the documented seed")
def _() -> str:
    settings = "width=6 height=4 types=6 copies=4 difficulty=medium rules=shisen-sho gravity=none settle=false"
    digest = hashlib.sha256(f"linkpath daily {DAY} {settings}".encode()).digest()
    seed = int.from_bytes(digest[:8], "big") >> 11
    game_body = {
        "width": 6,
        "height": 4,
        "types": 6,
        "copies": 4,
        "difficulty": "medium",
        "rules": "shisen-sho",
        "gravity": "none",
        "settle": False,
        "seed": seed,
    }
    # The board is /v1/deal's for the same settings.
    dealt = deal.sync_detailed(client=client, body=DealRequest.from_dict(game_body))
    assert dealt.status_code == 200, f"status {dealt.status_code}: {dealt.content!r}"
    board = json.loads(dealt.content)["board"]
    response = get_daily_deal.sync_detailed(DAY, client=client, width=6, height=4, types=6)
    sent = json.loads(response.content) if response.status_code == 200 else {}
    name = sent.get("leaderboard", "")
    assert re.fullmatch(r"[0-9a-f]{32}", name), name
    answer = parsed(response, 200, DailyDeal, {"date": DAY, "game": game_body, "leaderboard": name, "board": board})
    daily.update(sent)
    return f"seed {answer.game.seed}, leaderboard {answer.leaderboard}, board {describe_board(answer.board)}"


@check("POST /v1/games from the day's deal with Ann's token, won: entered on its leaderboard under her name")
def _() -> str:
    # `player` is a name shown with the game: the board shows the player's own.
    body = CreateGame.from_dict({**daily["game"], "player": "Ada"})
    made = create_game.sync_detailed(client=ann.client, body=body)
    assert made.status_code == 201, f"status {made.status_code}: {made.content!r}"
    won = json.loads(made.content)
    got = (won["leaderboard"], won["player"], won["owner"], won["board"])
    assert got == (daily["leaderboard"], "Ada", ann.id, daily["board"]), won
    sequence = clear.sync_detailed(
        client=client, body=ClearRequest.from_dict({"board": won["board"], "rules": "shisen-sho"})
    )
    assert sequence.status_code == 200, f"status {sequence.status_code}: {sequence.content!r}"
    for step in json.loads(sequence.content)["moves"]:
        moved = move_tiles.sync_detailed(
            won["id"], client=ann.client, body=MoveRequest(from_=step["from"], to=step["to"])
        )
        assert moved.status_code == 200, f"status {moved.status_code}: {moved.content!r}"
        won = json.loads(moved.content)
    assert (won["status"], won["ranked"]) == ("won", True), won
    daily_won.update(won)
    entry = {
        "rank": 1,
        "player": "Ann",
        "player_id": ann.id,
        "game": won["id"],
        "elapsed_ms": won["elapsed_ms"],
        "score": won["score"],
        "won_at": won["updated_at"],
    }
    board = parsed(
        get_leaderboard.sync_detailed(daily["leaderboard"], client=client, limit=5),
        200,
        Leaderboard,
        {"leaderboard": daily["leaderboard"], "entries": [entry]},
    )
    first = board.entries[0]
    return f"{first.player}: rank {first.rank}, {first.elapsed_ms} ms, score {first.score}"


# Her win found, then a new name, a new token and her erasure.
after_win(client, ann, answers[-1] if answers else {}, daily_won)

# Two players race a match to a winner.
race(client, base_url)

# ---------------------------------------------------------------------------
# Health


@check("GET /healthz")
def _() -> str:
    answer = parsed(healthz.sync_detailed(client=client), 200, Health, {"status": "ok"})
    return answer.status


@check("GET /readyz")
def _() -> str:
    answer = parsed(readyz.sync_detailed(client=client), 200, Ready, {"status": "ready"})
    return answer.status


finish("python client")
