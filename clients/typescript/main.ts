// A TypeScript client of linkpath as its users build one: the types are
// generated from openapi.yaml by openapi-typescript (default options) into
// generated/linkpath.ts, the calls go through openapi-fetch. Every JSON route
// of the README is called with the README's own request bodies (or
// openapi.yaml's examples where the README shows none), written as typed
// literals, and every answer is compared whole with its documented value and
// read field by field through the generated types. Then it plays a whole held
// game: a seeded deal, an illegal move (409, nothing changed), a hint, a move
// taken back and made again, the rest of /v1/clear's sequence to `won`, every
// answer compared whole (its clock taken as it came, the score computed from
// it), the event stream read alongside (one event a change), a move on the
// won game (409), and the game's replay played again by /v1/replays. And
// the day's deal: fetched for a small board (its seed computed here as
// docs/games.md derives it), a game made from it and won, and the win read
// back, whole, from the deal's leaderboard. Both games are a player's: Ann
// signs up first and creates them with her token (players.ts), then her
// win is found, she is renamed, given a new token and erased. Last, two
// players race a match to a winner (players.ts).
//
//   node clients/typescript/dist/typescript/main.js http://127.0.0.1:8080 docs/render.svg
//
// Prints one line a check and exits 1 when any failed.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/linkpath.js";
import { afterWin, playerClient, race, signUp } from "./players.js";
import {
  type Followed,
  type Pair,
  type Player,
  type Same,
  afterMove as heldAfterMove,
  assisted,
  check,
  clearCrossed,
  clearOddType,
  clearSolvable,
  dailyGame,
  dealExample,
  dealLayout,
  dealMahjongFaces,
  dealNumbers,
  describeBoard,
  describeGame,
  describeMoves,
  describeResult,
  elapsedOf,
  expectedGame as expectedHeldGame,
  finish,
  heldDealt,
  heldMoves,
  heldRequest,
  heldSettings,
  kshisenScore,
  leaderboardEntry,
  movesHint,
  movesOfOneTile,
  noAssists,
  playExample,
  point,
  renderExample,
  shuffleAMove,
  shuffleClearable,
  solveCurling,
  solveEveryReason,
  solveExample,
  solveRagged,
  solveRulesObject,
} from "../shared/expected.cjs";

type Schemas = components["schemas"];

// A cell is read as a plain pair, [x, y] and nothing after it (openapi.yaml
// gives a point's two `prefixItems` no `items`): tsc fails here otherwise.
const sentCellIsAPair: Same<Schemas["Query"]["from"], Pair> = true;
const answeredCellIsAPair: Same<NonNullable<Schemas["Connected"]["path"]>[number], Pair> = true;

const [baseUrl, renderSvgPath] = process.argv.slice(2);
if (baseUrl === undefined || renderSvgPath === undefined) {
  console.error("usage: main.js BASE_URL RENDER_SVG");
  process.exit(2);
}

const client = createClient<paths>({ baseUrl });

// The answer of a 200, or a failure naming the status and the error body.
function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  assert.equal(answer.response.status, 200, JSON.stringify(answer.error));
  assert.equal(answer.response.headers.get("content-type"), "application/json");
  assert.ok(answer.data !== undefined, "no body");
  return answer.data;
}

// ---------------------------------------------------------------------------
// /v1/solve and /v1/render

// Each body and answer of clients/shared/expected.cts is assigned to the
// generated type here: tsc checks them against openapi-typescript's reading.

await check("POST /v1/solve, the README's example", async () => {
  const body: Schemas["SolveRequest"] = solveExample.body;
  const answer = ok(await client.POST("/v1/solve", { body }));
  const expected: Schemas["SolveResponse"] = solveExample.answer;
  assert.deepEqual(answer, expected);
  return answer.results.map(describeResult).join("; ");
});

await check("POST /v1/solve, a rules object", async () => {
  const body: Schemas["SolveRequest"] = solveRulesObject.body;
  const answer = ok(await client.POST("/v1/solve", { body }));
  const expected: Schemas["SolveResponse"] = solveRulesObject.answer;
  assert.deepEqual(answer, expected);
  return answer.results.map(describeResult).join("; ");
});

