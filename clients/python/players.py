"""The player's part of the Python client's program (main.py).

Ann signs up and reads herself back with her token; main.py plays her
games with it; then her win is found on its leaderboard (`around=me` too)
and in her list of games, she is renamed, given a new token (the old one
then 401) and erased (her token 401, her entry gone), every answer compared
whole with docs/players.md's, its random parts checked for their shape.
And a match (`race`): two players sign up and race on one deal to a winner.

openapi-python-client sends a token through its `AuthenticatedClient`
(`token=`, written `Authorization: Bearer <token>`); `Player.client` makes
one with the player's token of the moment.
"""

import json
import re
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol, TypeVar

from linkpath_client import AuthenticatedClient, Client
from linkpath_client.api.game import clear
from linkpath_client.api.games import check_replay, get_game, get_leaderboard, get_replay, move_tiles
from linkpath_client.api.matches import create_match, get_match, join_match
from linkpath_client.api.players import erase_me, get_me, get_player_games, new_token, rename_me, sign_up
from linkpath_client.models import (
    ClearRequest,
    CreateMatch,
    ErrorBody,
    Leaderboard,
    MatchView,
    MoveRequest,
    PlayerGames,
    PlayerName,
    PlayerView,
    Replay,
    ReplayCheck,
    SignedUp,
)
from linkpath_client.types import Response

from checks import check, parsed

NAME = "Ann"
NEW_NAME = "Ann Lee"
TOKEN = re.compile(r"lpp_[0-9a-f]{64}")
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
# The race: its two players (the creator, then the one who joins), the body
# of `POST /v1/matches` (a deal /v1/clear clears), the pairs the loser
# clears before the winner clears the board, a new player's rating.
RACERS = ("Ray", "Sam")
RACE: dict[str, Any] = {"game": {"width": 6, "height": 4, "types": 6, "rules": "shisen-sho", "seed": 3}, "seats": 2}
LOSER_PAIRS = 2
FIRST_RATING = {"rating": 1500, "deviation": 350, "volatility": 0.06}
UNKNOWN_TOKEN = {
    "error": {
        "code": "unauthorized",
        "message": "the player's token is not known: it was replaced by a new one, or its player erased or expired",
    }
}


@dataclass
class Player:
    """The player as the program follows it: what its sign-up answered, the token replaced by each new one."""

    base_url: str
    id: str = ""
    name: str = ""
    created_at: str = ""
    token: str = ""

    @property
    def client(self) -> AuthenticatedClient:
        """A client that sends the player's token of the moment."""
        return AuthenticatedClient(base_url=self.base_url, token=self.token)

    def view(self) -> dict[str, str]:
        """The player as `GET` and `PATCH /v1/players/me` answer it."""
        return {"id": self.id, "name": self.name, "created_at": self.created_at}


def refused(response: Response[Any]) -> str:
    """A 401 for a token the server does not know, compared whole."""
    parsed(response, 401, ErrorBody, UNKNOWN_TOKEN)
    return "401 unauthorized"


def sign_up_ann(client: Client, base_url: str) -> Player:
    """Ann signs up and reads herself back with her token."""
    player = Player(base_url)

    @check("POST /v1/players: Ann signed up, her token shown once")
    def _() -> str:
        response = sign_up.sync_detailed(client=client, body=PlayerName(name=NAME))
        sent = response.parsed
        assert isinstance(sent, SignedUp), f"status {response.status_code}: {response.content!r}"
        assert re.fullmatch(r"[0-9a-f]{32}", sent.id), sent.id
        assert TOKEN.fullmatch(sent.token), sent.token
        # The time as sent, and as the model holds it: a `datetime` in UTC.
        created_at = json.loads(response.content)["created_at"]
        assert RFC3339.fullmatch(created_at), created_at
        assert sent.created_at == datetime.fromisoformat(created_at), sent.created_at
        assert sent.created_at.utcoffset() == timedelta(0), sent.created_at
        expected = {"id": sent.id, "name": NAME, "created_at": created_at, "token": sent.token}
        parsed(response, 201, SignedUp, expected)
        assert response.headers["cache-control"] == "no-store", response.headers.get("cache-control")
        player.id, player.name, player.created_at, player.token = sent.id, sent.name, created_at, sent.token
        return f"{sent.name}, id {sent.id}, a token of {len(sent.token)} characters"

    @check("GET /v1/players/me with her token (AuthenticatedClient)")
    def _() -> str:
        me = parsed(get_me.sync_detailed(client=player.client), 200, PlayerView, player.view())
        return f"{me.name}, created {me.created_at.isoformat()}"

    return player


