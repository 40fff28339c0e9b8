"""A Python client of linkpath as its users build one.

The package `linkpath_client` is generated from openapi.yaml by
openapi-python-client (pinned in requirements.txt) and installed into the
venv. Every JSON route of the README is called through it with the README's
own request bodies (or openapi.yaml's examples where the README shows none);
every answer must parse into the generated models, and is compared whole
with its documented value twice: as the JSON sent, and as the parsed model
written back (so no field was dropped or changed by the models). Fields are
then read through the models.

    python clients/python/main.py http://127.0.0.1:8080 docs/render.svg

Prints one line a check and exits 1 when any failed.
"""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from linkpath_client import Client
from linkpath_client.api.game import clear, deal, moves, play, shuffle
from linkpath_client.api.operations import healthz, readyz
from linkpath_client.api.solve import render, solve
from linkpath_client.models import (
    ClearRequest,
    ClearResponse,
    ClearOutcome,
    Connected,
    DealRequest,
    DealResponse,
    Error,
    ErrorCode,
    Health,
    MovesRequest,
    MovesResponse,
    NotConnected,
    PlayRequest,
    PlayResponse,
    Preset,
    Query,
    Ready,
    RulesObject,
    ShuffleRequest,
    ShuffleResponse,
    SolveRequest,
    SolveResponse,
)
from linkpath_client.types import UNSET, Response

base_url, render_svg_path = sys.argv[1:3]
# Statuses are checked by each check itself, the 200 of /v1/render included
# (an SVG, which the generated client leaves unparsed).
client = Client(base_url=base_url)
failures: list[str] = []


def check(name: str) -> Callable[[Callable[[], str]], None]:
    """Runs the decorated function at once as the check `name`."""

    def run(body: Callable[[], str]) -> None:
        try:
            print(f"ok: {name}: {body()}")
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next check runs
            failures.append(name)
            print(f"FAILED: {name}: {type(error).__name__}: {error}")

    return run


def parsed(
    response: Response[Any], status: int, model: type, expected: dict[str, Any], varying: tuple[str, ...] = ()
) -> Any:
    """The answer parsed into `model`, after checking it against `expected` as sent and as parsed.

    `varying` names fields that change from run to run (a time): each is
    checked to be a non-negative integer and left out of the comparison."""
    assert response.status_code == status, f"status {response.status_code}: {response.content!r}"
    assert response.headers["content-type"] == "application/json", response.headers["content-type"]
    sent = json.loads(response.content)
    for key in varying:
        value = sent.pop(key)
        assert isinstance(value, int) and value >= 0, f"{key} is {value!r}, expected a non-negative integer"
    assert sent == expected, f"answer {sent}, expected {expected}"
    answer = response.parsed
    assert isinstance(answer, model), f"parsed as {type(answer).__name__}, expected {model.__name__}"
    written = answer.to_dict()
    for key in varying:
        written.pop(key)
    assert written == expected, f"the model writes back {written}"
    return answer


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
            corners = "no path asked" if result.path is UNSET else " ".join(map(point, result.path))
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


@check("POST /v1/solve, the README's ragged board: 422 parsed into Error")
def _() -> str:
    body = SolveRequest.from_dict(
        {"board": ["XXXXX", "X  X", "XXX X", " XXX "], "queries": [{"from": [1, 2], "to": [4, 2]}]}
    )
    answer = parsed(
        solve.sync_detailed(client=client, body=body),
        422,
        Error,
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
# Health


@check("GET /healthz")
def _() -> str:
    answer = parsed(healthz.sync_detailed(client=client), 200, Health, {"status": "ok"})
    return answer.status


@check("GET /readyz")
def _() -> str:
    answer = parsed(readyz.sync_detailed(client=client), 200, Ready, {"status": "ready"})
    return answer.status


if failures:
    print(f"python client: {len(failures)} of the checks FAILED: {'; '.join(failures)}")
    sys.exit(1)
print("python client: every check passed")