await check("POST /v1/solve, every reason, include_path false", async () => {
  const body: Schemas["SolveRequest"] = solveEveryReason.body;
  const answer = ok(await client.POST("/v1/solve", { body }));
  const expected: Schemas["SolveResponse"] = solveEveryReason.answer;
  assert.deepEqual(answer, expected);
  return answer.results.map(describeResult).join("; ");
});

await check("POST /v1/solve, number rows (curling)", async () => {
  const body: Schemas["SolveRequest"] = solveCurling.body;
  const answer = ok(await client.POST("/v1/solve", { body }));
  const expected: Schemas["SolveResponse"] = solveCurling.answer;
  assert.deepEqual(answer, expected);
  return answer.results.map(describeResult).join("; ");
});

await check("POST /v1/solve, the README's ragged board: 422 through the typed error body", async () => {
  const body: Schemas["SolveRequest"] = solveRagged.body;
  const { data, error, response } = await client.POST("/v1/solve", { body });
  assert.equal(response.status, 422);
  assert.equal(data, undefined);
  assert.ok(error !== undefined, "no error body");
  const expected: Schemas["ErrorBody"] = solveRagged.answer;
  assert.deepEqual(error, expected);
  const { code, message, field } = error.error;
  return `${response.status} ${code} at ${field ?? "(no field)"}: ${message}`;
});

await check("POST /v1/render, docs/render.json: the SVG of docs/render.svg", async () => {
  const body: Schemas["SolveRequest"] = renderExample;
  const { data, response } = await client.POST("/v1/render", { body, parseAs: "text" });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "image/svg+xml");
  const svg: string | undefined = data;
  assert.ok(svg !== undefined, "no body");
  assert.equal(svg, readFileSync(renderSvgPath, "utf8"));
  return `${response.headers.get("content-type")}, ${svg.length} bytes, equal to ${renderSvgPath}`;
});

// ---------------------------------------------------------------------------
// The game routes

await check("POST /v1/moves, the README's hint", async () => {
  const body: Schemas["MovesRequest"] = movesHint.body;
  const answer = ok(await client.POST("/v1/moves", { body }));
  const expected: Schemas["MovesResponse"] = movesHint.answer;
  assert.deepEqual(answer, expected);
  const hint = answer.moves[0]!;
  const flags = `stuck ${answer.stuck}, cleared ${answer.cleared}, truncated ${answer.truncated}`;
  return `${point(hint.from)}-${point(hint.to)} in ${hint.segments} via ${hint.path?.map(point).join(" ")}; ${flags}`;
});

await check("POST /v1/moves, the README's moves of one tile", async () => {
  const body: Schemas["MovesRequest"] = movesOfOneTile.body;
  const answer = ok(await client.POST("/v1/moves", { body }));
  const expected: Schemas["MovesResponse"] = movesOfOneTile.answer;
  assert.deepEqual(answer, expected);
  return `${answer.moves.length} partners: ${answer.moves.map((m) => point(m.to)).join(" ")}`;
});

await check("POST /v1/play, the README's example", async () => {
  const body: Schemas["PlayRequest"] = playExample.body;
  const answer = ok(await client.POST("/v1/play", { body }));
  const expected: Schemas["PlayResponse"] = playExample.answer;
  assert.deepEqual(answer, expected);
  const stop = answer.stopped_at;
  const stopped = stop === undefined ? "not stopped" : `stopped at ${stop.index} (${point(stop.from)}-${point(stop.to)}: ${stop.reason})`;
  return `${answer.steps.length} steps, ${stopped}, cleared ${answer.cleared}, stuck ${answer.stuck}, board ${describeBoard(answer.board)}`;
});

