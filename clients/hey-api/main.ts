// A TypeScript client of linkpath built on @hey-api/openapi-ts: its SDK is
// generated from openapi.yaml with the CLI's default options (the fetch
// client) into generated/, and every call goes through the generated
// functions (`solve`, `createGame`, `moveTiles`, ...), one per operation id.
// Every route of openapi.yaml is called: the JSON routes of the README with
// the README's own request bodies (or openapi.yaml's examples), every answer
// compared whole with its documented value and read through the generated
// types; /v1/render's SVG read as a Blob and compared byte for byte with
// docs/render.svg; the served files (the playground, /openapi.yaml) compared
// with the checkout's. Then it plays a held game to `won` (an illegal move,
// a hint, undo and redo, the rest of /v1/clear's sequence, the event stream
// read alongside through the SDK's Server-Sent Events reader, the replay
// played again by /v1/replays), a second game paused, resumed, shuffled and
// resigned, and the day's deal won and read back from its leaderboard. The
// held game and the day's are a player's: Ann signs up first and creates
// them with her token (players.ts), then her win is found, she is renamed,
// given a new token and erased. Last, two players race a match to a winner
// (players.ts).
//
//   node clients/hey-api/dist/hey-api/main.js http://127.0.0.1:8080 .
//
// The second argument is the checkout the answers are compared with
// (docs/render.svg, openapi.yaml, assets/playground/). Prints one line a
// check and exits 1 when any failed.
//
// Compiled as CommonJS (this directory has no package.json of its own): the
// generated files import one another without a file extension, which Node
// resolves for CommonJS and not for ES modules; so the checks run in main()
// rather than at the top level.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { client } from "./generated/client.gen";
import {
  checkReplay,
  clear,
  createGame,
  deal,
  gameEvents,
  getDailyDeal,
  getGame,
  getLeaderboard,
  getReplay,
  healthz,
  hint,
  metrics,
  moveTiles,
  moves,
  openapi,
  pause,
  play,
  playground,
  playgroundBoardScript,
  playgroundGameScript,
  playgroundLayouts,
  playgroundPlayerScript,
  playgroundScript,
  playgroundStyle,
  playgroundTilesScript,
  readyz,
  redo,
  render,
  resign,
  resume,
  shuffle,
  shuffleGame,
  solve,
  undo,
} from "./generated/index";
import type * as Api from "./generated/index";
import { afterWin, race, signUp } from "./players";
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
  heldMoves as sharedHeldMoves,
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

// A cell is read as a plain pair, [x, y] and nothing after it (openapi.yaml
// gives a point's two `prefixItems` no `items`): tsc fails here otherwise.
const sentCellIsAPair: Same<Api.Query["from"], Pair> = true;
const answeredCellIsAPair: Same<NonNullable<Api.Connected["path"]>[number], Pair> = true;

const [baseUrl, checkout] = process.argv.slice(2);
if (baseUrl === undefined || checkout === undefined) {
  console.error("usage: main.js BASE_URL CHECKOUT_DIR");
  process.exit(2);
}
const repoFile = (path: string): string => readFileSync(join(checkout, path), "utf8");

// The SDK's functions share one client; its base URL defaults to
// openapi.yaml's server (127.0.0.1:8080).
client.setConfig({ baseUrl });

// What every SDK function answers (without throwOnError): the parsed body
// in `data` on a 2xx, in `error` otherwise, and the Response.
type Answer<T, E = unknown> = { data: T | undefined; error: E | undefined; response?: Response };

/** The body of a 200 (201 for a game created) as JSON, or a failure naming the status and the error body. */
function ok<T>(answer: Answer<T>, status = 200): T {
  assert.equal(answer.response?.status, status, JSON.stringify(answer.error));
  assert.equal(answer.response?.headers.get("content-type"), "application/json");
  assert.ok(answer.data !== undefined, "no body");
  return answer.data;
}

// ---------------------------------------------------------------------------
// /v1/solve and /v1/render

// The README's bodies and answers are clients/shared/expected.cts's, each
// assigned to the generated type here: tsc checks them against this
// generator's reading of openapi.yaml.
const readmeSolve: Api.SolveRequest = solveExample.body;

