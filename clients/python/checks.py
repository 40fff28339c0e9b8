"""The check runner of the Python client's program (main.py, players.py).

A check is a function run at once by the `check` decorator, printing
`ok: name: what it found` or `FAILED: name: why`; `parsed` compares an
answer whole, as sent and as parsed into its generated model, and `finish`
ends the program, exiting 1 when any check failed.
"""

import json
import sys
from collections.abc import Callable
from typing import Any

from linkpath_client.types import Response

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


def finish(program: str) -> None:
    """The last line of a program; exits 1 when any check failed."""
    if failures:
        print(f"{program}: {len(failures)} of the checks FAILED: {'; '.join(failures)}")
        sys.exit(1)
    print(f"{program}: every check passed")