await check("POST /v1/clear, a board that can be cleared", async () => {
  const body: Schemas["ClearRequest"] = clearSolvable.body;
  const answer = ok(await client.POST("/v1/clear", { body }));
  const expected: Schemas["ClearResponse"] = { ...clearSolvable.answer, elapsed_ms: elapsedOf(answer) };
  assert.deepEqual(answer, expected);
  return `${answer.outcome}, ${describeMoves(answer.moves)}, ${answer.states} states`;
});

await check("POST /v1/clear, two crossed pairs", async () => {
  const body: Schemas["ClearRequest"] = clearCrossed.body;
  const answer = ok(await client.POST("/v1/clear", { body }));
  const expected: Schemas["ClearResponse"] = { ...clearCrossed.answer, elapsed_ms: elapsedOf(answer) };
  assert.deepEqual(answer, expected);
  return `${answer.outcome}, ${describeMoves(answer.moves)}, ${answer.states} states`;
});

await check("POST /v1/clear, the README's odd type", async () => {
  const body: Schemas["ClearRequest"] = clearOddType.body;
  const answer = ok(await client.POST("/v1/clear", { body }));
  const expected: Schemas["ClearResponse"] = { ...clearOddType.answer, elapsed_ms: elapsedOf(answer) };
  assert.deepEqual(answer, expected);
  return `${answer.outcome}, ${answer.reason} ${answer.tile} x ${answer.count}`;
});

for (const [name, { body, answer: documented }] of [
  ["POST /v1/deal, the README's example", dealExample],
  ["POST /v1/deal, the README's Mahjong faces", dealMahjongFaces],
  ["POST /v1/deal, number rows (openapi.yaml's small deal, encoding numbers)", dealNumbers],
  ["POST /v1/deal, onto a layout (openapi.yaml's pyramid)", dealLayout],
] as const) {
  await check(name, async () => {
    const request: Schemas["DealRequest"] = body;
    const answer = ok(await client.POST("/v1/deal", { body: request }));
    const expected: Schemas["DealResponse"] = documented;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });
}

for (const [name, { body, answer: documented }] of [
  ["POST /v1/shuffle, so that a move exists", shuffleAMove],
  ["POST /v1/shuffle, so that the board can be cleared", shuffleClearable],
] as const) {
  await check(name, async () => {
    const request: Schemas["ShuffleRequest"] = body;
    const answer = ok(await client.POST("/v1/shuffle", { body: request }));
    const expected: Schemas["ShuffleResponse"] = documented;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });
}

// ---------------------------------------------------------------------------
// A held game, played to the end: created, an illegal move, a hint, a move
// taken back and made again, the rest of /v1/clear's sequence to `won`, all
// watched on the event stream; then a move on the won game, and its replay
// played again by /v1/replays.

const held: Followed = { id: "", createdAt: "", elapsedMs: 0 };

// Ann, who creates the held game and the day's game with her token.
const ann: Player = { id: "", name: "", createdAt: "", token: "" };
const asAnn = playerClient(baseUrl, ann);
await signUp(client, asAnn, ann);

// What of a game does not follow the clock; the board and the last change
// are there whenever the game is not paused.
type GameState = Pick<Game, "version" | "status" | "tiles_left" | "moves_open" | "assists" | "ranked"> & {
  board: NonNullable<Game["board"]>;
  last: NonNullable<Game["last"]>;
};

function stateOf({ version, status, board, tiles_left, moves_open, assists, ranked, last }: Game): GameState {
  assert.ok(board !== undefined && last !== undefined, "no board or no last change");
  return { version, status, board, tiles_left, moves_open, assists, ranked, last };
}

/** A game answer of the held deal expected whole, typed as openapi-typescript reads a game. */
function expectedGame(answer: Game, fields: GameState): Game {
  return expectedHeldGame(held, answer, fields);
}

/** A 200 game answer, its `ETag` its version. */
function game(answer: { data?: Game; error?: unknown; response: Response }): Game {
  const data = ok(answer);
  assert.equal(answer.response.headers.get("etag"), `"${data.version}"`);
  return data;
}

