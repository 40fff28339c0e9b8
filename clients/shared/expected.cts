// What the TypeScript clients (clients/typescript, clients/hey-api,
// clients/orval) expect of the server, whatever generated their client: the
// README's request bodies and answers, the held game's deal and /v1/clear's
// sequence for it, the expected game, the score and the day's seed as
// docs/games.md computes them, the player's answers as docs/players.md gives
// them, and the check runner with its describe lines.
//
// Plain TypeScript, no generated type: each program assigns these to its own
// generator's types, so tsc still checks them against that reading of
// openapi.yaml. A .cts file, compiled to .cjs: CommonJS whatever package.json
// is nearest its output, so the ES module program imports it as the
// CommonJS ones do.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";

// ---------------------------------------------------------------------------
// The types of the data below: only as narrow as the data, so that each
// generator's types take it.

/** A cell [x, y]. */
export type Pair = [number, number];

/**
 * `true` when `A` and `B` are one type, else `false`: a program assigns
 * `true` to `Same<its generated type, the type expected>`, so that tsc
 * fails when a generator reads openapi.yaml otherwise (a cell as anything
 * but a plain pair, say).
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type PairMove = { from: Pair; to: Pair };
type Board = string[] | number[][];
type Outcome = "solvable" | "unsolvable";
type Reason = "same_cell" | "not_a_tile" | "type_mismatch" | "blocked" | "no_path";
type QueryResult = { connected: true; segments: number; path?: Pair[] } | { connected: false; reason: Reason };
type SolveRequest = {
  board: Board;
  rules?: "mahjong" | "lianliankan" | "curling" | { preset: "mahjong"; outside: boolean };
  queries: PairMove[];
  include_path?: boolean;
};
type MovesRequest = { board: string[]; rules: "shisen-sho"; limit?: number; from?: Pair };
type PathMove = PairMove & { segments: number; path: Pair[] };
type MovesResponse = { moves: PathMove[]; stuck: boolean; cleared: boolean; truncated: boolean };
type PlayStep = PathMove & { moved: PairMove[] };
type PlayResponse = {
  board: string[];
  steps: PlayStep[];
  cleared: boolean;
  stuck: boolean;
  moves_open: number;
  stopped_at: PairMove & { index: number; reason: Reason };
};
type ClearRequest = { board: string[]; rules: "shisen-sho" | "lianliankan" };
// `elapsed_ms` is left out: each program takes it as it came (elapsedOf).
type ClearResponse = { outcome: Outcome; moves?: PairMove[]; states: number; budget_ms: number; reason?: "odd_type"; tile?: string; count?: number };
type DealRequest = {
  width?: number;
  height?: number;
  layout?: string[];
  types: number;
  copies?: number;
  rules: "shisen-sho";
  gravity?: "down";
  settle?: boolean;
  seed: number;
  alphabet?: string;
  include_moves?: boolean;
  encoding?: "numbers";
};
type Stats = { moves_open: number; playouts: number; playouts_cleared: number };
type DealResponse = { board: Board; moves?: PairMove[]; stats: Stats };
type ShuffleRequest = { board: string[]; rules: "lianliankan"; seed: number; solvable?: boolean };
type ShuffleResponse = { board: string[]; moves?: PairMove[]; moved: PairMove[] };
type Case<Body, Answer> = { body: Body; answer: Answer };

/** Moves written [fromX, fromY, toX, toY]. */
function pairs(list: [number, number, number, number][]): PairMove[] {
  return list.map(([fx, fy, tx, ty]) => ({ from: [fx, fy], to: [tx, ty] }));
}

// ---------------------------------------------------------------------------
// The check runner

const failures: string[] = [];

