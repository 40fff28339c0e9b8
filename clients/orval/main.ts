// A TypeScript client of linkpath built on orval's fetch client: one file,
// generated/linkpath.ts, generated from openapi.yaml by the CLI (`--client
// fetch`, no configuration file), with a function a operation (`solve`,
// `createGame`, `moveTiles`, ...) answering `{ data, status, headers }`, typed
// by status. Every route of openapi.yaml is called through it: the JSON
// routes of the README with the README's own request bodies (or
// openapi.yaml's examples), every answer compared whole with its documented
// value and read through the generated types; /v1/render's SVG read from the
// Blob the client answers and compared byte for byte with docs/render.svg;
// the served files (the playground, /openapi.yaml) compared with the
// checkout's. Then it plays a held game to `won` (an illegal move, a hint,
// undo and redo, the rest of /v1/clear's sequence, the replay played again
// by /v1/replays, the event stream read once the game is won: the client
// reads a body whole, so a stream is read when it has ended), a second game
// paused, resumed, shuffled and resigned, and the day's deal won and read
// back from its leaderboard. The held game and the day's are a player's: Ann
// signs up first and creates them with her token (players.ts), then her win
// is found, she is renamed, given a new token and erased. Last, two players
// race a match to a winner (players.ts).
//
//   node clients/orval/dist/orval/main.js http://127.0.0.1:8080 .
//
// The second argument is the checkout the answers are compared with
// (docs/render.svg, openapi.yaml, assets/playground/). Prints one line a
// check and exits 1 when any failed. Compiled as CommonJS, as
// clients/hey-api/main.ts is: the checks run in main().

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
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
} from "./generated/linkpath";
import type * as Api from "./generated/linkpath";
import { afterWin, bearer, race, signUp } from "./players";
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

// The generated functions fetch paths relative to the page (`/v1/solve`),
// as a page served by linkpath itself would: the CLI takes no base URL (a
// configuration file's `output.baseUrl` would write one in). Outside a
// browser there is no page, so they are resolved against the server here.
const fetchFromPage = globalThis.fetch;
globalThis.fetch = (input, init) => fetchFromPage(typeof input === "string" ? new URL(input, baseUrl) : input, init);

// What every generated function answers: one of the documented statuses,
// with its body typed for it, and the headers.
type Answer = { data: unknown; status: number; headers: Headers };
// The body an answer has at `status`, as the generated type says.
type BodyAt<R extends Answer, S extends number> = Extract<R, { status: S }>["data"];

/** Whether `answer` has `status`: the generated type then says what its body is. */
function hasStatus<R extends Answer, S extends number>(answer: R, status: S): answer is Extract<R, { status: S }> {
  return answer.status === status;
}

/** The body of an answer at `status` as JSON, or a failure naming the status and the body. */
function at<R extends Answer, S extends number>(answer: R, status: S): BodyAt<R, S> {
  if (!hasStatus(answer, status)) {
    assert.fail(`status ${answer.status}, expected ${status}: ${JSON.stringify(answer.data)}`);
  }
  assert.equal(answer.headers.get("content-type"), "application/json");
  return answer.data;
}

/** The body of a 200 as JSON, or a failure naming the status and the body. */
function ok<R extends Answer>(answer: R): BodyAt<R, 200> {
  return at(answer, 200);
}

// ---------------------------------------------------------------------------
// /v1/solve and /v1/render

// The README's bodies and answers are clients/shared/expected.cts's, each
// assigned to the generated type here: tsc checks them against this
// generator's reading of openapi.yaml.
const readmeSolve: Api.SolveRequest = solveExample.body;