/** A 409's error body, compared whole with `expected`. */
function conflict(answer: { data?: Game; error?: Schemas["ErrorBody"]; response: Response }, expected: Schemas["ErrorDetail"]): string {
  assert.equal(answer.response.status, 409, JSON.stringify(answer.data ?? answer.error));
  assert.equal(answer.data, undefined);
  assert.ok(answer.error !== undefined, "no error body");
  assert.deepEqual(answer.error, { error: expected });
  const { code, reason, message } = answer.error.error;
  return `409 ${code}${reason === undefined ? "" : ` (${reason})`}: ${message}`;
}

const gamePath = () => ({ params: { path: { id: held.id } } });
const getGame = async () => asAnn.GET("/v1/games/{id}", gamePath());
// A game as openapi-fetch reads it: its helpers read a tuple (a Point) as an array.
type Game = NonNullable<Awaited<ReturnType<typeof getGame>>["data"]>;
const answers: Game[] = [];

// One event of text/event-stream, as EventSource reads it.
type StreamEvent = { event: string; id: string; data: string };

/**
 * The events of a text/event-stream body. openapi-fetch types the route and
 * hands the body over unread (parseAs "stream"), but has no SSE parser, and
 * Node has no EventSource: this splits the events (blank-line separated
 * fields; `:` lines are keep-alive comments).
 */
async function* streamEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const decoder = new TextDecoder();
  let text = "";
  const reader = body.getReader();
  for (let chunk = await reader.read(); chunk.done !== true; chunk = await reader.read()) {
    text += decoder.decode(chunk.value, { stream: true });
    for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
      const fields = new Map<string, string>();
      for (const line of text.slice(0, end).split("\n")) {
        if (line.startsWith(":")) {
          continue;
        }
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        const before = fields.get(name);
        fields.set(name, name === "data" && before !== undefined ? `${before}\n${value}` : value);
      }
      text = text.slice(end + 2);
      const data = fields.get("data");
      if (data !== undefined) {
        yield { event: fields.get("event") ?? "message", id: fields.get("id") ?? "", data };
      }
    }
  }
  assert.equal(text, "", "the stream ended inside an event");
}

let events: AsyncGenerator<StreamEvent> | undefined;
// The events after the first, read while the game is played.
let laterEvents: Promise<StreamEvent[]> = Promise.resolve([]);
// Every stream read here ends with the game; this bounds it if it does not.
const streamBound = AbortSignal.timeout(30_000);

await check("POST /v1/games, a dealt 4 x 4 Shisen-Sho game, with Ann's token: hers", async () => {
  held.owner = ann.id;
  const answer = await asAnn.POST("/v1/games", { body: heldRequest });
  assert.equal(answer.response.status, 201, JSON.stringify(answer.error));
  assert.equal(answer.response.headers.get("etag"), '"0"');
  const created = answer.data;
  assert.ok(created !== undefined, "no body");
  assert.match(created.id, /^[0-9a-f]{32}$/);
  assert.equal(answer.response.headers.get("location"), `/v1/games/${created.id}`);
  held.id = created.id;
  const expected = expectedGame(created, {
    version: 0,
    status: "playing",
    board: heldDealt,
    tiles_left: 16,
    moves_open: 10,
    assists: noAssists,
    ranked: true,
    last: { action: "create", version: 0, moved: [] },
  });
  assert.equal(created.elapsed_ms, 0);
  assert.deepEqual(created, expected);
  held.createdAt = created.created_at;
  answers.push(created);
  return `${describeGame(created)}, board ${describeBoard(heldDealt)}`;
});

await check("GET /v1/games/{id}/events, opened before the first action: the whole game first", async () => {
  const { data, response } = await asAnn.GET("/v1/games/{id}/events", { ...gamePath(), parseAs: "stream", signal: streamBound });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  assert.ok(data !== undefined && data !== null, "no body");
  events = streamEvents(data);
  const first = await events.next();
  assert.ok(first.done !== true, "the stream ended at once");
  assert.equal(first.value.event, "game");
  assert.equal(first.value.id, "0");
  const sent: Game = JSON.parse(first.value.data);
  assert.deepEqual(sent, expectedGame(sent, stateOf(answers[0]!)));
  const rest = events;
  laterEvents = (async () => {
    const later: StreamEvent[] = [];
    for await (const event of rest) {
      later.push(event);
    }
    return later;
  })();
  // A failure of the stream is reported by the check that awaits it.
  laterEvents.catch(() => undefined);
  return `event ${first.value.event}, id ${first.value.id}: ${describeGame(sent)}`;
});