/** Runs one check: prints `ok: name: what it found`, or `FAILED: name: why`. */
export async function check(name: string, body: () => Promise<string>): Promise<void> {
  try {
    console.log(`ok: ${name}: ${await body()}`);
  } catch (error) {
    failures.push(name);
    console.log(`FAILED: ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The last line of a program; exits 1 when any check failed. */
export function finish(program: string): void {
  if (failures.length > 0) {
    console.log(`${program}: ${failures.length} of the checks FAILED: ${failures.join("; ")}`);
    process.exit(1);
  }
  console.log(`${program}: every check passed`);
}

// ---------------------------------------------------------------------------
// The describe lines. A cell is read as a list: some generators type it
// with a third element, which answers never hold.

type Cell = readonly unknown[];

export function point(p: Cell): string {
  return `[${String(p[0])}, ${String(p[1])}]`;
}

export function describeResult(
  result: { connected: true; segments: number; path?: Cell[] } | { connected: false; reason: string },
): string {
  if (result.connected) {
    const corners = result.path === undefined ? "no path asked" : result.path.map(point).join(" ");
    return `${result.segments} segments (${corners})`;
  }
  return result.reason;
}

export function describeBoard(board: readonly (string | readonly number[])[]): string {
  const rows = board.map((row) => (typeof row === "string" ? row : row.join(",")));
  return `${rows.length} rows [${rows.join(" | ")}]`;
}

export function describeMoves(list: readonly { from: Cell; to: Cell }[] | undefined): string {
  return list === undefined ? "no moves" : `${list.length} moves, first ${point(list[0]!.from)}-${point(list[0]!.to)}`;
}

export function describeGame(g: { version: number; status: string; tiles_left: number; moves_open: number; score: number; ranked: boolean }): string {
  return `v${g.version} ${g.status}, ${g.tiles_left} tiles, ${g.moves_open} moves open, score ${g.score}, ranked ${g.ranked}`;
}

/** A clear answer's `elapsed_ms`, which changes from run to run: checked to be a time in milliseconds, then expected as it came. */
export function elapsedOf(answer: { elapsed_ms: number }): number {
  assert.ok(Number.isInteger(answer.elapsed_ms) && answer.elapsed_ms >= 0, `elapsed_ms ${answer.elapsed_ms}`);
  return answer.elapsed_ms;
}

// ---------------------------------------------------------------------------
// The README's examples (and openapi.yaml's, where the README shows none):
// each request body and its answer.

const readmeBoard = ["XXXXX", "X   X", "XXX X", " XXX "];
const readmeQueries: PairMove[] = [
  { from: [1, 2], to: [4, 2] },
  { from: [0, 2], to: [3, 3] },
];

export const solveExample: Case<SolveRequest, { results: QueryResult[] }> = {
  body: { board: readmeBoard, rules: "mahjong", queries: readmeQueries },
  answer: {
    results: [
      { connected: true, segments: 4, path: [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]] },
      { connected: true, segments: 3, path: [[0, 2], [0, 4], [3, 4], [3, 3]] },
    ],
  },
};

export const solveRulesObject: Case<SolveRequest, { results: QueryResult[] }> = {
  body: { board: readmeBoard, rules: { preset: "mahjong", outside: false }, queries: readmeQueries },
  answer: {
    results: [
      { connected: true, segments: 4, path: [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]] },
      { connected: false, reason: "no_path" },
    ],
  },
};

export const solveEveryReason: Case<SolveRequest, { results: QueryResult[] }> = {
  body: {
    board: ["X X", "XYX"],
    rules: "lianliankan",
    queries: [
      { from: [0, 0], to: [0, 0] },
      { from: [0, 0], to: [1, 0] },
      { from: [0, 0], to: [1, 1] },
      { from: [0, 0], to: [2, 0] },
    ],
    include_path: false,
  },
  answer: {
    results: [
      { connected: false, reason: "same_cell" },
      { connected: false, reason: "not_a_tile" },
      { connected: false, reason: "type_mismatch" },
      { connected: true, segments: 1 },
    ],
  },
};

export const solveCurling: Case<SolveRequest, { results: QueryResult[] }> = {
  body: {
    board: [
      [0, 0, 1],
      [0, 1, 0],
    ],
    rules: "curling",
    queries: [
      { from: [0, 0], to: [2, 0] },
      { from: [0, 0], to: [0, 1] },
      { from: [0, 0], to: [2, 1] },
    ],
  },
  answer: {
    results: [
      { connected: false, reason: "blocked" },
      { connected: true, segments: 1, path: [[0, 0], [0, 1]] },
      { connected: false, reason: "no_path" },
    ],
  },
};

/** The README's ragged board, and the 422 body /v1/solve and /v1/render answer it. */
export const solveRagged: Case<SolveRequest, { error: { code: "invalid_board"; message: string; field: string } }> = {
  body: {
    board: ["XXXXX", "X  X", "XXX X", " XXX "],
    queries: [{ from: [1, 2], to: [4, 2] }],
  },
  answer: {
    error: { code: "invalid_board", message: "row 1 has 4 cells, expected 5", field: "board[1]" },
  },
};

/** docs/render.json: its answer is docs/render.svg. */
export const renderExample: SolveRequest = {
  board: readmeBoard,
  rules: "mahjong",
  queries: [...readmeQueries, { from: [0, 0], to: [1, 3] }, { from: [2, 2], to: [2, 1] }],
};

/** The README's dealt board, which its /v1/moves and /v1/play examples play on. */
export const dealt = ["BCDFFB", "DCCFED", "DEBBEE", "AACFAA"];

export const movesHint: Case<MovesRequest, MovesResponse> = {
  body: { board: dealt, rules: "shisen-sho", limit: 1 },
  answer: {
    moves: [{ from: [0, 0], to: [5, 0], segments: 3, path: [[0, 0], [0, -1], [5, -1], [5, 0]] }],
    stuck: false,
    cleared: false,
    truncated: false,
  },
};

export const movesOfOneTile: Case<MovesRequest, MovesResponse> = {
  body: { board: dealt, rules: "shisen-sho", from: [3, 0] },
  answer: {
    moves: [
      { from: [3, 0], to: [4, 0], segments: 1, path: [[3, 0], [4, 0]] },
      { from: [3, 0], to: [3, 1], segments: 1, path: [[3, 0], [3, 1]] },
    ],
    stuck: false,
    cleared: false,
    truncated: false,
  },
};

export const playExample: Case<{ board: string[]; rules: "shisen-sho"; gravity: "down"; moves: PairMove[] }, PlayResponse> = {
  body: {
    board: dealt,
    rules: "shisen-sho",
    gravity: "down",
    moves: pairs([
      [0, 3, 1, 3],
      [3, 2, 2, 2],
      [0, 0, 1, 0],
    ]),
  },
  answer: {
    board: ["....FB", "BCDFED", "DCCFEE", "DECFAA"],
    steps: [
      {
        from: [0, 3],
        to: [1, 3],
        segments: 1,
        path: [[0, 3], [1, 3]],
        moved: pairs([
          [0, 0, 0, 1],
          [1, 0, 1, 1],
          [0, 1, 0, 2],
          [1, 1, 1, 2],
          [0, 2, 0, 3],
          [1, 2, 1, 3],
        ]),
      },
      {
        from: [3, 2],
        to: [2, 2],
        segments: 1,
        path: [[3, 2], [2, 2]],
        moved: pairs([
          [2, 0, 2, 1],
          [3, 0, 3, 1],
          [2, 1, 2, 2],
          [3, 1, 3, 2],
        ]),
      },
    ],
    cleared: false,
    stuck: false,
    moves_open: 11,
    stopped_at: { index: 2, from: [0, 0], to: [1, 0], reason: "not_a_tile" },
  },
};

export const clearSolvable: Case<ClearRequest, ClearResponse> = {
  body: { board: ["ABCA", "BB.C", "A.BA"], rules: "shisen-sho" },
  answer: {
    outcome: "solvable",
    moves: pairs([
      [2, 0, 3, 1],
      [0, 0, 3, 0],
      [0, 2, 3, 2],
      [1, 0, 0, 1],
      [1, 1, 2, 2],
    ]),
    states: 5,
    budget_ms: 1000,
  },
};

export const clearCrossed: Case<ClearRequest, ClearResponse> = {
  body: { board: ["AB", "BA"], rules: "lianliankan" },
  answer: { outcome: "unsolvable", states: 1, budget_ms: 1000 },
};

export const clearOddType: Case<ClearRequest, ClearResponse> = {
  body: { board: ["BCDFFB", "DCCFED", "DEBBEE", "AACFA."], rules: "shisen-sho" },
  answer: { outcome: "unsolvable", states: 0, reason: "odd_type", tile: "A", count: 3, budget_ms: 1000 },
};

export const dealExample: Case<DealRequest, DealResponse> = {
  body: { width: 6, height: 4, types: 6, copies: 4, rules: "shisen-sho", gravity: "down", seed: 42 },
  answer: {
    board: dealt,
    moves: pairs([
      [0, 3, 4, 3],
      [3, 2, 2, 2],
      [5, 0, 0, 1],
      [1, 3, 5, 3],
      [5, 2, 2, 1],
      [1, 3, 4, 3],
      [3, 3, 3, 2],
      [2, 3, 1, 3],
      [4, 2, 3, 3],
      [1, 3, 2, 3],
      [4, 3, 5, 3],
      [0, 2, 0, 3],
    ]),
    stats: { moves_open: 15, playouts: 32, playouts_cleared: 32 },
  },
};

export const dealMahjongFaces: Case<DealRequest, DealResponse> = {
  body: { width: 6, height: 2, types: 3, rules: "shisen-sho", seed: 3, alphabet: "🀀🀁🀂", include_moves: false },
  answer: {
    board: ["🀁🀁🀁🀀🀀🀁", "🀀🀂🀂🀂🀀🀂"],
    stats: { moves_open: 15, playouts: 32, playouts_cleared: 32 },
  },
};

export const dealNumbers: Case<DealRequest, DealResponse> = {
  body: { width: 4, height: 3, types: 3, rules: "shisen-sho", seed: 7, encoding: "numbers" },
  answer: {
    // The text deal is ["CBAA", "BABC", "CCBA"]: A, B, C are types 1, 2, 3.
    board: [
      [3, 2, 1, 1],
      [2, 1, 2, 3],
      [3, 3, 2, 1],
    ],
    moves: pairs([
      [0, 2, 0, 0],
      [2, 2, 2, 1],
      [3, 1, 1, 2],
      [3, 2, 3, 0],
      [1, 0, 0, 1],
      [1, 1, 2, 0],
    ]),
    stats: { moves_open: 5, playouts: 32, playouts_cleared: 26 },
  },
};

export const dealLayout: Case<DealRequest, DealResponse> = {
  body: { layout: ["..##..", ".####.", "######"], types: 3, rules: "shisen-sho", gravity: "down", settle: true, seed: 2 },
  answer: {
    board: ["..BC..", ".BAAB.", "CACCBA"],
    moves: pairs([
      [3, 2, 2, 2],
      [0, 2, 3, 1],
      [2, 2, 3, 2],
      [4, 1, 1, 1],
      [1, 2, 5, 2],
      [4, 2, 2, 2],
    ]),
    stats: { moves_open: 10, playouts: 32, playouts_cleared: 26 },
  },
};

export const shuffleAMove: Case<ShuffleRequest, ShuffleResponse> = {
  body: { board: ["AB", "BA"], rules: "lianliankan", seed: 1 },
  answer: {
    board: ["AB", "AB"],
    moved: pairs([
      [0, 1, 1, 1],
      [1, 1, 0, 1],
    ]),
  },
};

export const shuffleClearable: Case<ShuffleRequest, ShuffleResponse> = {
  body: { board: ["ABCA", "BB.C", "A.BA"], rules: "lianliankan", seed: 3, solvable: true },
  answer: {
    board: ["BAAA", "CB.C", "B.AB"],
    moves: pairs([
      [1, 1, 0, 2],
      [3, 0, 2, 0],
      [1, 0, 2, 2],
      [0, 1, 3, 1],
      [3, 2, 0, 0],
    ]),
    moved: pairs([
      [0, 0, 1, 0],
      [1, 0, 0, 0],
      [2, 0, 0, 1],
      [3, 0, 2, 0],
      [0, 1, 1, 1],
      [1, 1, 0, 2],
      [0, 2, 3, 0],
      [2, 2, 3, 2],
      [3, 2, 2, 2],
    ]),
  },
};

// ---------------------------------------------------------------------------
// The held game: a seeded 4 x 4 Shisen-Sho deal, played to `won`.

export const heldRequest = { width: 4, height: 4, types: 4, rules: "shisen-sho", seed: 1 } as const;
export const heldSettings = {
  width: 4,
  height: 4,
  encoding: "text",
  types: 4,
  seed: 1,
  rules: "shisen-sho",
  gravity: "none",
  settle: false,
} as const;
export const heldDealt = ["ADCB", "ACAB", "DDAB", "CCDB"];
// The leaderboard of the held game's deal: SHA-256 of its settings
// (docs/games.md), the same on every server.
export const heldLeaderboard = "f6dea614901119e8bb587b7b4d0916b7";
// /v1/clear's sequence for the dealt board: each move, the path the game
// answers in `last`, the board after it and the moves open on it (no
// gravity: nothing falls).
export const heldMoves: { move: PairMove; path: Pair[]; board: string[]; movesOpen: number }[] = [
  { move: { from: [0, 0], to: [0, 1] }, path: [[0, 0], [0, 1]], board: [".DCB", ".CAB", "DDAB", "CCDB"], movesOpen: 11 },
  { move: { from: [2, 1], to: [2, 2] }, path: [[2, 1], [2, 2]], board: [".DCB", ".C.B", "DD.B", "CCDB"], movesOpen: 12 },
  { move: { from: [3, 0], to: [3, 1] }, path: [[3, 0], [3, 1]], board: [".DC.", ".C..", "DD.B", "CCDB"], movesOpen: 7 },
  { move: { from: [3, 2], to: [3, 3] }, path: [[3, 2], [3, 3]], board: [".DC.", ".C..", "DD..", "CCD."], movesOpen: 6 },
  { move: { from: [2, 0], to: [1, 1] }, path: [[2, 0], [2, 1], [1, 1]], board: [".D..", "....", "DD..", "CCD."], movesOpen: 7 },
  { move: { from: [0, 3], to: [1, 3] }, path: [[0, 3], [1, 3]], board: [".D..", "....", "DD..", "..D."], movesOpen: 6 },
  { move: { from: [1, 0], to: [0, 2] }, path: [[1, 0], [0, 0], [0, 2]], board: ["....", "....", ".D..", "..D."], movesOpen: 1 },
  { move: { from: [1, 2], to: [2, 3] }, path: [[1, 2], [2, 2], [2, 3]], board: ["....", "....", "....", "...."], movesOpen: 0 },
];

export const noAssists = { hints: 0, undos: 0, shuffles: 0 };
export const assisted = { hints: 1, undos: 1, shuffles: 0 };

/** docs/games.md's score, in the server's floating-point steps, for a game without gravity. */
export function kshisenScore(removed: number, elapsedMs: number): number {
  if (removed === 0) {
    return 0;
  }
  const seconds = Math.max(elapsedMs, 1000) / 1000;
  return Math.floor((removed / seconds / 0.14) * 100 * Math.sqrt(removed / 84));
}

const rfc3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A game as a program follows it: its id, when it was created, the last play time seen, and its player's id when a player's token created it. */
export type Followed = { id: string; createdAt: string; elapsedMs: number; owner?: string };

/** What of a game answer follows the server's clock. */
type Clocked = { elapsed_ms: number; created_at: string; updated_at: string; expires_at: string };

/**
 * A game answer of the held deal expected whole: `fields`, the game's id and
 * settings, and what follows the server's clock (`elapsed_ms`, never going
 * back; the times, in RFC 3339) taken as it came, with the score computed
 * from it.
 */
export function expectedGame<F extends { tiles_left: number; ranked: boolean }>(game: Followed, answer: Clocked, fields: F) {
  assert.ok(Number.isInteger(answer.elapsed_ms) && answer.elapsed_ms >= game.elapsedMs, `elapsed_ms ${answer.elapsed_ms} after ${game.elapsedMs}`);
  game.elapsedMs = answer.elapsed_ms;
  for (const time of [answer.created_at, answer.updated_at, answer.expires_at]) {
    assert.match(time, rfc3339);
  }
  return {
    id: game.id,
    ...fields,
    // The held game takes assists, and no pace floor is set: that is why
    // it is not ranked.
    ...(fields.ranked ? {} : { unranked: "assists" as const }),
    ...(game.owner === undefined ? {} : { owner: game.owner }),
    settings: heldSettings,
    leaderboard: heldLeaderboard,
    score: kshisenScore(16 - fields.tiles_left, answer.elapsed_ms),
    elapsed_ms: answer.elapsed_ms,
    created_at: game.createdAt === "" ? answer.created_at : game.createdAt,
    updated_at: answer.updated_at,
    expires_at: answer.expires_at,
  };
}

/**
 * What of the held game does not follow the clock after the `index`th move
 * of the sequence was made (by a move or a redo) as change `version`.
 */
export function afterMove(index: number, version: number, action: "move" | "redo", assists: typeof noAssists) {
  const step = heldMoves[index]!;
  const moved: PairMove[] = [];
  // A redo gives the pair's path as the move did.
  const last = { action, version, ...step.move, path: step.path, moved };
  return {
    version,
    status: index === heldMoves.length - 1 ? ("won" as const) : ("playing" as const),
    board: step.board,
    tiles_left: 14 - 2 * index,
    moves_open: step.movesOpen,
    assists,
    ranked: false,
    last,
  };
}

// ---------------------------------------------------------------------------
// The day's deal

/** The day's deal for a 6 x 4 board, its seed computed as docs/games.md derives it. */
export function dailyGame(day: string) {
  const settings = "width=6 height=4 types=6 copies=4 difficulty=medium rules=shisen-sho gravity=none settle=false";
  const digest = createHash("sha256").update(`linkpath daily ${day} ${settings}`).digest();
  // The first 53 bits: a JavaScript number holds the seed exactly.
  const seed = Number(digest.readBigUInt64BE(0) >> 11n);
  return {
    width: 6,
    height: 4,
    types: 6,
    copies: 4,
    difficulty: "medium",
    rules: "shisen-sho",
    gravity: "none",
    settle: false,
    seed,
  } as const;
}

// ---------------------------------------------------------------------------
// The player (docs/players.md): signed up as Ann, renamed Ann Lee, given a
// new token, erased.

export const playerName = "Ann";
export const newName = "Ann Lee";

/** A player as a program follows it: what its sign-up answered, the token replaced by each new one. */
export type Player = { id: string; name: string; createdAt: string; token: string };

/** An answer of `POST /v1/players` or `POST /v1/players/me/token`. */
type SignedUp = { id: string; name: string; created_at: string; token: string };

/**
 * A sign-up's answer expected whole: its random parts (the id, 32 hex
 * digits; the token, `lpp_` and 64 hex digits; the time) checked for their
 * shape and taken as they came.
 */
export function expectedSignUp(answer: SignedUp): SignedUp {
  assert.match(answer.id, /^[0-9a-f]{32}$/);
  assert.match(answer.token, /^lpp_[0-9a-f]{64}$/);
  assert.match(answer.created_at, rfc3339);
  return { id: answer.id, name: playerName, created_at: answer.created_at, token: answer.token };
}

/** The player a sign-up answered, to follow. */
export function playerOf(answer: SignedUp): Player {
  return { id: answer.id, name: answer.name, createdAt: answer.created_at, token: answer.token };
}

/** The player as `GET` and `PATCH /v1/players/me` answer it. */
export function playerView(player: Player): { id: string; name: string; created_at: string } {
  return { id: player.id, name: player.name, created_at: player.createdAt };
}

/** A new token's answer expected whole: the same player, a token of the same shape that is not the one before. */
export function expectedNewToken(player: Player, answer: SignedUp): SignedUp {
  assert.match(answer.token, /^lpp_[0-9a-f]{64}$/);
  assert.notEqual(answer.token, player.token);
  return { ...playerView(player), token: answer.token };
}

/** The 401 of a token the server does not know: replaced, or its player erased. */
export const unknownToken = {
  error: {
    code: "unauthorized",
    message: "the player's token is not known: it was replaced by a new one, or its player erased or expired",
  },
} as const;

/** What of a won game a leaderboard entry and a player's list show. */
type Won<Status extends string = string> = { id: string; status: Status; score: number; elapsed_ms: number; tiles_left: number; ranked: boolean; leaderboard?: string; created_at: string; updated_at: string };

/** The player's entry for `won` on a board, first on it, under the player's name now. */
export function leaderboardEntry(player: Player, won: Won) {
  return { rank: 1, player: player.name, player_id: player.id, game: won.id, elapsed_ms: won.elapsed_ms, score: won.score, won_at: won.updated_at };
}

/** A game in `GET /v1/players/{id}/games`: its summary, with its replay's link. */
export function gameSummary<Status extends string>({ id, status, score, elapsed_ms, tiles_left, ranked, leaderboard, created_at, updated_at }: Won<Status>) {
  return {
    id,
    status,
    score,
    elapsed_ms,
    tiles_left,
    ranked,
    ...(leaderboard === undefined ? {} : { leaderboard }),
    created_at,
    updated_at,
    replay: `/v1/games/${id}/replay`,
  };
}

// ---------------------------------------------------------------------------
// A match raced by two players (docs/matches.md)

/** The players who race, in their seats: the creator, then the one who joins. */
export const racerNames = ["Ray", "Sam"] as const;

/** The body of `POST /v1/matches` they race on: a deal /v1/clear clears. */
export const raceRequest = {
  game: { width: 6, height: 4, types: 6, rules: "shisen-sho", seed: 3 },
  seats: 2,
} as const;

/** The pairs the loser clears before the winner clears the board. */
export const loserPairs = 2;

/** A new player's rating, each player's before their first match. */
export const firstRating = { rating: 1500, deviation: 350, volatility: 0.06 };

type Rating = { rating: number; deviation: number; volatility: number };
type Placed = {
  player: string;
  name: string;
  place: number;
  game?: string;
  replay?: string;
  finish: string;
  elapsed_ms: number;
  tiles: number;
  score: number;
  rating_before?: Rating;
  rating_after?: Rating;
};

/** A seat's race as its player saw it: their game as the last move answered it. */
export type Racer = { id: string; name: string; game: { id: string; score: number; elapsed_ms: number; tiles_left: number } };

/**
 * The result of the race expected whole: the winner first (cleared), the
 * loser second (stopped), each with their game's tiles and score; the
 * winner's time the won game's, the loser's taken as it came (their clock
 * ran on until the win); both rated from 1500, the winner's rating after
 * above it, the loser's below.
 */
export function expectedRaceResult(result: readonly Placed[], winner: Racer, loser: Racer, dealt: number) {
  assert.equal(result.length, 2, "two seats placed");
  const after = result.map((placed) => placed.rating_after);
  assert.ok(after[0] !== undefined && after[0].rating > 1500, `the winner's rating after: ${JSON.stringify(after[0])}`);
  assert.ok(after[1] !== undefined && after[1].rating < 1500, `the loser's rating after: ${JSON.stringify(after[1])}`);
  const seat = (racer: Racer, place: number, finish: string, elapsedMs: number, ratingAfter: Rating) => ({
    player: racer.id,
    name: racer.name,
    place,
    game: racer.game.id,
    replay: `/v1/games/${racer.game.id}/replay`,
    finish,
    elapsed_ms: elapsedMs,
    tiles: dealt - racer.game.tiles_left,
    score: racer.game.score,
    rating_before: firstRating,
    rating_after: ratingAfter,
  });
  return [seat(winner, 1, "cleared", winner.game.elapsed_ms, after[0]), seat(loser, 2, "stopped", result[1]!.elapsed_ms, after[1])];
}

/** One line on a finished race. */
export function describeRace(result: readonly Placed[]): string {
  return result
    .map((p) => `${p.name} ${p.place} (${p.finish}, ${p.tiles} tiles, ${p.rating_before?.rating} → ${p.rating_after?.rating.toFixed(1)})`)
    .join(", ");
}