async function solveAndRender(): Promise<void> {
  await check("POST /v1/solve, the README's example", async () => {
    const answer = ok(await solve(readmeSolve));
    const expected: Api.SolveResponse = solveExample.answer;
    assert.deepEqual(answer, expected);
    return answer.results.map(describeResult).join("; ");
  });

  await check("POST /v1/solve, a rules object", async () => {
    const body: Api.SolveRequest = solveRulesObject.body;
    const answer = ok(await solve(body));
    const expected: Api.SolveResponse = solveRulesObject.answer;
    assert.deepEqual(answer, expected);
    return answer.results.map(describeResult).join("; ");
  });

  await check("POST /v1/solve, every reason, include_path false", async () => {
    const body: Api.SolveRequest = solveEveryReason.body;
    const answer = ok(await solve(body));
    const expected: Api.SolveResponse = solveEveryReason.answer;
    assert.deepEqual(answer, expected);
    return answer.results.map(describeResult).join("; ");
  });

  await check("POST /v1/solve, number rows (curling)", async () => {
    const body: Api.SolveRequest = solveCurling.body;
    const answer = ok(await solve(body));
    const expected: Api.SolveResponse = solveCurling.answer;
    assert.deepEqual(answer, expected);
    return answer.results.map(describeResult).join("; ");
  });

  const ragged: Api.SolveRequest = solveRagged.body;
  const raggedError: Api.ErrorBody = solveRagged.answer;

  await check("POST /v1/solve, the README's ragged board: 422 through the typed error body", async () => {
    const answer = await solve(ragged);
    // The status narrows the answer to its body's type.
    assert.ok(answer.status === 422, `status ${answer.status}`);
    const error: Api.ErrorBody = answer.data;
    assert.deepEqual(error, raggedError);
    const { code, message, field } = error.error;
    return `${answer.status} ${code} at ${field ?? "(no field)"}: ${message}`;
  });

  await check("POST /v1/render, docs/render.json: the SVG of docs/render.svg, read from the Blob", async () => {
    const body: Api.SolveRequest = renderExample;
    // An image/* answer is read with res.blob(), and typed Blob.
    const answer = await render(body);
    assert.ok(answer.status === 200, `status ${answer.status}`);
    assert.equal(answer.headers.get("content-type"), "image/svg+xml");
    const picture: Blob = answer.data;
    assert.ok(picture instanceof Blob, "no Blob");
    const svg = await picture.text();
    assert.equal(svg, repoFile("docs/render.svg"));
    return `${answer.headers.get("content-type")}, ${svg.length} characters, equal to docs/render.svg`;
  });

  await check("POST /v1/render, the ragged board: 422, its JSON error body handed over as a Blob", async () => {
    // The client reads every answer of this operation with res.blob(), its
    // errors too, though their type is ErrorBody: the JSON is in the Blob.
    const answer = await render(ragged);
    assert.equal(answer.status, 422);
    assert.equal(answer.headers.get("content-type"), "application/json");
    const sent: unknown = answer.data;
    assert.ok(sent instanceof Blob, `not a Blob: ${JSON.stringify(sent)}`);
    const error: Api.ErrorBody = JSON.parse(await sent.text());
    assert.deepEqual(error, raggedError);
    return `${answer.status} ${error.error.code}, ${sent.size} bytes of JSON in a Blob`;
  });
}

// ---------------------------------------------------------------------------
// The game routes

