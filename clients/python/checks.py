"""The check runner of the Python client's program (main.py, players.py).

A check is a function run at once by the `check` decorator, printing
`ok: name: what it found` or `FAILED: name: why`; `parsed` compares an
answer whole, as sent and as parsed into its generated model, and `finish`
ends the program, exiting 1 when any check failed.
"""

import json
import re
import sys
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, TypeVar

from linkpath_client.types import Response

failures: list[str] = []


class Model(Protocol):
    """What every generated model has: it writes itself back as JSON."""

    def to_dict(self) -> dict[str, Any]: ...


M = TypeVar("M", bound=Model)

# A time as the server writes it (`...Z`) or as a model writes its
# `datetime` back (`isoformat()`, `+00:00`).
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")


def check(name: str) -> Callable[[Callable[[], str]], None]:
    """Runs the decorated function at once as the check `name`."""

    def run(body: Callable[[], str]) -> None:
        try:
            print(f"ok: {name}: {body()}")
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the next check runs
            failures.append(name)
            print(f"FAILED: {name}: {type(error).__name__}: {error}")

    return run


def instants(value: Any) -> Any:
    """`value` with every time in it read as a `datetime`: a model holds a
    `format: date-time` field as one and writes it back in Python's own
    notation, the same instant in other characters."""
    if isinstance(value, dict):
        return {key: instants(item) for key, item in value.items()}
    if isinstance(value, list):
        return [instants(item) for item in value]
    if isinstance(value, str) and TIME.fullmatch(value):
        return datetime.fromisoformat(value)
    return value


def parsed(
    response: Response[Any], status: int, model: type[M], expected: dict[str, Any], varying: tuple[str, ...] = ()
) -> M:
    """The answer parsed into `model`, after checking it against `expected` as sent and as parsed.

    `varying` names fields that change from run to run (a time): each is
    checked to be a non-negative integer and left out of the comparison.
    Times are compared as characters as sent, as instants as written back."""
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
    assert instants(written) == instants(expected), f"the model writes back {written}"
    return answer


def finish(program: str) -> None:
    """The last line of a program; exits 1 when any check failed."""
    if failures:
        print(f"{program}: {len(failures)} of the checks FAILED: {'; '.join(failures)}")
        sys.exit(1)
    print(f"{program}: every check passed")