def summary(game: dict[str, Any]) -> dict[str, Any]:
    """A game in `GET /v1/players/{id}/games`: its summary, with its replay's link."""
    keys = ("id", "status", "score", "elapsed_ms", "tiles_left", "ranked", "leaderboard", "created_at", "updated_at")
    return {**{key: game[key] for key in keys if key in game}, "replay": f"/v1/games/{game['id']}/replay"}


def after_win(client: Client, player: Player, held: dict[str, Any], won: dict[str, Any]) -> None:
    """After main.py played `held` and won `won` (a ranked game of the day's deal) with Ann's token."""
    name = won.get("leaderboard", "")

    def entries() -> dict[str, Any]:
        entry = {
            "rank": 1,
            "player": player.name,
            "player_id": player.id,
            "game": won["id"],
            "elapsed_ms": won["elapsed_ms"],
            "score": won["score"],
            "won_at": won["updated_at"],
        }
        return {"leaderboard": name, "entries": [entry]}

    @check("GET /v1/leaderboards/{name}?around=me: her entry, with her token")
    def _() -> str:
        response = get_leaderboard.sync_detailed(name, client=player.client, around="me")
        first = parsed(response, 200, Leaderboard, entries()).entries[0]
        return f"{first.player} ({first.player_id}): rank {first.rank}, game {first.game}"

    @check("GET /v1/players/{id}/games and /v1/players/me/games: her two games, newest first")
    def _() -> str:
        expected = {"games": [summary(won), summary(held)]}
        by_id = parsed(get_player_games.sync_detailed(player.id, client=client), 200, PlayerGames, expected)
        parsed(get_player_games.sync_detailed("me", client=player.client), 200, PlayerGames, expected)
        return ", ".join(f"{g.status.value} (ranked {g.ranked})" for g in by_id.games)

    @check("PATCH /v1/players/me: renamed, the leaderboard shows the new name")
    def _() -> str:
        response = rename_me.sync_detailed(client=player.client, body=PlayerName(name=NEW_NAME))
        player.name = NEW_NAME
        renamed = parsed(response, 200, PlayerView, player.view())
        parsed(get_leaderboard.sync_detailed(name, client=client), 200, Leaderboard, entries())
        return f"{renamed.name}, on the board as {NEW_NAME}"

    @check("POST /v1/players/me/token: a new token, the old one then 401")
    def _() -> str:
        old = player.client
        response = new_token.sync_detailed(client=old)
        sent = response.parsed
        assert isinstance(sent, SignedUp), f"status {response.status_code}: {response.content!r}"
        assert TOKEN.fullmatch(sent.token) and sent.token != player.token, sent.token
        parsed(response, 201, SignedUp, {**player.view(), "token": sent.token})
        assert response.headers["cache-control"] == "no-store", response.headers.get("cache-control")
        player.token = sent.token
        before = refused(get_me.sync_detailed(client=old))
        parsed(get_me.sync_detailed(client=player.client), 200, PlayerView, player.view())
        return f"the old token: {before}; the new one: 200"

    @check("DELETE /v1/players/me: 204, her token then 401, her entry gone")
    def _() -> str:
        erased = erase_me.sync_detailed(client=player.client)
        assert erased.status_code == 204, f"status {erased.status_code}: {erased.content!r}"
        assert erased.content == b"", erased.content
        after = refused(get_me.sync_detailed(client=player.client))
        parsed(get_leaderboard.sync_detailed(name, client=client), 200, Leaderboard, {"leaderboard": name, "entries": []})
        return f"204; her token: {after}; the board: no entries"