let cleared: Schemas["Move"][] = [];

await check("POST /v1/clear on the game's board and rules: the sequence played", async () => {
  const created = answers[0];
  assert.ok(created?.board !== undefined && created.settings.rules !== undefined, "no game");
  const body: Schemas["ClearRequest"] = { board: created.board, rules: created.settings.rules };
  const answer = ok(await client.POST("/v1/clear", { body }));
  const expected: Schemas["ClearResponse"] = {
    outcome: "solvable",
    moves: heldMoves.map(({ move }) => move),
    states: 8,
    elapsed_ms: elapsedOf(answer),
    budget_ms: 1000,
  };
  assert.deepEqual(answer, expected);
  cleared = answer.moves ?? [];
  return `${answer.outcome}, ${describeMoves(answer.moves)}`;
});

await check("POST /v1/games/{id}/moves, an illegal move: 409 illegal_move, the version unchanged", async () => {
  const refused = conflict(await asAnn.POST("/v1/games/{id}/moves", { ...gamePath(), body: { from: [0, 0], to: [2, 2] } }), {
    code: "illegal_move",
    message: "the tiles at [0, 0] and [2, 2] cannot be removed: no_path",
    reason: "no_path",
  });
  const now = game(await getGame());
  assert.deepEqual(now, expectedGame(now, stateOf(answers[0]!)));
  return `${refused}; GET: ${describeGame(now)}`;
});

await check("POST /v1/games/{id}/hint: the first move /v1/moves lists", async () => {
  const listed = ok(await client.POST("/v1/moves", { body: { board: heldDealt, rules: "shisen-sho", limit: 1 } }));
  const first = listed.moves[0];
  assert.ok(first !== undefined, "no move listed");
  assert.deepEqual(first, { ...heldMoves[0]!.move, segments: 1, path: heldMoves[0]!.path });
  const hinted = game(await asAnn.POST("/v1/games/{id}/hint", gamePath()));
  const expected = expectedGame(hinted, {
    version: 1,
    status: "playing",
    board: heldDealt,
    tiles_left: 16,
    moves_open: 10,
    assists: { hints: 1, undos: 0, shuffles: 0 },
    ranked: false,
    last: { action: "hint", version: 1, moved: [], hint: first },
  });
  assert.deepEqual(hinted, expected);
  answers.push(hinted);
  return `hint ${point(first.from)}-${point(first.to)}; ${describeGame(hinted)}`;
});

/** The game after the `index`th move of the sequence was made (by a move or a redo) as change `version`. */
function afterMove(answer: Game, index: number, version: number, action: "move" | "redo", assists: Schemas["Assists"]): Game {
  return expectedGame(answer, heldAfterMove(index, version, action, assists));
}

await check("POST /v1/games/{id}/moves, the first move of the sequence", async () => {
  const move = cleared[0];
  assert.ok(move !== undefined, "no sequence");
  const moved = game(await asAnn.POST("/v1/games/{id}/moves", { ...gamePath(), body: { from: move.from, to: move.to } }));
  assert.deepEqual(moved, afterMove(moved, 0, 2, "move", { hints: 1, undos: 0, shuffles: 0 }));
  answers.push(moved);
  return describeGame(moved);
});

await check("POST /v1/games/{id}/undo: the pair back, an assist", async () => {
  const undone = game(await asAnn.POST("/v1/games/{id}/undo", gamePath()));
  const expected = expectedGame(undone, {
    version: 3,
    status: "playing",
    board: heldDealt,
    tiles_left: 16,
    moves_open: 10,
    assists: assisted,
    ranked: false,
    last: { action: "undo", version: 3, ...heldMoves[0]!.move, path: heldMoves[0]!.path, moved: [] },
  });
  assert.deepEqual(undone, expected);
  answers.push(undone);
  return describeGame(undone);
});