async function solveAndRender(): Promise<void> {
  await check("POST /v1/solve, the README's example", async () => {
    const answer = ok(await solve({ body: readmeSolve }));
    const expected: Api.SolveResponse = solveExample.answer;
    assert.deepEqual(answer, expected);
    return answer.results.map(describeResult).join("; ");
  });

  await check("POST /v1/solve, a rules object", async () => {
    const body: Api.SolveRequest = solveRulesObject.body;
    const answer = ok(await solve({ body }));
    const expected: Api.SolveResponse = solveRulesObject.answer;
    assert.deepEqual(answer, expected);
    return answer.results.map(describeResult).join("; ");
  });

  await check("POST /v1/solve, every reason, include_path false", async () => {
    const body: Api.SolveRequest = solveEveryReason.body;
    const answer = ok(await solve({ body }));
    const expected: Api.SolveResponse = solveEveryReason.answer;
    assert.deepEqual(answer, expected);
    return answer.results.map(describeResult).join("; ");
  });

  await check("POST /v1/solve, number rows (curling)", async () => {
    const body: Api.SolveRequest = solveCurling.body;
    const answer = ok(await solve({ body }));
    const expected: Api.SolveResponse = solveCurling.answer;
    assert.deepEqual(answer, expected);
    return answer.results.map(describeResult).join("; ");
  });

  const ragged: Api.SolveRequest = solveRagged.body;
  const raggedError: Api.ErrorBody = solveRagged.answer;

  await check("POST /v1/solve, the README's ragged board: 422 through the typed error body", async () => {
    const { data, error, response } = await solve({ body: ragged });
    assert.equal(response?.status, 422);
    assert.equal(data, undefined);
    assert.ok(error !== undefined, "no error body");
    assert.deepEqual(error, raggedError);
    const { code, message, field } = error.error;
    return `${response?.status} ${code} at ${field ?? "(no field)"}: ${message}`;
  });

  await check("POST /v1/render, docs/render.json: the SVG of docs/render.svg, read from the Blob", async () => {
    const body: Api.SolveRequest = renderExample;
    // The default parseAs ("auto") reads an image/* answer as a Blob, which
    // is what the generated type says (Blob | File); `parseAs: "text"` would
    // give the string, still typed as a Blob.
    const { data, response } = await render({ body });
    assert.equal(response?.status, 200);
    assert.equal(response?.headers.get("content-type"), "image/svg+xml");
    assert.ok(data instanceof Blob, "no Blob");
    const svg = await data.text();
    assert.equal(svg, repoFile("docs/render.svg"));
    return `${response?.headers.get("content-type")}, ${svg.length} characters, equal to docs/render.svg`;
  });

  await check("POST /v1/render, the ragged board: 422, its error body parsed as JSON", async () => {
    // Error bodies are parsed as JSON whatever parseAs says.
    const { data, error, response } = await render({ body: ragged });
    assert.equal(response?.status, 422);
    assert.equal(data, undefined);
    assert.deepEqual(error, raggedError);
    return `${response?.status} ${error?.error.code}`;
  });
}

// ---------------------------------------------------------------------------
// The game routes

