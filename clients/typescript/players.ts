// The player's part of the openapi-fetch program (main.ts): Ann signs up
// and reads herself back with her token; main.ts plays her games; then her
// win is found on its leaderboard (`around=me` too) and in her list of
// games, she is renamed, given a new token (the old one then 401) and
// erased (her token 401, her entry gone), every answer compared whole with
// docs/players.md's, its random parts checked for their shape. And a match
// (race): two players sign up and race on one deal to a winner.
//
// openapi-fetch sends the token through a middleware on a client of the
// player's own, which reads the player's token at each request, so a new
// token is used from the next request on; a single request sends another
// token in its own `headers`.

import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./generated/linkpath.js";
import {
  type Player,
  type Racer,
  check,
  describeRace,
  expectedNewToken,
  expectedRaceResult,
  expectedSignUp,
  gameSummary,
  leaderboardEntry,
  loserPairs,
  newName,
  playerName,
  playerOf,
  playerView,
  raceRequest,
  racerNames,
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

/**
 * Two players race a match (docs/matches.md): both sign up, the first
 * creates it (a retry under its `Idempotency-Key` answered the same), the
 * second joins, the countdown is waited out by reading the match until it
 * is `playing`; each plays /v1/clear's sequence on their own game, the
 * second two pairs, the first to `won`; the result is checked whole and
 * each seat's replay played again by /v1/replays.
 */
export async function race(client: Client<paths>): Promise<void> {
  const racers: Player[] = [];
  let match: Schemas["MatchView"] | undefined;
  // Each racer's game as their last move answered it.
  const seen = new Map<string, Racer["game"] & { status: Schemas["GameStatus"] }>();
  const as = (player: Player) => ({ headers: bearer(player.token) });
  const matchPath = (id: string) => ({ params: { path: { id } } });

  await check("POST /v1/players twice: the two racers", async () => {
    for (const name of racerNames) {
      const signedUp = at(await client.POST("/v1/players", { body: { name } }), 201);
      racers.push(playerOf(signedUp));
    }
    return racers.map(({ name, id }) => `${name} (${id})`).join(", ");
  });

  await check("POST /v1/matches with an Idempotency-Key, then again: one match", async () => {
    const [creator] = racers;
    assert.ok(creator !== undefined, "no racers");
    const body: Schemas["CreateMatch"] = raceRequest;
    const send = () =>
      client.POST("/v1/matches", { body, params: { header: { "Idempotency-Key": `race-${creator.id}` } }, ...as(creator) });
    const first = await send();
    const made = at(first, 201);
    assert.equal(first.response.headers.get("location"), `/v1/matches/${made.id}`);
    const again = await send();
    assert.deepEqual(at(again, 201), made);
    assert.equal(again.response.headers.get("idempotent-replayed"), "true");
    assert.deepEqual([made.status, made.creator, made.seats, made.game], ["open", creator.id, 2, raceRequest.game]);
    match = made;
    return `${made.id}: ${made.status}, seed ${made.game.seed}; the retry replayed`;
  });

  await check("POST /v1/matches/{id}/join: the second seat, the countdown", async () => {
    const [, joiner] = racers;
    assert.ok(match !== undefined && joiner !== undefined, "no match");
    const joined = at(await client.POST("/v1/matches/{id}/join", { ...matchPath(match.id), ...as(joiner) }), 200);
    assert.equal(joined.status, "countdown");
    assert.deepEqual(joined.players.map(({ player }) => player), racers.map(({ id }) => id));
    match = joined;
    return `${joined.status}, starts at ${joined.starts_at}`;
  });

  await check("GET /v1/matches/{id} until the race is under way", async () => {
    assert.ok(match !== undefined, "no match");
    let reads = 0;
    while (match.status === "countdown" && reads < 200) {
      await delay(20);
      match = at(await client.GET("/v1/matches/{id}", matchPath(match.id)), 200);
      reads += 1;
    }
    assert.equal(match.status, "playing");
    return `playing after ${reads} reads, started at ${match.started_at}`;
  });

  await check("POST /v1/clear, POST /v1/games/{id}/moves: the second racer two pairs, the first to won", async () => {
    assert.ok(match !== undefined, "no match");
    const plays: [number, number | undefined][] = [[1, loserPairs], [0, undefined]];
    for (const [seat, pairs] of plays) {
      const racer = racers[seat];
      const gameId = match.players[seat]?.game;
      assert.ok(racer !== undefined && gameId !== undefined, `no game for seat ${seat}`);
      let game = at(await client.GET("/v1/games/{id}", { ...matchPath(gameId), ...as(racer) }), 200);
      assert.ok(game.board !== undefined, "no board");
      const body: Schemas["ClearRequest"] = { board: game.board, rules: "shisen-sho" };
      const sequence = at(await client.POST("/v1/clear", { body }), 200).moves ?? [];
      for (const step of sequence.slice(0, pairs ?? sequence.length)) {
        const moved = await client.POST("/v1/games/{id}/moves", { ...matchPath(gameId), body: { from: step.from, to: step.to }, ...as(racer) });
        game = at(moved, 200);
      }
      seen.set(racer.id, game);
    }
    const won = seen.get(racers[0]?.id ?? "");
    assert.equal(won?.status, "won");
    return racers.map((r) => `${r.name}: ${seen.get(r.id)?.status}, ${seen.get(r.id)?.tiles_left} tiles left`).join("; ");
  });

  await check("GET /v1/matches/{id}: finished, the winner first and rated up, the other second and rated down", async () => {
    assert.ok(match !== undefined, "no match");
    const shown = at(await client.GET("/v1/matches/{id}", matchPath(match.id)), 200);
    assert.equal(shown.status, "finished");
    const result = shown.result ?? [];
    const racer = (seat: number): Racer => {
      const player = racers[seat];
      const game = seen.get(player?.id ?? "");
      assert.ok(player !== undefined && game !== undefined, `no race for seat ${seat}`);
      return { id: player.id, name: player.name, game };
    };
    const dealt = raceRequest.game.width * raceRequest.game.height;
    assert.deepEqual(result, expectedRaceResult(result, racer(0), racer(1), dealt));
    return describeRace(result);
  });

  await check("GET /v1/games/{id}/replay, POST /v1/replays: each seat's game played again", async () => {
    const lines: string[] = [];
    for (const racer of racers) {
      const played = seen.get(racer.id);
      assert.ok(played !== undefined, `no game for ${racer.name}`);
      const path = matchPath(played.id);
      const game = at(await client.GET("/v1/games/{id}", { ...path, ...as(racer) }), 200);
      const replay = at(await client.GET("/v1/games/{id}/replay", { ...path, ...as(racer) }), 200);
      const checked = at(await client.POST("/v1/replays", { body: replay }), 200);
      const { status, version, score, tiles_left } = checked;
      assert.deepEqual({ status, version, score, tiles_left }, { status: game.status, version: game.version, score: game.score, tiles_left: game.tiles_left });
      assert.deepEqual(checked.board, game.board);
      lines.push(`${racer.name}: ${status}, v${version}, score ${score}`);
    }
    return lines.join("; ");
  });
}
