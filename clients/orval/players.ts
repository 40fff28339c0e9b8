// The player's part of the orval program (main.ts): Ann signs up and reads
// herself back with her token; main.ts plays her games; then her win is
// found on its leaderboard (`around=me` too) and in her list of games, she
// is renamed, given a new token (the old one then 401) and erased (her
// token 401, her entry gone), every answer compared whole with
// docs/players.md's, its random parts checked for their shape. And a match
// (race): two players sign up and race on one deal to a winner.
//
// orval's fetch client has no notion of a token: each generated function
// takes a RequestInit last, and its `headers` carry `Authorization` (see
// bearer()).

import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import {
  checkReplay,
  clear,
  createMatch,
  eraseMe,
  getGame,
  getLeaderboard,
  getMatch,
  getMe,
  getPlayerGames,
  getReplay,
  joinMatch,
  moveTiles,
  newToken,
  renameMe,
  signUp as signUpPlayer,
} from "./generated/linkpath";
import type * as Api from "./generated/linkpath";
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

/**
 * Two players race a match (docs/matches.md): both sign up, the first
 * creates it (a retry under its `Idempotency-Key` answered the same), the
 * second joins, the countdown is waited out by reading the match until it
 * is `playing`; each plays /v1/clear's sequence on their own game, the
 * second two pairs, the first to `won`; the result is checked whole and
 * each seat's replay played again by /v1/replays.
 */
export async function race(): Promise<void> {
  const racers: Player[] = [];
  let match: Api.MatchView | undefined;
  // Each racer's game as their last move answered it.
  const seen = new Map<string, Racer["game"] & { status: Api.GameStatus }>();

  await check("POST /v1/players twice: the two racers", async () => {
    for (const name of racerNames) {
      racers.push(playerOf(at(await signUpPlayer({ name }), 201)));
    }
    return racers.map(({ name, id }) => `${name} (${id})`).join(", ");
  });

  await check("POST /v1/matches with an Idempotency-Key, then again: one match", async () => {
    const [creator] = racers;
    assert.ok(creator !== undefined, "no racers");
    const body: Api.CreateMatch = raceRequest;
    const headers = { Authorization: `Bearer ${creator.token}`, "Idempotency-Key": `race-${creator.id}` };
    const first = await createMatch(body, { headers });
    const made = at(first, 201);
    assert.equal(first.headers.get("location"), `/v1/matches/${made.id}`);
    const again = await createMatch(body, { headers });
    assert.deepEqual(at(again, 201), made);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual([made.status, made.creator, made.seats, made.game], ["open", creator.id, 2, raceRequest.game]);
    match = made;
    return `${made.id}: ${made.status}, seed ${made.game.seed}; the retry replayed`;
  });

  await check("POST /v1/matches/{id}/join: the second seat, the countdown", async () => {
    const [, joiner] = racers;
    assert.ok(match !== undefined && joiner !== undefined, "no match");
    const joined = at(await joinMatch(match.id, bearer(joiner.token)), 200);
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
      match = at(await getMatch(match.id), 200);
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
      let game = at(await getGame(gameId, bearer(racer.token)), 200);
      assert.ok(game.board !== undefined, "no board");
      const sequence = at(await clear({ board: game.board, rules: "shisen-sho" }), 200).moves ?? [];
      for (const step of sequence.slice(0, pairs ?? sequence.length)) {
        game = at(await moveTiles(gameId, { from: step.from, to: step.to }, bearer(racer.token)), 200);
      }
      seen.set(racer.id, game);
    }
    assert.equal(seen.get(racers[0]?.id ?? "")?.status, "won");
    return racers.map((r) => `${r.name}: ${seen.get(r.id)?.status}, ${seen.get(r.id)?.tiles_left} tiles left`).join("; ");
  });

  await check("GET /v1/matches/{id}: finished, the winner first and rated up, the other second and rated down", async () => {
    assert.ok(match !== undefined, "no match");
    const shown = at(await getMatch(match.id), 200);
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
      const game = at(await getGame(played.id, bearer(racer.token)), 200);
      const replay = at(await getReplay(played.id, bearer(racer.token)), 200);
      const checked = at(await checkReplay(replay), 200);
      const { status, version, score, tiles_left } = checked;
      assert.deepEqual({ status, version, score, tiles_left }, { status: game.status, version: game.version, score: game.score, tiles_left: game.tiles_left });
      assert.deepEqual(checked.board, game.board);
      lines.push(`${racer.name}: ${status}, v${version}, score ${score}`);
    }
    return lines.join("; ");
  });
}