await check("POST /v1/games/{id}/redo: the move made again", async () => {
  const redone = game(await asAnn.POST("/v1/games/{id}/redo", gamePath()));
  assert.deepEqual(redone, afterMove(redone, 0, 4, "redo", assisted));
  answers.push(redone);
  return describeGame(redone);
});

await check("POST /v1/games/{id}/moves, the rest of the sequence to won", async () => {
  assert.equal(cleared.length, heldMoves.length, "no sequence");
  for (const [index, move] of cleared.entries()) {
    if (index === 0) {
      continue;
    }
    const moved = game(await asAnn.POST("/v1/games/{id}/moves", { ...gamePath(), body: { from: move.from, to: move.to } }));
    assert.deepEqual(moved, afterMove(moved, index, 4 + index, "move", assisted));
    answers.push(moved);
  }
  const won = answers[answers.length - 1]!;
  assert.equal(won.status, "won");
  return describeGame(won);
});

await check("GET /v1/games/{id}: won, as the last move answered it", async () => {
  const won = game(await getGame());
  // The clock stopped with the last move: the game reads as that move left it.
  assert.deepEqual(won, answers[answers.length - 1]);
  assert.equal(won.version, 11);
  assert.equal(won.tiles_left, 0);
  assert.equal(won.score, kshisenScore(16, won.elapsed_ms));
  return `${describeGame(won)}, ${won.elapsed_ms} ms`;
});

await check("GET /v1/games/{id}/events: one event a change, ids the versions, ending with won", async () => {
  const later = await laterEvents;
  assert.deepEqual(
    later.map(({ event, id }) => `${event} ${id}`),
    answers.slice(1).map(({ version }) => `game ${version}`),
  );
  // Each event is the game as the change answered it.
  assert.deepEqual(
    later.map(({ data }) => JSON.parse(data)),
    answers.slice(1),
  );
  return `${later.length} events after the first, ids ${later.map(({ id }) => id).join(" ")}`;
});

await check("GET /v1/games/{id}/events on the won game: the game, then the end", async () => {
  const { data, response } = await asAnn.GET("/v1/games/{id}/events", { ...gamePath(), parseAs: "text", signal: streamBound });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/event-stream");
  const won = answers[answers.length - 1]!;
  assert.equal(data, `event: game\nid: ${won.version}\ndata: ${JSON.stringify(won)}\n\n`);
  return `${data?.length} bytes, one event`;
});

await check("POST /v1/games/{id}/moves on the won game: 409 game_over", async () => {
  const refused = conflict(await asAnn.POST("/v1/games/{id}/moves", { ...gamePath(), body: heldMoves[0]!.move }), {
    code: "game_over",
    message: "the game is won, expected a game in play: nothing applies to a finished game",
  });
  const won = game(await getGame());
  assert.deepEqual(won, answers[answers.length - 1]);
  return `${refused}; GET: ${describeGame(won)}`;
});

await check("GET /v1/games/{id}/replay, POST /v1/replays: the same end", async () => {
  const replay = ok(await asAnn.GET("/v1/games/{id}/replay", gamePath()));
  const times = replay.actions.map(({ after_ms }) => after_ms);
  const actions: Schemas["ReplayAction"][] = [
    { action: "hint", after_ms: times[0]! },
    { action: "move", after_ms: times[1]!, ...heldMoves[0]!.move },
    { action: "undo", after_ms: times[2]! },
    { action: "redo", after_ms: times[3]! },
    ...heldMoves.slice(1).map(({ move }, i) => ({ action: "move" as const, after_ms: times[4 + i]!, ...move })),
  ];
  // The times of the answers, in order.
  assert.deepEqual(times, answers.slice(1).map(({ elapsed_ms }) => elapsed_ms));
  assert.deepEqual(replay, { settings: heldSettings, board: heldDealt, actions });
  const won = answers[answers.length - 1]!;
  const checked = ok(await client.POST("/v1/replays", { body: replay }));
  const expected: Schemas["ReplayCheck"] = {
    status: "won",
    version: 11,
    score: won.score,
    elapsed_ms: won.elapsed_ms,
    tiles_left: 0,
    moves_open: 0,
    assists: assisted,
    ranked: false,
    board: heldMoves[heldMoves.length - 1]!.board,
  };
  assert.deepEqual(checked, expected);
  return `${replay.actions.length} actions; replayed: ${checked.status}, v${checked.version}, score ${checked.score}`;
});

