"""The player's part of the Python client's program (main.py).

Ann signs up and reads herself back with her token; main.py plays her
games with it; then her win is found on its leaderboard (`around=me` too)
and in her list of games, she is renamed, given a new token (the old one
then 401) and erased (her token 401, her entry gone), every answer compared
whole with docs/players.md's, its random parts checked for their shape.

openapi-python-client sends a token through its `AuthenticatedClient`
(`token=`, written `Authorization: Bearer <token>`); `Player.client` makes
one with the player's token of the moment.
"""

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from linkpath_client import AuthenticatedClient, Client
from linkpath_client.api.games import get_leaderboard
from linkpath_client.api.players import erase_me, get_me, get_player_games, new_token, rename_me, sign_up
from linkpath_client.models import ErrorBody, Leaderboard, PlayerGames, PlayerName, PlayerView, SignedUp
from linkpath_client.types import Response

from checks import check, parsed

NAME = "Ann"
NEW_NAME = "Ann Lee"
TOKEN = re.compile(r"lpp_[0-9a-f]{64}")
RFC3339 = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
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