class Model(Protocol):
    """A generated model: it writes itself back as JSON."""

    def to_dict(self) -> dict[str, Any]: ...


M = TypeVar("M", bound=Model)


def answered(response: Response[Any], status: int, model: type[M]) -> dict[str, Any]:
    """The answer's JSON, after checking its status and that it parses into `model` and writes back the same."""
    assert response.status_code == status, f"status {response.status_code}: {response.content!r}"
    model_answer = response.parsed
    assert isinstance(model_answer, model), f"parsed as {type(model_answer).__name__}, expected {model.__name__}"
    answer: dict[str, Any] = json.loads(response.content)
    written = model_answer.to_dict()
    assert written == answer, f"the model writes back {written}"
    return answer


def race(client: Client, base_url: str) -> None:
    """Two players race a match (docs/matches.md).

    Both sign up, the first creates it (a retry under its `Idempotency-Key`
    answered the same), the second joins, the countdown is waited out by
    reading the match until it is `playing`; each plays /v1/clear's sequence
    on their own game, the second two pairs, the first to `won`; the result
    is checked whole and each seat's replay played again by /v1/replays."""
    racers: list[Player] = []
    match: dict[str, Any] = {}
    # Each racer's game as their last move answered it.
    seen: dict[str, dict[str, Any]] = {}

    @check("POST /v1/players twice: the two racers")
    def _() -> str:
        for name in RACERS:
            response = sign_up.sync_detailed(client=client, body=PlayerName(name=name))
            sent = response.parsed
            assert isinstance(sent, SignedUp), f"status {response.status_code}: {response.content!r}"
            # The time as the answer wrote it (the model reads it as a datetime).
            created_at = json.loads(response.content)["created_at"]
            racers.append(Player(base_url, sent.id, sent.name, created_at, sent.token))
        return ", ".join(f"{r.name} ({r.id})" for r in racers)

    @check("POST /v1/matches with an Idempotency-Key, then again: one match")
    def _() -> str:
        creator = racers[0]
        body = CreateMatch.from_dict(RACE)
        key = f"race-{creator.id}"
        first = create_match.sync_detailed(client=creator.client, body=body, idempotency_key=key)
        made = answered(first, 201, MatchView)
        assert first.headers["location"] == f"/v1/matches/{made['id']}", first.headers.get("location")
        again = create_match.sync_detailed(client=creator.client, body=body, idempotency_key=key)
        assert answered(again, 201, MatchView) == made
        assert again.headers.get("idempotent-replayed") == "true", again.headers
        got = (made["status"], made["creator"], made["seats"], made["game"])
        assert got == ("open", creator.id, 2, RACE["game"]), made
        match.update(made)
        return f"{made['id']}: {made['status']}, seed {made['game']['seed']}; the retry replayed"

    @check("POST /v1/matches/{id}/join: the second seat, the countdown")
    def _() -> str:
        joined = answered(join_match.sync_detailed(match["id"], client=racers[1].client), 200, MatchView)
        assert joined["status"] == "countdown", joined
        assert [p["player"] for p in joined["players"]] == [r.id for r in racers], joined
        match.update(joined)
        return f"{joined['status']}, starts at {joined['starts_at']}"

    @check("GET /v1/matches/{id} until the race is under way")
    def _() -> str:
        reads = 0
        while match["status"] == "countdown" and reads < 200:
            time.sleep(0.02)
            match.update(answered(get_match.sync_detailed(match["id"], client=racers[0].client), 200, MatchView))
            reads += 1
        assert match["status"] == "playing", match
        return f"playing after {reads} reads, started at {match['started_at']}"

    @check("POST /v1/clear, POST /v1/games/{id}/moves: the second racer two pairs, the first to won")
    def _() -> str:
        for seat, pairs in ((1, LOSER_PAIRS), (0, None)):
            racer, game_id = racers[seat], match["players"][seat]["game"]
            game = json.loads(get_game.sync_detailed(game_id, client=racer.client).content)
            body = ClearRequest.from_dict({"board": game["board"], "rules": "shisen-sho"})
            sequence = json.loads(clear.sync_detailed(client=racer.client, body=body).content)["moves"]
            for step in sequence[:pairs]:
                moved = move_tiles.sync_detailed(
                    game_id, client=racer.client, body=MoveRequest(from_=step["from"], to=step["to"])
                )
                assert moved.status_code == 200, f"status {moved.status_code}: {moved.content!r}"
                game = json.loads(moved.content)
            seen[racer.id] = game
        assert seen[racers[0].id]["status"] == "won", seen
        return "; ".join(f"{r.name}: {seen[r.id]['status']}, {seen[r.id]['tiles_left']} tiles left" for r in racers)

    @check("GET /v1/matches/{id}: finished, the winner first and rated up, the other second and rated down")
    def _() -> str:
        shown = answered(get_match.sync_detailed(match["id"], client=racers[0].client), 200, MatchView)
        assert shown["status"] == "finished", shown
        result = shown["result"]
        after = [placed["rating_after"] for placed in result]
        assert after[0]["rating"] > 1500 and after[1]["rating"] < 1500, after
        dealt = RACE["game"]["width"] * RACE["game"]["height"]
        # The race's end stopped the loser's game, and scored the time it
        # ran on after the last move: each game as it stands now.
        for racer in racers:
            game_id = seen[racer.id]["id"]
            seen[racer.id] = json.loads(get_game.sync_detailed(game_id, client=racer.client).content)
        assert seen[racers[1].id]["status"] == "race_over", seen

        def seat(racer: Player, place: int, finish: str, elapsed_ms: int) -> dict[str, Any]:
            game = seen[racer.id]
            return {
                "player": racer.id,
                "name": racer.name,
                "place": place,
                "game": game["id"],
                "replay": f"/v1/games/{game['id']}/replay",
                "finish": finish,
                "elapsed_ms": elapsed_ms,
                "tiles": dealt - game["tiles_left"],
                "score": game["score"],
                "rating_before": FIRST_RATING,
                "rating_after": after[place - 1],
            }

        winner, loser = racers
        # The winner's time is the won game's; the loser's clock ran on until the win.
        expected = [seat(winner, 1, "cleared", seen[winner.id]["elapsed_ms"]), seat(loser, 2, "stopped", result[1]["elapsed_ms"])]
        assert result == expected, f"result {result}, expected {expected}"
        return ", ".join(f"{p['name']} {p['place']} ({p['finish']}, {p['tiles']} tiles, {p['rating_after']['rating']:.1f})" for p in result)

    @check("GET /v1/games/{id}/replay, POST /v1/replays: each seat's game played again")
    def _() -> str:
        lines = []
        for racer in racers:
            game_id = seen[racer.id]["id"]
            game = json.loads(get_game.sync_detailed(game_id, client=racer.client).content)
            replay = get_replay.sync_detailed(game_id, client=racer.client).parsed
            assert isinstance(replay, Replay), replay
            checked = answered(check_replay.sync_detailed(client=racer.client, body=replay), 200, ReplayCheck)
            keys = ("status", "version", "score", "tiles_left", "board")
            assert {k: checked[k] for k in keys} == {k: game[k] for k in keys}, (checked, game)
            lines.append(f"{racer.name}: {checked['status']}, v{checked['version']}, score {checked['score']}")
        return "; ".join(lines)