// ---------------------------------------------------------------------------
// The day's deal, a game made from it and won, and its leaderboard

const day = "2026-12-03";
let daily: Schemas["DailyDeal"] | undefined;

await check("GET /v1/daily/{date}: the deal of the documented seed", async () => {
  const game: Schemas["DailyGame"] = dailyGame(day);
  // The board is /v1/deal's for the same settings.
  const dealt = ok(await client.POST("/v1/deal", { body: game }));
  const answer = ok(
    await client.GET("/v1/daily/{date}", { params: { path: { date: day }, query: { width: 6, height: 4, types: 6 } } }),
  );
  assert.match(answer.leaderboard, /^[0-9a-f]{32}$/);
  const expected: Schemas["DailyDeal"] = { date: day, game, leaderboard: answer.leaderboard, board: dealt.board };
  assert.deepEqual(answer, expected);
  daily = answer;
  return `seed ${answer.game.seed}, leaderboard ${answer.leaderboard}, board ${describeBoard(answer.board)}`;
});

let dailyWon: Game | undefined;

await check("POST /v1/games from the day's deal with Ann's token, won: entered on its leaderboard under her name", async () => {
  assert.ok(daily !== undefined, "no deal");
  // `player` is a name shown with the game: the board shows the player's own.
  const body: Schemas["CreateGame"] = { ...daily.game, player: "Ada" };
  const made = await asAnn.POST("/v1/games", { body });
  assert.equal(made.response.status, 201, JSON.stringify(made.error));
  let won = made.data!;
  assert.deepEqual([won.leaderboard, won.player, won.owner, won.board], [daily.leaderboard, "Ada", ann.id, daily.board]);
  const sequence = ok(await client.POST("/v1/clear", { body: { board: won.board!, rules: "shisen-sho" } }));
  for (const step of sequence.moves ?? []) {
    const moved = await asAnn.POST("/v1/games/{id}/moves", {
      params: { path: { id: won.id } },
      body: { from: step.from, to: step.to },
    });
    won = ok(moved);
  }
  assert.deepEqual([won.status, won.ranked], ["won", true]);
  dailyWon = won;
  const board = ok(
    await client.GET("/v1/leaderboards/{name}", { params: { path: { name: daily.leaderboard }, query: { limit: 5 } } }),
  );
  const expected: Schemas["Leaderboard"] = { leaderboard: daily.leaderboard, entries: [leaderboardEntry(ann, won)] };
  assert.deepEqual(board, expected);
  const first = board.entries[0]!;
  return `${first.player}: rank ${first.rank}, ${first.elapsed_ms} ms, score ${first.score}`;
});

// Her win found, then a new name, a new token and her erasure.
await afterWin(client, asAnn, ann, answers[answers.length - 1]!, dailyWon);

// Two players race a match to a winner.
await race(client);

// ---------------------------------------------------------------------------
// Health

await check("GET /healthz", async () => {
  const answer = ok(await client.GET("/healthz"));
  const expected: Schemas["Health"] = { status: "ok" };
  assert.deepEqual(answer, expected);
  return answer.status;
});

await check("GET /readyz", async () => {
  const answer = ok(await client.GET("/readyz"));
  const expected: Schemas["Ready"] = { status: "ready" };
  assert.deepEqual(answer, expected);
  return answer.status;
});

finish("typescript client");
