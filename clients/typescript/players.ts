// The player's part of the openapi-fetch program (main.ts): Ann signs up
// and reads herself back with her token; main.ts plays her games; then her
// win is found on its leaderboard (`around=me` too) and in her list of
// games, she is renamed, given a new token (the old one then 401) and
// erased (her token 401, her entry gone), every answer compared whole with
// docs/players.md's, its random parts checked for their shape.
//
// openapi-fetch sends the token through a middleware on a client of the
// player's own, which reads the player's token at each request, so a new
// token is used from the next request on; a single request sends another
// token in its own `headers`.

import assert from "node:assert/strict";
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./generated/linkpath.js";
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

type Schemas = components["schemas"];
type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The body of an answer at `status`, or a failure naming the status and the error body. */
function at<T>(answer: Answer<T>, status: number): T {
  assert.equal(answer.response.status, status, JSON.stringify(answer.error));
  assert.equal(answer.response.headers.get("content-type"), "application/json");
  assert.ok(answer.data !== undefined, "no body");
  return answer.data;
}

/** A 401 for a token the server does not know, compared whole. */
function refused(answer: Answer<unknown>): string {
  assert.equal(answer.response.status, 401, JSON.stringify(answer.data));
  const expected: Schemas["ErrorBody"] = unknownToken;
  assert.deepEqual(answer.error, expected);
  return `401 ${unknownToken.error.code}`;
}

/** An `Authorization` header for one request. */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/** A client that sends `player`'s token, whichever it is at the time, with every request. */
export function playerClient(baseUrl: string, player: Player): Client<paths> {
  const client = createClient<paths>({ baseUrl });
  client.use({
    onRequest({ request }) {
      request.headers.set("Authorization", `Bearer ${player.token}`);
      return request;
    },
  });
  return client;
}

/** Ann signs up (`player` follows her) and reads herself back with her token. */
export async function signUp(client: Client<paths>, asPlayer: Client<paths>, player: Player): Promise<void> {
  await check("POST /v1/players: Ann signed up, her token shown once", async () => {
    const body: Schemas["PlayerName"] = { name: playerName };
    const answer = await client.POST("/v1/players", { body });
    const signedUp = at(answer, 201);
    assert.equal(answer.response.headers.get("cache-control"), "no-store");
    const expected: Schemas["SignedUp"] = expectedSignUp(signedUp);
    assert.deepEqual(signedUp, expected);
    Object.assign(player, playerOf(signedUp));
    return `${signedUp.name}, id ${signedUp.id}, a token of ${signedUp.token.length} characters`;
  });

  await check("GET /v1/players/me with her token (a middleware of the player's client)", async () => {
    const me = at(await asPlayer.GET("/v1/players/me"), 200);
    const expected: Schemas["PlayerView"] = playerView(player);
    assert.deepEqual(me, expected);
    return `${me.name}, created ${me.created_at}`;
  });
}

/** A won or finished game, as main.ts follows it. */
type Game = Parameters<typeof gameSummary<Schemas["GameStatus"]>>[0];

/**
 * After main.ts played `held` and won `won` (a ranked game of the day's
 * deal) with Ann's token: her entry and her games, then a new name, a new
 * token and her erasure.
 */
export async function afterWin(client: Client<paths>, asPlayer: Client<paths>, player: Player, held: Game, won: Game | undefined): Promise<void> {
  if (won === undefined) {
    await check("her win on its leaderboard", async () => assert.fail("the day's game was not won"));
    return;
  }
  const name = won.leaderboard ?? "";
  const board = async (query: { around?: string } = {}, via = client) =>
    at(await via.GET("/v1/leaderboards/{name}", { params: { path: { name }, query } }), 200);
  const entries = (): Schemas["Leaderboard"] => ({ leaderboard: name, entries: [leaderboardEntry(player, won)] });

  await check("GET /v1/leaderboards/{name}?around=me: her entry, with her token", async () => {
    const around = await board({ around: "me" }, asPlayer);
    assert.deepEqual(around, entries());
    const first = around.entries[0]!;
    return `${first.player} (${first.player_id}): rank ${first.rank}, game ${first.game}`;
  });

  await check("GET /v1/players/{id}/games and /v1/players/me/games: her two games, newest first", async () => {
    const expected: Schemas["PlayerGames"] = { games: [gameSummary(won), gameSummary(held)] };
    const byId = at(await client.GET("/v1/players/{id}/games", { params: { path: { id: player.id } } }), 200);
    assert.deepEqual(byId, expected);
    const mine = at(await asPlayer.GET("/v1/players/{id}/games", { params: { path: { id: "me" } } }), 200);
    assert.deepEqual(mine, expected);
    return byId.games.map(({ status, ranked }) => `${status} (ranked ${ranked})`).join(", ");
  });

  await check("PATCH /v1/players/me: renamed, the leaderboard shows the new name", async () => {
    const renamed = at(await asPlayer.PATCH("/v1/players/me", { body: { name: newName } }), 200);
    player.name = newName;
    const expected: Schemas["PlayerView"] = playerView(player);
    assert.deepEqual(renamed, expected);
    assert.deepEqual(await board(), entries());
    return `${renamed.name}, on the board as ${newName}`;
  });

  await check("POST /v1/players/me/token: a new token, the old one then 401", async () => {
    const old = player.token;
    const answer = await asPlayer.POST("/v1/players/me/token");
    const issued = at(answer, 201);
    assert.equal(answer.response.headers.get("cache-control"), "no-store");
    const expected: Schemas["SignedUp"] = expectedNewToken(player, issued);
    assert.deepEqual(issued, expected);
    player.token = issued.token;
    const before = refused(await client.GET("/v1/players/me", { headers: bearer(old) }));
    assert.deepEqual(at(await asPlayer.GET("/v1/players/me"), 200), playerView(player));
    return `the old token: ${before}; the new one: 200`;
  });

  await check("DELETE /v1/players/me: 204, her token then 401, her entry gone", async () => {
    const erased = await asPlayer.DELETE("/v1/players/me");
    assert.equal(erased.response.status, 204, JSON.stringify(erased.error));
    assert.equal(erased.data, undefined);
    const after = refused(await asPlayer.GET("/v1/players/me"));
    const expected: Schemas["Leaderboard"] = { leaderboard: name, entries: [] };
    assert.deepEqual(await board(), expected);
    return `204; her token: ${after}; the board: no entries`;
  });
}
