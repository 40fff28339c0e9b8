// The player's part of the hey-api program (main.ts): Ann signs up and
// reads herself back with her token; main.ts plays her games; then her win
// is found on its leaderboard (`around=me` too) and in her list of games,
// she is renamed, given a new token (the old one then 401) and erased (her
// token 401, her entry gone), every answer compared whole with
// docs/players.md's, its random parts checked for their shape.
//
// The SDK sends a token through its `auth` option: every operation whose
// openapi.yaml security names the `bearer` scheme writes
// `Authorization: Bearer <auth>` when `auth` is given, per call (as here,
// from the player's token of the moment) or once with client.setConfig.

import assert from "node:assert/strict";
import { eraseMe, getLeaderboard, getMe, getPlayerGames, newToken, renameMe, signUp as signUpPlayer } from "./generated/index";
import type * as Api from "./generated/index";
import {
  type Player,
  check,
  expectedNewToken,
  expectedSignUp,
  gameSummary,
  leaderboardEntry,
  newName,
  playerName,
  playerOf,
  playerView,
  unknownToken,
} from "../shared/expected.cjs";

type Answer<T> = { data: T | undefined; error: unknown; response?: Response };

/** The body of an answer at `status`, or a failure naming the status and the error body. */
function at<T>(answer: Answer<T>, status: number): T {
  assert.equal(answer.response?.status, status, JSON.stringify(answer.error));
  assert.equal(answer.response?.headers.get("content-type"), "application/json");
  assert.ok(answer.data !== undefined, "no body");
  return answer.data;
}

/** A 401 for a token the server does not know, compared whole. */
function refused(answer: Answer<unknown>): string {
  assert.equal(answer.response?.status, 401, JSON.stringify(answer.data));
  const expected: Api.ErrorBody = unknownToken;
  assert.deepEqual(answer.error, expected);
  return `401 ${unknownToken.error.code}`;
}

/** Ann signs up (`player` follows her) and reads herself back with her token. */
export async function signUp(player: Player): Promise<void> {
  await check("POST /v1/players: Ann signed up, her token shown once", async () => {
    const body: Api.PlayerName = { name: playerName };
    const answer = await signUpPlayer({ body });
    const signedUp = at(answer, 201);
    assert.equal(answer.response?.headers.get("cache-control"), "no-store");
    const expected: Api.SignedUp = expectedSignUp(signedUp);
    assert.deepEqual(signedUp, expected);
    Object.assign(player, playerOf(signedUp));
    return `${signedUp.name}, id ${signedUp.id}, a token of ${signedUp.token.length} characters`;
  });

  await check("GET /v1/players/me with her token (the SDK's `auth` option)", async () => {
    const me = at(await getMe({ auth: player.token }), 200);
    const expected: Api.PlayerView = playerView(player);
    assert.deepEqual(me, expected);
    return `${me.name}, created ${me.created_at}`;
  });
}

/**
 * After main.ts played `held` and won `won` (a ranked game of the day's
 * deal) with Ann's token: her entry and her games, then a new name, a new
 * token and her erasure.
 */
export async function afterWin(player: Player, held: Api.GameView | undefined, won: Api.GameView | undefined): Promise<void> {
  if (held === undefined || won?.leaderboard === undefined) {
    await check("her win on its leaderboard", async () => assert.fail("her games were not played to the end"));
    return;
  }
  const name = won.leaderboard;
  const entries = (): Api.Leaderboard => ({ leaderboard: name, entries: [leaderboardEntry(player, won)] });

  await check("GET /v1/leaderboards/{name}?around=me: her entry, with her token", async () => {
    const around = at(await getLeaderboard({ path: { name }, query: { around: "me" }, auth: player.token }), 200);
    assert.deepEqual(around, entries());
    const first = around.entries[0]!;
    return `${first.player} (${first.player_id}): rank ${first.rank}, game ${first.game}`;
  });

  await check("GET /v1/players/{id}/games and /v1/players/me/games: her two games, newest first", async () => {
    const expected: Api.PlayerGames = { games: [gameSummary(won), gameSummary(held)] };
    const byId = at(await getPlayerGames({ path: { id: player.id } }), 200);
    assert.deepEqual(byId, expected);
    const mine = at(await getPlayerGames({ path: { id: "me" }, auth: player.token }), 200);
    assert.deepEqual(mine, expected);
    return byId.games.map(({ status, ranked }) => `${status} (ranked ${ranked})`).join(", ");
  });

  await check("PATCH /v1/players/me: renamed, the leaderboard shows the new name", async () => {
    const renamed = at(await renameMe({ body: { name: newName }, auth: player.token }), 200);
    player.name = newName;
    const expected: Api.PlayerView = playerView(player);
    assert.deepEqual(renamed, expected);
    assert.deepEqual(at(await getLeaderboard({ path: { name } }), 200), entries());
    return `${renamed.name}, on the board as ${newName}`;
  });

  await check("POST /v1/players/me/token: a new token, the old one then 401", async () => {
    const old = player.token;
    const answer = await newToken({ auth: old });
    const issued = at(answer, 201);
    assert.equal(answer.response?.headers.get("cache-control"), "no-store");
    const expected: Api.SignedUp = expectedNewToken(player, issued);
    assert.deepEqual(issued, expected);
    player.token = issued.token;
    const before = refused(await getMe({ auth: old }));
    assert.deepEqual(at(await getMe({ auth: player.token }), 200), playerView(player));
    return `the old token: ${before}; the new one: 200`;
  });

  await check("DELETE /v1/players/me: 204, her token then 401, her entry gone", async () => {
    const erased = await eraseMe({ auth: player.token });
    assert.equal(erased.response?.status, 204, JSON.stringify(erased.error));
    const after = refused(await getMe({ auth: player.token }));
    const expected: Api.Leaderboard = { leaderboard: name, entries: [] };
    assert.deepEqual(at(await getLeaderboard({ path: { name } }), 200), expected);
    return `204; her token: ${after}; the board: no entries`;
  });
}
