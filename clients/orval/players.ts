// The player's part of the orval program (main.ts): Ann signs up and reads
// herself back with her token; main.ts plays her games; then her win is
// found on its leaderboard (`around=me` too) and in her list of games, she
// is renamed, given a new token (the old one then 401) and erased (her
// token 401, her entry gone), every answer compared whole with
// docs/players.md's, its random parts checked for their shape.
//
// orval's fetch client has no notion of a token: each generated function
// takes a RequestInit last, and its `headers` carry `Authorization` (see
// bearer()).

import assert from "node:assert/strict";
import { eraseMe, getLeaderboard, getMe, getPlayerGames, newToken, renameMe, signUp as signUpPlayer } from "./generated/linkpath";
import type * as Api from "./generated/linkpath";
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

type Answer = { data: unknown; status: number; headers: Headers };
type BodyAt<R extends Answer, S extends number> = Extract<R, { status: S }>["data"];

/** Whether `answer` has `status`: the generated type then says what its body is. */
function hasStatus<R extends Answer, S extends number>(answer: R, status: S): answer is Extract<R, { status: S }> {
  return answer.status === status;
}

/** The body of an answer at `status`, or a failure naming the status and the body. */
function at<R extends Answer, S extends number>(answer: R, status: S): BodyAt<R, S> {
  if (!hasStatus(answer, status)) {
    assert.fail(`status ${answer.status}, expected ${status}: ${JSON.stringify(answer.data)}`);
  }
  assert.equal(answer.headers.get("content-type"), "application/json");
  return answer.data;
}

/** A 401 for a token the server does not know, compared whole. */
function refused(answer: Answer): string {
  assert.equal(answer.status, 401, JSON.stringify(answer.data));
  const expected: Api.ErrorBody = unknownToken;
  assert.deepEqual(answer.data, expected);
  return `401 ${unknownToken.error.code}`;
}

/** The RequestInit that sends `token` with a request. */
export function bearer(token: string): RequestInit {
  return { headers: { Authorization: `Bearer ${token}` } };
}

/** Ann signs up (`player` follows her) and reads herself back with her token. */
export async function signUp(player: Player): Promise<void> {
  await check("POST /v1/players: Ann signed up, her token shown once", async () => {
    const body: Api.PlayerName = { name: playerName };
    const answer = await signUpPlayer(body);
    const signedUp = at(answer, 201);
    assert.equal(answer.headers.get("cache-control"), "no-store");
    const expected: Api.SignedUp = expectedSignUp(signedUp);
    assert.deepEqual(signedUp, expected);
    Object.assign(player, playerOf(signedUp));
    return `${signedUp.name}, id ${signedUp.id}, a token of ${signedUp.token.length} characters`;
  });

  await check("GET /v1/players/me with her token (RequestInit headers)", async () => {
    const me = at(await getMe(bearer(player.token)), 200);
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
    const around = at(await getLeaderboard(name, { around: "me" }, bearer(player.token)), 200);
    assert.deepEqual(around, entries());
    const first = around.entries[0]!;
    return `${first.player} (${first.player_id}): rank ${first.rank}, game ${first.game}`;
  });

  await check("GET /v1/players/{id}/games and /v1/players/me/games: her two games, newest first", async () => {
    const expected: Api.PlayerGames = { games: [gameSummary(won), gameSummary(held)] };
    const byId = at(await getPlayerGames(player.id), 200);
    assert.deepEqual(byId, expected);
    const mine = at(await getPlayerGames("me", {}, bearer(player.token)), 200);
    assert.deepEqual(mine, expected);
    return byId.games.map(({ status, ranked }) => `${status} (ranked ${ranked})`).join(", ");
  });

  await check("PATCH /v1/players/me: renamed, the leaderboard shows the new name", async () => {
    const renamed = at(await renameMe({ name: newName }, bearer(player.token)), 200);
    player.name = newName;
    const expected: Api.PlayerView = playerView(player);
    assert.deepEqual(renamed, expected);
    assert.deepEqual(at(await getLeaderboard(name), 200), entries());
    return `${renamed.name}, on the board as ${newName}`;
  });

  await check("POST /v1/players/me/token: a new token, the old one then 401", async () => {
    const old = player.token;
    const answer = await newToken(bearer(old));
    const issued = at(answer, 201);
    assert.equal(answer.headers.get("cache-control"), "no-store");
    const expected: Api.SignedUp = expectedNewToken(player, issued);
    assert.deepEqual(issued, expected);
    player.token = issued.token;
    const before = refused(await getMe(bearer(old)));
    assert.deepEqual(at(await getMe(bearer(player.token)), 200), playerView(player));
    return `the old token: ${before}; the new one: 200`;
  });

  await check("DELETE /v1/players/me: 204, her token then 401, her entry gone", async () => {
    const erased = await eraseMe(bearer(player.token));
    assert.equal(erased.status, 204, JSON.stringify(erased.data));
    const after = refused(await getMe(bearer(player.token)));
    const expected: Api.Leaderboard = { leaderboard: name, entries: [] };
    assert.deepEqual(at(await getLeaderboard(name), 200), expected);
    return `204; her token: ${after}; the board: no entries`;
  });
}