async function gameRoutes(): Promise<void> {
  await check("POST /v1/moves, the README's hint", async () => {
    const body: Api.MovesRequest = movesHint.body;
    const answer = ok(await moves({ body }));
    const expected: Api.MovesResponse = movesHint.answer;
    assert.deepEqual(answer, expected);
    const first = answer.moves[0]!;
    const flags = `stuck ${answer.stuck}, cleared ${answer.cleared}, truncated ${answer.truncated}`;
    return `${point(first.from)}-${point(first.to)} in ${first.segments} via ${first.path?.map(point).join(" ")}; ${flags}`;
  });

  await check("POST /v1/moves, the README's moves of one tile", async () => {
    const body: Api.MovesRequest = movesOfOneTile.body;
    const answer = ok(await moves({ body }));
    const expected: Api.MovesResponse = movesOfOneTile.answer;
    assert.deepEqual(answer, expected);
    return `${answer.moves.length} partners: ${answer.moves.map((m) => point(m.to)).join(" ")}`;
  });

  await check("POST /v1/play, the README's example", async () => {
    const body: Api.PlayRequest = playExample.body;
    const answer = ok(await play({ body }));
    const expected: Api.PlayResponse = playExample.answer;
    assert.deepEqual(answer, expected);
    const stop = answer.stopped_at;
    const stopped = stop === undefined ? "not stopped" : `stopped at ${stop.index} (${point(stop.from)}-${point(stop.to)}: ${stop.reason})`;
    return `${answer.steps.length} steps, ${stopped}, cleared ${answer.cleared}, stuck ${answer.stuck}, board ${describeBoard(answer.board)}`;
  });

  await check("POST /v1/clear, a board that can be cleared", async () => {
    const body: Api.ClearRequest = clearSolvable.body;
    const answer = ok(await clear({ body }));
    const expected: Api.ClearResponse = { ...clearSolvable.answer, elapsed_ms: elapsedOf(answer) };
    assert.deepEqual(answer, expected);
    return `${answer.outcome}, ${describeMoves(answer.moves)}, ${answer.states} states`;
  });

  await check("POST /v1/clear, two crossed pairs", async () => {
    const body: Api.ClearRequest = clearCrossed.body;
    const answer = ok(await clear({ body }));
    const expected: Api.ClearResponse = { ...clearCrossed.answer, elapsed_ms: elapsedOf(answer) };
    assert.deepEqual(answer, expected);
    return `${answer.outcome}, ${describeMoves(answer.moves)}, ${answer.states} states`;
  });

  await check("POST /v1/clear, the README's odd type", async () => {
    const body: Api.ClearRequest = clearOddType.body;
    const answer = ok(await clear({ body }));
    const expected: Api.ClearResponse = { ...clearOddType.answer, elapsed_ms: elapsedOf(answer) };
    assert.deepEqual(answer, expected);
    return `${answer.outcome}, ${answer.reason} ${answer.tile} x ${answer.count}`;
  });

  await check("POST /v1/deal, the README's example", async () => {
    const body: Api.DealRequest = dealExample.body;
    const answer = ok(await deal({ body }));
    const expected: Api.DealResponse = dealExample.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/deal, the README's Mahjong faces", async () => {
    const body: Api.DealRequest = dealMahjongFaces.body;
    const answer = ok(await deal({ body }));
    const expected: Api.DealResponse = dealMahjongFaces.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/deal, number rows (openapi.yaml's small deal, encoding numbers)", async () => {
    const body: Api.DealRequest = dealNumbers.body;
    const answer = ok(await deal({ body }));
    const expected: Api.DealResponse = dealNumbers.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/deal, onto a layout (openapi.yaml's pyramid)", async () => {
    const body: Api.DealRequest = dealLayout.body;
    const answer = ok(await deal({ body }));
    const expected: Api.DealResponse = dealLayout.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/shuffle, so that a move exists", async () => {
    const body: Api.ShuffleRequest = shuffleAMove.body;
    const answer = ok(await shuffle({ body }));
    const expected: Api.ShuffleResponse = shuffleAMove.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/shuffle, so that the board can be cleared", async () => {
    const body: Api.ShuffleRequest = shuffleClearable.body;
    const answer = ok(await shuffle({ body }));
    const expected: Api.ShuffleResponse = shuffleClearable.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });
}

// ---------------------------------------------------------------------------
// Held games

type Game = Api.GameView;

// What of a game does not follow the clock; `board` is left out while the
// game is paused.
type GameState = Pick<Game, "version" | "status" | "tiles_left" | "moves_open" | "assists" | "ranked" | "board" | "last">;

function stateOf({ version, status, board, tiles_left, moves_open, assists, ranked, last }: Game): GameState {
  assert.ok(board !== undefined && last !== undefined, "no board or no last change");
  return { version, status, board, tiles_left, moves_open, assists, ranked, last };
}

// /v1/clear's sequence for the held deal (clients/shared/expected.cts).
const heldMoves: { move: Api.MoveRequest; path: Api.Query["from"][]; board: string[]; movesOpen: number }[] = sharedHeldMoves;

/** A game answer of the held deal expected whole (clients/shared/expected.cts), typed as this generator reads a game. */
function expectedGame(game: Followed, answer: Game, fields: GameState): Game {
  return expectedHeldGame(game, answer, fields);
}

/** A 200 game answer, its `ETag` its version. */
function game(answer: Answer<Game>): Game {
  const data = ok(answer);
  assert.equal(answer.response?.headers.get("etag"), `"${data.version}"`);
  return data;
}

/** A 409's error body, compared whole with `expected`. */
function conflict(answer: Answer<Game, Api.ErrorBody>, expected: Api.ErrorDetail): string {
  assert.equal(answer.response?.status, 409, JSON.stringify(answer.data ?? answer.error));
  assert.equal(answer.data, undefined);
  assert.ok(answer.error !== undefined, "no error body");
  assert.deepEqual(answer.error, { error: expected });
  const { code, reason, message } = answer.error.error;
  return `409 ${code}${reason === undefined ? "" : ` (${reason})`}: ${message}`;
}

/** A new game of the seeded 4 x 4 deal, created with `player`'s token when there is one, checked whole. */
async function created(player?: Player): Promise<{ followed: Followed; first: Game }> {
  const answer = await createGame({ body: heldRequest, ...(player === undefined ? {} : { auth: player.token }) });
  const first = ok(answer, 201);
  assert.equal(answer.response?.headers.get("etag"), '"0"');
  assert.match(first.id, /^[0-9a-f]{32}$/);
  assert.equal(answer.response?.headers.get("location"), `/v1/games/${first.id}`);
  assert.equal(first.elapsed_ms, 0);
  const followed: Followed = { id: first.id, createdAt: "", elapsedMs: 0, ...(player === undefined ? {} : { owner: player.id }) };
  const expected = expectedGame(followed, first, {
    version: 0,
    status: "playing",
    board: heldDealt,
    tiles_left: 16,
    moves_open: 10,
    assists: noAssists,
    ranked: true,
    last: { action: "create", version: 0, moved: [] },
  });
  assert.deepEqual(first, expected);
  followed.createdAt = first.created_at;
  return { followed, first };
}

/**
 * A game of the stream. The SDK's Server-Sent Events reader parses each
 * event's `data` as JSON, so it yields the game itself, where the generated
 * type says EventStream (GameEvent | string, openapi.yaml's schema of the
 * stream, or void for the 204 that ends a finished game's stream); the game
 * is checked to be an object with a version and taken as one.
 */
function sentGame(data: Api.GameEventsResponse): Game {
  assert.ok(isGame(data), `not a game: ${JSON.stringify(data)}`);
  return data;
}

/** Whether `data` is a game: an object with a version (each is then compared whole with the game expected). */
function isGame(data: unknown): data is Game {
  return typeof data === "object" && data !== null && "version" in data;
}

// One event as the SDK's reader hands it to onSseEvent.
type StreamEvent = { event: string | undefined; id: string | undefined; data: Api.GameEventsResponse };

// A held game, played to the end: created, an illegal move, a hint, a move
// taken back and made again, the rest of /v1/clear's sequence to `won`, all
// watched on the event stream; then a move on the won game, and its replay
// played again by /v1/replays. The game is `player`'s, each action sent with
// the player's token; answers the game as it ended.
async function heldGame(player: Player): Promise<Game | undefined> {
  const held: Followed = { id: "", createdAt: "", elapsedMs: 0 };
  const answers: Game[] = [];
  const gamePath = () => ({ path: { id: held.id }, auth: player.token });
  // Every stream read here ends with the game; this bounds it if it does not.
  const streamBound = AbortSignal.timeout(30_000);
  const streamed: StreamEvent[] = [];
  let stream: AsyncGenerator<Api.GameEventsResponse> | undefined;
  let laterEvents: Promise<void> = Promise.resolve();

  await check("POST /v1/games, a dealt 4 x 4 Shisen-Sho game, with Ann's token: hers", async () => {
    const { followed, first } = await created(player);
    Object.assign(held, followed);
    answers.push(first);
    return `${describeGame(first)}, board ${describeBoard(heldDealt)}`;
  });

  await check("GET /v1/games/{id}/events, opened before the first action: the whole game first", async () => {
    const events = await gameEvents({
      ...gamePath(),
      signal: streamBound,
      // One attempt: the reader would otherwise reconnect after an error.
      sseMaxRetryAttempts: 1,
      onSseEvent: ({ event, id, data }) => streamed.push({ event, id, data }),
      onSseError: (error) => streamed.push({ event: "error", id: undefined, data: String(error) }),
    });
    stream = events.stream;
    const first = await stream.next();
    assert.ok(first.done !== true, "the stream ended at once");
    assert.deepEqual(
      streamed.map(({ event, id }) => `${event} ${id}`),
      ["game 0"],
    );
    const sent = sentGame(first.value);
    assert.deepEqual(sent, expectedGame(held, sent, stateOf(answers[0]!)));
    const rest = stream;
    laterEvents = (async () => {
      for await (const _ of rest) {
        // onSseEvent keeps each event, its name and id with it.
      }
    })();
    // A failure of the stream is reported by the check that awaits it.
    laterEvents.catch(() => undefined);
    return `event game, id 0: ${describeGame(sent)}`;
  });

  let cleared: Api.Move[] = [];

  await check("POST /v1/clear on the game's board and rules: the sequence played", async () => {
    const first = answers[0];
    assert.ok(first?.board !== undefined && first.settings.rules !== undefined, "no game");
    const answer = ok(await clear({ body: { board: first.board, rules: first.settings.rules } }));
    const expected: Api.ClearResponse = {
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
    const refused = conflict(await moveTiles({ ...gamePath(), body: { from: [0, 0], to: [2, 2] } }), {
      code: "illegal_move",
      message: "the tiles at [0, 0] and [2, 2] cannot be removed: no_path",
      reason: "no_path",
    });
    const now = game(await getGame(gamePath()));
    assert.deepEqual(now, expectedGame(held, now, stateOf(answers[0]!)));
    return `${refused}; GET: ${describeGame(now)}`;
  });

  await check("POST /v1/games/{id}/hint: the first move /v1/moves lists", async () => {
    const listed = ok(await moves({ body: { board: heldDealt, rules: "shisen-sho", limit: 1 } }));
    const first = listed.moves[0];
    assert.ok(first !== undefined, "no move listed");
    assert.deepEqual(first, { ...heldMoves[0]!.move, segments: 1, path: heldMoves[0]!.path });
    const hinted = game(await hint(gamePath()));
    const expected = expectedGame(held, hinted, {
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
  function afterMove(answer: Game, index: number, version: number, action: "move" | "redo", assists: Api.Assists): Game {
    return expectedGame(held, answer, heldAfterMove(index, version, action, assists));
  }

  await check("POST /v1/games/{id}/moves, the first move of the sequence", async () => {
    const move = cleared[0];
    assert.ok(move !== undefined, "no sequence");
    const moved = game(await moveTiles({ ...gamePath(), body: { from: move.from, to: move.to } }));
    assert.deepEqual(moved, afterMove(moved, 0, 2, "move", { hints: 1, undos: 0, shuffles: 0 }));
    answers.push(moved);
    return describeGame(moved);
  });

  await check("POST /v1/games/{id}/undo: the pair back, an assist", async () => {
    const undone = game(await undo(gamePath()));
    const expected = expectedGame(held, undone, {
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
    const redone = game(await redo(gamePath()));
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
      const moved = game(await moveTiles({ ...gamePath(), body: { from: move.from, to: move.to } }));
      assert.deepEqual(moved, afterMove(moved, index, 4 + index, "move", assisted));
      answers.push(moved);
    }
    const won = answers[answers.length - 1]!;
    assert.equal(won.status, "won");
    return describeGame(won);
  });

  await check("GET /v1/games/{id}: won, as the last move answered it", async () => {
    const won = game(await getGame(gamePath()));
    // The clock stopped with the last move: the game reads as that move left it.
    assert.deepEqual(won, answers[answers.length - 1]);
    assert.equal(won.version, 11);
    assert.equal(won.tiles_left, 0);
    assert.equal(won.score, kshisenScore(16, won.elapsed_ms));
    return `${describeGame(won)}, ${won.elapsed_ms} ms`;
  });

  await check("GET /v1/games/{id}/events: one event a change, ids the versions, ending with won", async () => {
    await laterEvents;
    const later = streamed.slice(1);
    assert.deepEqual(
      later.map(({ event, id }) => `${event} ${id}`),
      answers.slice(1).map(({ version }) => `game ${version}`),
    );
    // Each event is the game as the change answered it.
    assert.deepEqual(
      later.map(({ data }) => sentGame(data)),
      answers.slice(1),
    );
    return `${later.length} events after the first, ids ${later.map(({ id }) => id).join(" ")}`;
  });

  await check("GET /v1/games/{id}/events on the won game: the game, then the end", async () => {
    const events = await gameEvents({ ...gamePath(), signal: streamBound, sseMaxRetryAttempts: 1 });
    const sent: Game[] = [];
    for await (const data of events.stream) {
      sent.push(sentGame(data));
    }
    assert.deepEqual(sent, [answers[answers.length - 1]]);
    return `${sent.length} event: ${describeGame(sent[0]!)}`;
  });

  await check("POST /v1/games/{id}/moves on the won game: 409 game_over", async () => {
    const refused = conflict(await moveTiles({ ...gamePath(), body: heldMoves[0]!.move }), {
      code: "game_over",
      message: "the game is won, expected a game in play: nothing applies to a finished game",
    });
    const won = game(await getGame(gamePath()));
    assert.deepEqual(won, answers[answers.length - 1]);
    return `${refused}; GET: ${describeGame(won)}`;
  });

  await check("GET /v1/games/{id}/replay, POST /v1/replays: the same end", async () => {
    const replay = ok(await getReplay(gamePath()));
    const times = replay.actions.map(({ after_ms }) => after_ms);
    const actions: Api.ReplayAction[] = [
      { action: "hint", after_ms: times[0]! },
      { action: "move", after_ms: times[1]!, ...heldMoves[0]!.move },
      { action: "undo", after_ms: times[2]! },
      { action: "redo", after_ms: times[3]! },
      ...heldMoves.slice(1).map(({ move }, i) => ({ action: "move" as const, after_ms: times[4 + i]!, ...move })),
    ];
    // The times of the answers, in order.
    assert.deepEqual(
      times,
      answers.slice(1).map(({ elapsed_ms }) => elapsed_ms),
    );
    const expectedReplay: Api.Replay = { settings: heldSettings, board: heldDealt, actions };
    assert.deepEqual(replay, expectedReplay);
    const won = answers[answers.length - 1]!;
    const replayed = ok(await checkReplay({ body: replay }));
    const expected: Api.ReplayCheck = {
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
    assert.deepEqual(replayed, expected);
    return `${replay.actions.length} actions; replayed: ${replayed.status}, v${replayed.version}, score ${replayed.score}`;
  });
  return answers[answers.length - 1];
}

// A second game of the same deal, for the actions the first did not take:
// paused (the board hidden, actions refused), resumed, shuffled, resigned.
async function otherActions(): Promise<void> {
  const second: Followed = { id: "", createdAt: "", elapsedMs: 0 };
  const gamePath = () => ({ path: { id: second.id } });
  let before: Game | undefined;

  await check("POST /v1/games, the same deal again", async () => {
    const { followed, first } = await created();
    Object.assign(second, followed);
    before = first;
    return describeGame(first);
  });

  await check("POST /v1/games/{id}/pause: the board hidden, then a hint refused (409 action_refused)", async () => {
    const paused = game(await pause(gamePath()));
    const expected = expectedGame(second, paused, {
      version: 1,
      status: "paused",
      tiles_left: 16,
      moves_open: 10,
      assists: noAssists,
      ranked: true,
      last: { action: "pause", version: 1, moved: [] },
    });
    assert.deepEqual(paused, expected);
    const refused = conflict(await hint(gamePath()), {
      code: "action_refused",
      message: "the game is paused, expected `resume` first (or `resign`)",
    });
    return `${describeGame(paused)}; ${refused}`;
  });

  await check("POST /v1/games/{id}/resume: the board shown again", async () => {
    const resumed = game(await resume(gamePath()));
    const expected = expectedGame(second, resumed, {
      version: 2,
      status: "playing",
      board: heldDealt,
      tiles_left: 16,
      moves_open: 10,
      assists: noAssists,
      ranked: true,
      last: { action: "resume", version: 2, moved: [] },
    });
    assert.deepEqual(resumed, expected);
    before = resumed;
    return describeGame(resumed);
  });

  await check("POST /v1/games/{id}/shuffle: the tiles moved as `moved` says, the board clearable", async () => {
    assert.ok(before?.board !== undefined, "no board before");
    const shuffled = game(await shuffleGame(gamePath()));
    // The shuffle is random: the board and `moved` are taken as they came,
    // then checked against each other and against the board before.
    const board = shuffled.board;
    const tilesMoved = shuffled.last?.moved;
    assert.ok(board !== undefined && tilesMoved !== undefined, "no board or no moved");
    const expected = expectedGame(second, shuffled, {
      version: 3,
      status: "playing",
      board,
      tiles_left: 16,
      moves_open: shuffled.moves_open,
      assists: { hints: 0, undos: 0, shuffles: 1 },
      ranked: false,
      last: { action: "shuffle", version: 3, moved: tilesMoved },
    });
    assert.deepEqual(shuffled, expected);
    const rows = (b: Api.Board) => b.map((row) => [...String(row)]);
    const moved = rows(before.board);
    const old = rows(before.board);
    for (const { from, to } of tilesMoved) {
      const [fx, fy] = from;
      const [tx, ty] = to;
      moved[ty]![tx] = old[fy]![fx]!;
    }
    assert.deepEqual(moved, rows(board), "the board before, its tiles moved as `moved` says");
    const listed = ok(await moves({ body: { board, rules: "shisen-sho" } }));
    assert.equal(listed.moves.length, shuffled.moves_open);
    const clearable = ok(await clear({ body: { board, rules: "shisen-sho" } }));
    assert.equal(clearable.outcome, "solvable");
    return `${describeGame(shuffled)}, ${tilesMoved.length} tiles moved, board ${describeBoard(board)}`;
  });

  await check("POST /v1/games/{id}/resign: resigned, then a hint refused (409 game_over)", async () => {
    assert.ok(before !== undefined, "no game");
    const shuffled = game(await getGame(gamePath()));
    const resigned = game(await resign(gamePath()));
    const { board, moves_open } = shuffled;
    const expected = expectedGame(second, resigned, {
      version: 4,
      status: "resigned",
      ...(board === undefined ? {} : { board }),
      tiles_left: 16,
      moves_open,
      assists: { hints: 0, undos: 0, shuffles: 1 },
      ranked: false,
      last: { action: "resign", version: 4, moved: [] },
    });
    assert.deepEqual(resigned, expected);
    const refused = conflict(await hint(gamePath()), {
      code: "game_over",
      message: "the game is resigned, expected a game in play: nothing applies to a finished game",
    });
    return `${describeGame(resigned)}; ${refused}`;
  });
}

// ---------------------------------------------------------------------------
// The day's deal, a game made from it and won, and its leaderboard

// The game is won with `player`'s token, and answered as it ended.
async function dailyDeal(player: Player): Promise<Game | undefined> {
  // A day of its own: the other programs of scripts/contract-test.sh play
  // theirs on the same server, and this leaderboard holds this win alone.
  const day = "2026-12-04";
  let daily: Api.DailyDeal | undefined;

  await check("GET /v1/daily/{date}: the deal of the documented seed", async () => {
    const settings: Api.DailyGame = dailyGame(day);
    // The board is /v1/deal's for the same settings.
    const dealtDaily = ok(await deal({ body: settings }));
    const answer = ok(await getDailyDeal({ path: { date: day }, query: { width: 6, height: 4, types: 6 } }));
    assert.match(answer.leaderboard, /^[0-9a-f]{32}$/);
    const expected: Api.DailyDeal = { date: day, game: settings, leaderboard: answer.leaderboard, board: dealtDaily.board };
    assert.deepEqual(answer, expected);
    daily = answer;
    return `seed ${answer.game.seed}, leaderboard ${answer.leaderboard}, board ${describeBoard(answer.board)}`;
  });

  let dailyWon: Game | undefined;

  await check("POST /v1/games from the day's deal with Ann's token, won: entered on its leaderboard under her name", async () => {
    assert.ok(daily !== undefined, "no deal");
    // `player` is a name shown with the game: the board shows the player's own.
    const body: Api.CreateGame = { ...daily.game, player: "Ada" };
    let won = ok(await createGame({ body, auth: player.token }), 201);
    assert.deepEqual([won.leaderboard, won.player, won.owner, won.board], [daily.leaderboard, "Ada", player.id, daily.board]);
    const sequence = ok(await clear({ body: { board: won.board!, rules: "shisen-sho" } }));
    for (const step of sequence.moves ?? []) {
      won = ok(await moveTiles({ path: { id: won.id }, body: { from: step.from, to: step.to }, auth: player.token }));
    }
    assert.deepEqual([won.status, won.ranked], ["won", true]);
    dailyWon = won;
    const board = ok(await getLeaderboard({ path: { name: daily.leaderboard }, query: { limit: 5 } }));
    const expected: Api.Leaderboard = { leaderboard: daily.leaderboard, entries: [leaderboardEntry(player, won)] };
    assert.deepEqual(board, expected);
    const first = board.entries[0]!;
    return `${first.player}: rank ${first.rank}, ${first.elapsed_ms} ms, score ${first.score}`;
  });
  return dailyWon;
}

// ---------------------------------------------------------------------------
// The playground's files, the contract, health and metrics

async function servedFiles(): Promise<void> {
  await check("GET /: the playground page, as assets/playground/index.html", async () => {
    const { data, response } = await playground();
    assert.equal(response?.status, 200);
    assert.equal(response?.headers.get("content-type"), "text/html; charset=utf-8");
    // text/* is read as text: the generated type is a string.
    const page: string | undefined = data;
    assert.equal(page, repoFile("assets/playground/index.html"));
    return `${page?.length} characters, CSP ${response?.headers.get("content-security-policy")}`;
  });

  await check("GET /playground/app.js, its modules and style.css, as in assets/playground/", async () => {
    const script = await playgroundScript();
    assert.equal(script.response?.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(script.data, repoFile("assets/playground/app.js"));
    const player = await playgroundPlayerScript();
    assert.equal(player.response?.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(player.data, repoFile("assets/playground/player.js"));
    for (const [name, get] of [["board.js", playgroundBoardScript], ["tiles.js", playgroundTilesScript], ["game.js", playgroundGameScript]] as const) {
      const module = await get();
      assert.equal(module.response?.headers.get("content-type"), "text/javascript; charset=utf-8", name);
      assert.equal(module.data, repoFile(`assets/playground/${name}`), name);
    }
    const style = await playgroundStyle();
    assert.equal(style.response?.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(style.data, repoFile("assets/playground/style.css"));
    return `${script.data?.length} + ${player.data?.length} + ${style.data?.length} characters`;
  });

  await check("GET /playground/layouts.json: the layouts of assets/layouts/", async () => {
    const layouts = ok(await playgroundLayouts());
    const pyramid = layouts.find(({ name }) => name === "pyramid");
    const expected: Api.PlaygroundLayout = { name: "pyramid", rows: repoFile("assets/layouts/pyramid.txt").trimEnd().split("\n") };
    assert.deepEqual(pyramid, expected);
    assert.ok(layouts.some(({ name }) => name === "rectangle"), "no rectangle");
    return layouts.map(({ name, rows }) => `${name} ${rows.length} rows`).join(", ");
  });

  await check("GET /openapi.yaml: openapi.yaml byte for byte, then 304 on its ETag", async () => {
    // application/yaml would be read as a Blob; the schema is {} (unknown).
    const { data, response } = await openapi({ parseAs: "text" });
    assert.equal(response?.status, 200);
    assert.equal(response?.headers.get("content-type"), "application/yaml");
    assert.ok(typeof data === "string", "not text");
    assert.equal(data, repoFile("openapi.yaml"));
    const etag = response?.headers.get("etag");
    assert.ok(etag !== null && etag !== undefined, "no ETag");
    const again = await openapi({ headers: { "If-None-Match": etag } });
    assert.equal(again.response?.status, 304);
    return `${data.length} characters, ETag ${etag}, then ${again.response?.status}`;
  });

  await check("GET /healthz", async () => {
    const answer = ok(await healthz());
    const expected: Api.Health = { status: "ok" };
    assert.deepEqual(answer, expected);
    return answer.status;
  });

  await check("GET /readyz", async () => {
    const answer = ok(await readyz());
    const expected: Api.Ready = { status: "ready" };
    assert.deepEqual(answer, expected);
    return answer.status;
  });

  await check("GET /metrics: the text format, these requests counted", async () => {
    const { data, response } = await metrics();
    assert.equal(response?.status, 200);
    assert.equal(response?.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    assert.ok(data !== undefined, "no body");
    const moved = data.split("\n").find((line) => line.startsWith('linkpath_http_requests_total{route="/v1/games/{id}/moves",method="POST",status="409"}'));
    assert.ok(moved !== undefined, "no count of the refused moves");
    return `${data.split("\n").length} lines; ${moved}`;
  });
}

async function main(): Promise<void> {
  await solveAndRender();
  await gameRoutes();
  const ann: Player = { id: "", name: "", createdAt: "", token: "" };
  await signUp(ann);
  const held = await heldGame(ann);
  await otherActions();
  const won = await dailyDeal(ann);
  await afterWin(ann, held, won);
  await race();
  await servedFiles();
  finish("hey-api client");
}

main().catch((error: unknown) => {
  console.log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