async function gameRoutes(): Promise<void> {
  await check("POST /v1/moves, the README's hint", async () => {
    const body: Api.MovesRequest = movesHint.body;
    const answer = ok(await moves(body));
    const expected: Api.MovesResponse = movesHint.answer;
    assert.deepEqual(answer, expected);
    const first = answer.moves[0]!;
    const flags = `stuck ${answer.stuck}, cleared ${answer.cleared}, truncated ${answer.truncated}`;
    return `${point(first.from)}-${point(first.to)} in ${first.segments} via ${first.path?.map(point).join(" ")}; ${flags}`;
  });

  await check("POST /v1/moves, the README's moves of one tile", async () => {
    const body: Api.MovesRequest = movesOfOneTile.body;
    const answer = ok(await moves(body));
    const expected: Api.MovesResponse = movesOfOneTile.answer;
    assert.deepEqual(answer, expected);
    return `${answer.moves.length} partners: ${answer.moves.map((m) => point(m.to)).join(" ")}`;
  });

  await check("POST /v1/play, the README's example", async () => {
    const body: Api.PlayRequest = playExample.body;
    const answer = ok(await play(body));
    const expected: Api.PlayResponse = playExample.answer;
    assert.deepEqual(answer, expected);
    const stop = answer.stopped_at;
    const stopped = stop === undefined ? "not stopped" : `stopped at ${stop.index} (${point(stop.from)}-${point(stop.to)}: ${stop.reason})`;
    return `${answer.steps.length} steps, ${stopped}, cleared ${answer.cleared}, stuck ${answer.stuck}, board ${describeBoard(answer.board)}`;
  });

  await check("POST /v1/clear, a board that can be cleared", async () => {
    const body: Api.ClearRequest = clearSolvable.body;
    const answer = ok(await clear(body));
    const expected: Api.ClearResponse = { ...clearSolvable.answer, elapsed_ms: elapsedOf(answer) };
    assert.deepEqual(answer, expected);
    return `${answer.outcome}, ${describeMoves(answer.moves)}, ${answer.states} states`;
  });

  await check("POST /v1/clear, two crossed pairs", async () => {
    const body: Api.ClearRequest = clearCrossed.body;
    const answer = ok(await clear(body));
    const expected: Api.ClearResponse = { ...clearCrossed.answer, elapsed_ms: elapsedOf(answer) };
    assert.deepEqual(answer, expected);
    return `${answer.outcome}, ${describeMoves(answer.moves)}, ${answer.states} states`;
  });

  await check("POST /v1/clear, the README's odd type", async () => {
    const body: Api.ClearRequest = clearOddType.body;
    const answer = ok(await clear(body));
    const expected: Api.ClearResponse = { ...clearOddType.answer, elapsed_ms: elapsedOf(answer) };
    assert.deepEqual(answer, expected);
    return `${answer.outcome}, ${answer.reason} ${answer.tile} x ${answer.count}`;
  });

  await check("POST /v1/deal, the README's example", async () => {
    const body: Api.DealRequest = dealExample.body;
    const answer = ok(await deal(body));
    const expected: Api.DealResponse = dealExample.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/deal, the README's Mahjong faces", async () => {
    const body: Api.DealRequest = dealMahjongFaces.body;
    const answer = ok(await deal(body));
    const expected: Api.DealResponse = dealMahjongFaces.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/deal, number rows (openapi.yaml's small deal, encoding numbers)", async () => {
    const body: Api.DealRequest = dealNumbers.body;
    const answer = ok(await deal(body));
    const expected: Api.DealResponse = dealNumbers.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/deal, onto a layout (openapi.yaml's pyramid)", async () => {
    const body: Api.DealRequest = dealLayout.body;
    const answer = ok(await deal(body));
    const expected: Api.DealResponse = dealLayout.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/shuffle, so that a move exists", async () => {
    const body: Api.ShuffleRequest = shuffleAMove.body;
    const answer = ok(await shuffle(body));
    const expected: Api.ShuffleResponse = shuffleAMove.answer;
    assert.deepEqual(answer, expected);
    return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
  });

  await check("POST /v1/shuffle, so that the board can be cleared", async () => {
    const body: Api.ShuffleRequest = shuffleClearable.body;
    const answer = ok(await shuffle(body));
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

/** A game answer of the held deal expected whole (clients/shared/expected.cts), typed as this generator reads a game. */
function expectedGame(game: Followed, answer: Game, fields: GameState): Game {
  return expectedHeldGame(game, answer, fields);
}

// An answer of a route that answers a game: a GameView at 200, an
// ErrorBody at 409 (and the other documented statuses).
type GameAnswer = Awaited<
  ReturnType<typeof getGame | typeof hint | typeof moveTiles | typeof undo | typeof redo | typeof pause | typeof resume | typeof shuffleGame | typeof resign>
>;

/** A 200 game answer, its `ETag` its version. */
function game(answer: GameAnswer): Game {
  assert.ok(answer.status === 200, `status ${answer.status}: ${JSON.stringify(answer.data)}`);
  assert.equal(answer.headers.get("content-type"), "application/json");
  assert.equal(answer.headers.get("etag"), `"${answer.data.version}"`);
  return answer.data;
}

/** A 409's error body, compared whole with `expected`. */
function conflict(answer: GameAnswer, expected: Api.ErrorDetail): string {
  assert.ok(answer.status === 409, `status ${answer.status}: ${JSON.stringify(answer.data)}`);
  const error: Api.ErrorBody = answer.data;
  assert.deepEqual(error, { error: expected });
  const { code, reason, message } = error.error;
  return `409 ${code}${reason === undefined ? "" : ` (${reason})`}: ${message}`;
}

/** A new game of the seeded 4 x 4 deal, created with `player`'s token when there is one, checked whole. */
async function created(player?: Player): Promise<{ followed: Followed; first: Game }> {
  const answer = await createGame(heldRequest, player === undefined ? {} : bearer(player.token));
  const first = at(answer, 201);
  assert.equal(answer.headers.get("etag"), '"0"');
  assert.match(first.id, /^[0-9a-f]{32}$/);
  assert.equal(answer.headers.get("location"), `/v1/games/${first.id}`);
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

/** The events of a text/event-stream body read whole: blank-line separated fields; `:` lines are keep-alive comments. */
function streamEvents(text: string): { event: string; id: string; data: string }[] {
  assert.ok(text.endsWith("\n\n"), "the stream ended inside an event");
  return text
    .slice(0, -2)
    .split("\n\n")
    .map((block) => block.split("\n").filter((line) => !line.startsWith(":")))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      const field = (name: string) =>
        lines
          .filter((line) => line.startsWith(`${name}:`))
          .map((line) => line.slice(name.length + 1).replace(/^ /, ""))
          .join("\n");
      return { event: field("event"), id: field("id"), data: field("data") };
    });
}

// A held game, played to the end: created, an illegal move, a hint, a move
// taken back and made again, the rest of /v1/clear's sequence to `won`; then
// its event stream, a move on the won game, and its replay played again by
// /v1/replays. The game is `player`'s, each action sent with the player's
// token; answers the game as it ended.
async function heldGame(player: Player): Promise<Game | undefined> {
  const held: Followed = { id: "", createdAt: "", elapsedMs: 0 };
  const answers: Game[] = [];
  const asPlayer = () => bearer(player.token);

  await check("POST /v1/games, a dealt 4 x 4 Shisen-Sho game, with Ann's token: hers", async () => {
    const { followed, first } = await created(player);
    Object.assign(held, followed);
    answers.push(first);
    return `${describeGame(first)}, board ${describeBoard(heldDealt)}`;
  });

  let cleared: Api.Move[] = [];

  await check("POST /v1/clear on the game's board and rules: the sequence played", async () => {
    const first = answers[0];
    assert.ok(first?.board !== undefined && first.settings.rules !== undefined, "no game");
    const answer = ok(await clear({ board: first.board, rules: first.settings.rules }));
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
    const refused = conflict(await moveTiles(held.id, { from: [0, 0], to: [2, 2] }, asPlayer()), {
      code: "illegal_move",
      message: "the tiles at [0, 0] and [2, 2] cannot be removed: no_path",
      reason: "no_path",
    });
    const now = game(await getGame(held.id, asPlayer()));
    assert.deepEqual(now, expectedGame(held, now, stateOf(answers[0]!)));
    return `${refused}; GET: ${describeGame(now)}`;
  });

  await check("POST /v1/games/{id}/hint: the first move /v1/moves lists", async () => {
    const listed = ok(await moves({ board: heldDealt, rules: "shisen-sho", limit: 1 }));
    const first = listed.moves[0];
    assert.ok(first !== undefined, "no move listed");
    assert.deepEqual(first, { ...heldMoves[0]!.move, segments: 1, path: heldMoves[0]!.path });
    const hinted = game(await hint(held.id, asPlayer()));
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
    const moved = game(await moveTiles(held.id, { from: move.from, to: move.to }, asPlayer()));
    assert.deepEqual(moved, afterMove(moved, 0, 2, "move", { hints: 1, undos: 0, shuffles: 0 }));
    answers.push(moved);
    return describeGame(moved);
  });

  await check("POST /v1/games/{id}/undo: the pair back, an assist", async () => {
    const undone = game(await undo(held.id, asPlayer()));
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
    const redone = game(await redo(held.id, asPlayer()));
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
      const moved = game(await moveTiles(held.id, { from: move.from, to: move.to }, asPlayer()));
      assert.deepEqual(moved, afterMove(moved, index, 4 + index, "move", assisted));
      answers.push(moved);
    }
    const won = answers[answers.length - 1]!;
    assert.equal(won.status, "won");
    return describeGame(won);
  });

  await check("GET /v1/games/{id}: won, as the last move answered it", async () => {
    const won = game(await getGame(held.id, asPlayer()));
    // The clock stopped with the last move: the game reads as that move left it.
    assert.deepEqual(won, answers[answers.length - 1]);
    assert.equal(won.version, 11);
    assert.equal(won.tiles_left, 0);
    assert.equal(won.score, kshisenScore(16, won.elapsed_ms));
    return `${describeGame(won)}, ${won.elapsed_ms} ms`;
  });

  await check("GET /v1/games/{id}/events on the won game: the game, then the end", async () => {
    // The stream ends with the game, so the client's whole-body read returns.
    const answer = await gameEvents(held.id, { ...asPlayer(), signal: AbortSignal.timeout(30_000) });
    assert.ok(answer.status === 200, `status ${answer.status}`);
    assert.equal(answer.headers.get("content-type"), "text/event-stream");
    // The client hands a text/event-stream body over as text, one member of
    // the EventStream type (GameEvent | string).
    const text: Api.EventStream = answer.data;
    assert.ok(typeof text === "string", "not text");
    const won = answers[answers.length - 1]!;
    assert.equal(text, `event: game\nid: ${won.version}\ndata: ${JSON.stringify(won)}\n\n`);
    const events = streamEvents(text);
    assert.deepEqual(
      events.map(({ event, id, data }) => ({ event, id, game: JSON.parse(data) })),
      [{ event: "game", id: String(won.version), game: won }],
    );
    return `${text.length} characters, one event: ${describeGame(won)}`;
  });

  await check("POST /v1/games/{id}/moves on the won game: 409 game_over", async () => {
    const refused = conflict(await moveTiles(held.id, heldMoves[0]!.move, asPlayer()), {
      code: "game_over",
      message: "the game is won, expected a game in play: nothing applies to a finished game",
    });
    const won = game(await getGame(held.id, asPlayer()));
    assert.deepEqual(won, answers[answers.length - 1]);
    return `${refused}; GET: ${describeGame(won)}`;
  });

  await check("GET /v1/games/{id}/replay, POST /v1/replays: the same end", async () => {
    const replay = ok(await getReplay(held.id, asPlayer()));
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
    const replayed = ok(await checkReplay(replay));
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
  let before: Game | undefined;

  await check("POST /v1/games, the same deal again", async () => {
    const { followed, first } = await created();
    Object.assign(second, followed);
    before = first;
    return describeGame(first);
  });

  await check("POST /v1/games/{id}/pause: the board hidden, then a hint refused (409 action_refused)", async () => {
    const paused = game(await pause(second.id));
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
    const refused = conflict(await hint(second.id), {
      code: "action_refused",
      message: "the game is paused, expected `resume` first (or `resign`)",
    });
    return `${describeGame(paused)}; ${refused}`;
  });

  await check("POST /v1/games/{id}/resume: the board shown again", async () => {
    const resumed = game(await resume(second.id));
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
    const shuffled = game(await shuffleGame(second.id));
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
    const listed = ok(await moves({ board, rules: "shisen-sho" }));
    assert.equal(listed.moves.length, shuffled.moves_open);
    const clearable = ok(await clear({ board, rules: "shisen-sho" }));
    assert.equal(clearable.outcome, "solvable");
    return `${describeGame(shuffled)}, ${tilesMoved.length} tiles moved, board ${describeBoard(board)}`;
  });

  await check("POST /v1/games/{id}/resign: resigned, then a hint refused (409 game_over)", async () => {
    assert.ok(before !== undefined, "no game");
    const shuffled = game(await getGame(second.id));
    const resigned = game(await resign(second.id));
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
    const refused = conflict(await hint(second.id), {
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
  const day = "2026-12-05";
  let daily: Api.DailyDeal | undefined;

  await check("GET /v1/daily/{date}: the deal of the documented seed", async () => {
    const settings: Api.DailyGame = dailyGame(day);
    // The board is /v1/deal's for the same settings.
    const dealtDaily = ok(await deal(settings));
    const answer = ok(await getDailyDeal(day, { width: 6, height: 4, types: 6 }));
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
    let won = at(await createGame(body, bearer(player.token)), 201);
    assert.deepEqual([won.leaderboard, won.player, won.owner, won.board], [daily.leaderboard, "Ada", player.id, daily.board]);
    const sequence = ok(await clear({ board: won.board!, rules: "shisen-sho" }));
    for (const step of sequence.moves ?? []) {
      won = ok(await moveTiles(won.id, { from: step.from, to: step.to }, bearer(player.token)));
    }
    assert.deepEqual([won.status, won.ranked], ["won", true]);
    dailyWon = won;
    const board = ok(await getLeaderboard(daily.leaderboard, { limit: 5 }));
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
    const answer = await playground();
    assert.ok(answer.status === 200, `status ${answer.status}`);
    assert.equal(answer.headers.get("content-type"), "text/html; charset=utf-8");
    // A body that is not JSON is read as text: the generated type is a string.
    const page: string = answer.data;
    assert.equal(page, repoFile("assets/playground/index.html"));
    return `${page.length} characters, CSP ${answer.headers.get("content-security-policy")}`;
  });

  await check("GET /playground/app.js, its modules and style.css, as in assets/playground/", async () => {
    const script = await playgroundScript();
    assert.ok(script.status === 200, `status ${script.status}`);
    assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(script.data, repoFile("assets/playground/app.js"));
    const player = await playgroundPlayerScript();
    assert.ok(player.status === 200, `status ${player.status}`);
    assert.equal(player.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(player.data, repoFile("assets/playground/player.js"));
    for (const [name, get] of [["board.js", playgroundBoardScript], ["tiles.js", playgroundTilesScript], ["game.js", playgroundGameScript]] as const) {
      const module = await get();
      assert.ok(module.status === 200, `${name}: status ${module.status}`);
      assert.equal(module.headers.get("content-type"), "text/javascript; charset=utf-8", name);
      assert.equal(module.data, repoFile(`assets/playground/${name}`), name);
    }
    const style = await playgroundStyle();
    assert.ok(style.status === 200, `status ${style.status}`);
    assert.equal(style.headers.get("content-type"), "text/css; charset=utf-8");
    assert.equal(style.data, repoFile("assets/playground/style.css"));
    return `${script.data.length} + ${player.data.length} + ${style.data.length} characters`;
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
    // application/yaml is not JSON, so it is read as text; the schema is {}
    // (unknown).
    const answer = await openapi();
    assert.ok(answer.status === 200, `status ${answer.status}`);
    assert.equal(answer.headers.get("content-type"), "application/yaml");
    const yaml: unknown = answer.data;
    assert.ok(typeof yaml === "string", "not text");
    assert.equal(yaml, repoFile("openapi.yaml"));
    const etag = answer.headers.get("etag");
    assert.ok(etag !== null, "no ETag");
    const again = await openapi({ headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
    return `${yaml.length} characters, ETag ${etag}, then ${again.status}`;
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
    const answer = await metrics();
    assert.ok(answer.status === 200, `status ${answer.status}`);
    assert.equal(answer.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const lines = answer.data.split("\n");
    const moved = lines.find((line) => line.startsWith('linkpath_http_requests_total{route="/v1/games/{id}/moves",method="POST",status="409"}'));
    assert.ok(moved !== undefined, "no count of the refused moves");
    return `${lines.length} lines; ${moved}`;
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
  finish("orval client");
}

main().catch((error: unknown) => {
  console.log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
