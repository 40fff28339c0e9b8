// A TypeScript client of linkpath as its users build one: the types are
// generated from openapi.yaml by openapi-typescript (default options) into
// generated/linkpath.ts, the calls go through openapi-fetch. Every JSON route
// of the README is called with the README's own request bodies (or
// openapi.yaml's examples where the README shows none), written as typed
// literals, and every answer is compared whole with its documented value and
// read field by field through the generated types.
//
//   node clients/typescript/dist/main.js http://127.0.0.1:8080 docs/render.svg
//
// Prints one line a check and exits 1 when any failed.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/linkpath.js";

type Schemas = components["schemas"];
type Point = Schemas["Point"];

const [baseUrl, renderSvgPath] = process.argv.slice(2);
if (baseUrl === undefined || renderSvgPath === undefined) {
  console.error("usage: main.js BASE_URL RENDER_SVG");
  process.exit(2);
}

const client = createClient<paths>({ baseUrl });

const failures: string[] = [];
async function check(name: string, body: () => Promise<string>): Promise<void> {
  try {
    console.log(`ok: ${name}: ${await body()}`);
  } catch (error) {
    failures.push(name);
    console.log(`FAILED: ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

// The answer of a 200, or a failure naming the status and the error body.
function ok<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  assert.equal(answer.response.status, 200, JSON.stringify(answer.error));
  assert.equal(answer.response.headers.get("content-type"), "application/json");
  assert.ok(answer.data !== undefined, "no body");
  return answer.data;
}

// A point is a pair: the generated type is a two-number tuple.
function point(p: Point): string {
  const [x, y]: [number, number] = p;
  return `[${x}, ${y}]`;
}

function describeResult(result: Schemas["QueryResult"]): string {
  if (result.connected) {
    const corners = result.path === undefined ? "no path asked" : result.path.map(point).join(" ");
    return `${result.segments} segments (${corners})`;
  }
  return result.reason;
}

function describeBoard(board: Schemas["Board"]): string {
  const rows = board.map((row) => (typeof row === "string" ? row : row.join(",")));
  return `${rows.length} rows [${rows.join(" | ")}]`;
}

function describeMoves(moves: Schemas["Move"][] | undefined): string {
  return moves === undefined ? "no moves" : `${moves.length} moves, first ${point(moves[0]!.from)}-${point(moves[0]!.to)}`;
}

// ---------------------------------------------------------------------------
// /v1/solve and /v1/render

/** A clear answer's `elapsed_ms`, which changes from run to run: checked to be a time in milliseconds, then expected as it came. */
function elapsedOf(answer: { elapsed_ms: number }): number {
  assert.ok(Number.isInteger(answer.elapsed_ms) && answer.elapsed_ms >= 0, `elapsed_ms ${answer.elapsed_ms}`);
  return answer.elapsed_ms;
}

const readmeSolve: Schemas["SolveRequest"] = {
  board: ["XXXXX", "X   X", "XXX X", " XXX "],
  rules: "mahjong",
  queries: [
    { from: [1, 2], to: [4, 2] },
    { from: [0, 2], to: [3, 3] },
  ],
};

await check("POST /v1/solve, the README's example", async () => {
  const answer = ok(await client.POST("/v1/solve", { body: readmeSolve }));
  const expected: Schemas["SolveResponse"] = {
    results: [
      { connected: true, segments: 4, path: [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]] },
      { connected: true, segments: 3, path: [[0, 2], [0, 4], [3, 4], [3, 3]] },
    ],
  };
  assert.deepEqual(answer, expected);
  return answer.results.map(describeResult).join("; ");
});

await check("POST /v1/solve, a rules object", async () => {
  const body: Schemas["SolveRequest"] = { ...readmeSolve, rules: { preset: "mahjong", outside: false } };
  const answer = ok(await client.POST("/v1/solve", { body }));
  const expected: Schemas["SolveResponse"] = {
    results: [
      { connected: true, segments: 4, path: [[1, 2], [1, 1], [3, 1], [3, 2], [4, 2]] },
      { connected: false, reason: "no_path" },
    ],
  };
  assert.deepEqual(answer, expected);
  return answer.results.map(describeResult).join("; ");
});

await check("POST /v1/solve, every reason, include_path false", async () => {
  const body: Schemas["SolveRequest"] = {
    board: ["X X", "XYX"],
    rules: "lianliankan",
    queries: [
      { from: [0, 0], to: [0, 0] },
      { from: [0, 0], to: [1, 0] },
      { from: [0, 0], to: [1, 1] },
      { from: [0, 0], to: [2, 0] },
    ],
    include_path: false,
  };
  const answer = ok(await client.POST("/v1/solve", { body }));
  const expected: Schemas["SolveResponse"] = {
    results: [
      { connected: false, reason: "same_cell" },
      { connected: false, reason: "not_a_tile" },
      { connected: false, reason: "type_mismatch" },
      { connected: true, segments: 1 },
    ],
  };
  assert.deepEqual(answer, expected);
  return answer.results.map(describeResult).join("; ");
});

await check("POST /v1/solve, number rows (curling)", async () => {
  const body: Schemas["SolveRequest"] = {
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
  };
  const answer = ok(await client.POST("/v1/solve", { body }));
  const expected: Schemas["SolveResponse"] = {
    results: [
      { connected: false, reason: "blocked" },
      { connected: true, segments: 1, path: [[0, 0], [0, 1]] },
      { connected: false, reason: "no_path" },
    ],
  };
  assert.deepEqual(answer, expected);
  return answer.results.map(describeResult).join("; ");
});

await check("POST /v1/solve, the README's ragged board: 422 through the typed error body", async () => {
  const body: Schemas["SolveRequest"] = {
    board: ["XXXXX", "X  X", "XXX X", " XXX "],
    queries: [{ from: [1, 2], to: [4, 2] }],
  };
  const { data, error, response } = await client.POST("/v1/solve", { body });
  assert.equal(response.status, 422);
  assert.equal(data, undefined);
  assert.ok(error !== undefined, "no error body");
  const expected: Schemas["Error"] = {
    error: { code: "invalid_board", message: "row 1 has 4 cells, expected 5", field: "board[1]" },
  };
  assert.deepEqual(error, expected);
  const { code, message, field } = error.error;
  return `${response.status} ${code} at ${field ?? "(no field)"}: ${message}`;
});

await check("POST /v1/render, docs/render.json: the SVG of docs/render.svg", async () => {
  const body: Schemas["SolveRequest"] = {
    board: ["XXXXX", "X   X", "XXX X", " XXX "],
    rules: "mahjong",
    queries: [
      { from: [1, 2], to: [4, 2] },
      { from: [0, 2], to: [3, 3] },
      { from: [0, 0], to: [1, 3] },
      { from: [2, 2], to: [2, 1] },
    ],
  };
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

const dealt: Schemas["Board"] = ["BCDFFB", "DCCFED", "DEBBEE", "AACFAA"];

await check("POST /v1/moves, the README's hint", async () => {
  const body: Schemas["MovesRequest"] = { board: dealt, rules: "shisen-sho", limit: 1 };
  const answer = ok(await client.POST("/v1/moves", { body }));
  const expected: Schemas["MovesResponse"] = {
    moves: [{ from: [0, 0], to: [5, 0], segments: 3, path: [[0, 0], [0, -1], [5, -1], [5, 0]] }],
    stuck: false,
    cleared: false,
    truncated: false,
  };
  assert.deepEqual(answer, expected);
  const hint = answer.moves[0]!;
  const flags = `stuck ${answer.stuck}, cleared ${answer.cleared}, truncated ${answer.truncated}`;
  return `${point(hint.from)}-${point(hint.to)} in ${hint.segments} via ${hint.path?.map(point).join(" ")}; ${flags}`;
});

await check("POST /v1/moves, the README's moves of one tile", async () => {
  const body: Schemas["MovesRequest"] = { board: dealt, rules: "shisen-sho", from: [3, 0] };
  const answer = ok(await client.POST("/v1/moves", { body }));
  const expected: Schemas["MovesResponse"] = {
    moves: [
      { from: [3, 0], to: [4, 0], segments: 1, path: [[3, 0], [4, 0]] },
      { from: [3, 0], to: [3, 1], segments: 1, path: [[3, 0], [3, 1]] },
    ],
    stuck: false,
    cleared: false,
    truncated: false,
  };
  assert.deepEqual(answer, expected);
  return `${answer.moves.length} partners: ${answer.moves.map((m) => point(m.to)).join(" ")}`;
});

await check("POST /v1/play, the README's example", async () => {
  const body: Schemas["PlayRequest"] = {
    board: dealt,
    rules: "shisen-sho",
    gravity: "down",
    moves: [
      { from: [0, 3], to: [1, 3] },
      { from: [3, 2], to: [2, 2] },
      { from: [0, 0], to: [1, 0] },
    ],
  };
  const answer = ok(await client.POST("/v1/play", { body }));
  const expected: Schemas["PlayResponse"] = {
    board: ["....FB", "BCDFED", "DCCFEE", "DECFAA"],
    steps: [
      {
        from: [0, 3],
        to: [1, 3],
        segments: 1,
        path: [[0, 3], [1, 3]],
        moved: [
          { from: [0, 0], to: [0, 1] },
          { from: [1, 0], to: [1, 1] },
          { from: [0, 1], to: [0, 2] },
          { from: [1, 1], to: [1, 2] },
          { from: [0, 2], to: [0, 3] },
          { from: [1, 2], to: [1, 3] },
        ],
      },
      {
        from: [3, 2],
        to: [2, 2],
        segments: 1,
        path: [[3, 2], [2, 2]],
        moved: [
          { from: [2, 0], to: [2, 1] },
          { from: [3, 0], to: [3, 1] },
          { from: [2, 1], to: [2, 2] },
          { from: [3, 1], to: [3, 2] },
        ],
      },
    ],
    cleared: false,
    stuck: false,
    moves_open: 11,
    stopped_at: { index: 2, from: [0, 0], to: [1, 0], reason: "not_a_tile" },
  };
  assert.deepEqual(answer, expected);
  const stop = answer.stopped_at;
  const stopped = stop === undefined ? "not stopped" : `stopped at ${stop.index} (${point(stop.from)}-${point(stop.to)}: ${stop.reason})`;
  return `${answer.steps.length} steps, ${stopped}, cleared ${answer.cleared}, stuck ${answer.stuck}, board ${describeBoard(answer.board)}`;
});

await check("POST /v1/clear, a board that can be cleared", async () => {
  const body: Schemas["ClearRequest"] = { board: ["ABCA", "BB.C", "A.BA"], rules: "shisen-sho" };
  const answer = ok(await client.POST("/v1/clear", { body }));
  const expected: Schemas["ClearResponse"] = {
    outcome: "solvable",
    moves: [
      { from: [2, 0], to: [3, 1] },
      { from: [0, 0], to: [3, 0] },
      { from: [0, 2], to: [3, 2] },
      { from: [1, 0], to: [0, 1] },
      { from: [1, 1], to: [2, 2] },
    ],
    states: 5,
    elapsed_ms: elapsedOf(answer),
    budget_ms: 1000,
  };
  assert.deepEqual(answer, expected);
  return `${answer.outcome}, ${describeMoves(answer.moves)}, ${answer.states} states`;
});

await check("POST /v1/clear, two crossed pairs", async () => {
  const body: Schemas["ClearRequest"] = { board: ["AB", "BA"], rules: "lianliankan" };
  const answer = ok(await client.POST("/v1/clear", { body }));
  const expected: Schemas["ClearResponse"] = { outcome: "unsolvable", states: 1, elapsed_ms: elapsedOf(answer), budget_ms: 1000 };
  assert.deepEqual(answer, expected);
  return `${answer.outcome}, ${describeMoves(answer.moves)}, ${answer.states} states`;
});

await check("POST /v1/clear, the README's odd type", async () => {
  const body: Schemas["ClearRequest"] = { board: ["BCDFFB", "DCCFED", "DEBBEE", "AACFA."], rules: "shisen-sho" };
  const answer = ok(await client.POST("/v1/clear", { body }));
  const expected: Schemas["ClearResponse"] = {
    outcome: "unsolvable",
    states: 0,
    reason: "odd_type",
    tile: "A",
    count: 3,
    elapsed_ms: elapsedOf(answer),
    budget_ms: 1000,
  };
  assert.deepEqual(answer, expected);
  return `${answer.outcome}, ${answer.reason} ${answer.tile} x ${answer.count}`;
});

await check("POST /v1/deal, the README's example", async () => {
  const body: Schemas["DealRequest"] = {
    width: 6,
    height: 4,
    types: 6,
    copies: 4,
    rules: "shisen-sho",
    gravity: "down",
    seed: 42,
  };
  const answer = ok(await client.POST("/v1/deal", { body }));
  const expected: Schemas["DealResponse"] = {
    board: dealt,
    moves: [
      { from: [0, 3], to: [4, 3] },
      { from: [3, 2], to: [2, 2] },
      { from: [5, 0], to: [0, 1] },
      { from: [1, 3], to: [5, 3] },
      { from: [5, 2], to: [2, 1] },
      { from: [1, 3], to: [4, 3] },
      { from: [3, 3], to: [3, 2] },
      { from: [2, 3], to: [1, 3] },
      { from: [4, 2], to: [3, 3] },
      { from: [1, 3], to: [2, 3] },
      { from: [4, 3], to: [5, 3] },
      { from: [0, 2], to: [0, 3] },
    ],
    stats: { moves_open: 15, playouts: 32, playouts_cleared: 32 },
  };
  assert.deepEqual(answer, expected);
  return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
});

await check("POST /v1/deal, the README's Mahjong faces", async () => {
  const body: Schemas["DealRequest"] = {
    width: 6,
    height: 2,
    types: 3,
    rules: "shisen-sho",
    seed: 3,
    alphabet: "🀀🀁🀂",
    include_moves: false,
  };
  const answer = ok(await client.POST("/v1/deal", { body }));
  const expected: Schemas["DealResponse"] = {
    board: ["🀁🀁🀁🀀🀀🀁", "🀀🀂🀂🀂🀀🀂"],
    stats: { moves_open: 15, playouts: 32, playouts_cleared: 32 },
  };
  assert.deepEqual(answer, expected);
  return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
});

await check("POST /v1/deal, number rows (openapi.yaml's small deal, encoding numbers)", async () => {
  const body: Schemas["DealRequest"] = { width: 4, height: 3, types: 3, rules: "shisen-sho", seed: 7, encoding: "numbers" };
  const answer = ok(await client.POST("/v1/deal", { body }));
  // The text deal is ["CBAA", "BABC", "CCBA"]: A, B, C are types 1, 2, 3.
  const expected: Schemas["DealResponse"] = {
    board: [
      [3, 2, 1, 1],
      [2, 1, 2, 3],
      [3, 3, 2, 1],
    ],
    moves: [
      { from: [0, 2], to: [0, 0] },
      { from: [2, 2], to: [2, 1] },
      { from: [3, 1], to: [1, 2] },
      { from: [3, 2], to: [3, 0] },
      { from: [1, 0], to: [0, 1] },
      { from: [1, 1], to: [2, 0] },
    ],
    stats: { moves_open: 5, playouts: 32, playouts_cleared: 26 },
  };
  assert.deepEqual(answer, expected);
  return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
});

await check("POST /v1/shuffle, so that a move exists", async () => {
  const body: Schemas["ShuffleRequest"] = { board: ["AB", "BA"], rules: "lianliankan", seed: 1 };
  const answer = ok(await client.POST("/v1/shuffle", { body }));
  const expected: Schemas["ShuffleResponse"] = {
    board: ["AB", "AB"],
    moved: [
      { from: [0, 1], to: [1, 1] },
      { from: [1, 1], to: [0, 1] },
    ],
  };
  assert.deepEqual(answer, expected);
  return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
});

await check("POST /v1/shuffle, so that the board can be cleared", async () => {
  const body: Schemas["ShuffleRequest"] = { board: ["ABCA", "BB.C", "A.BA"], rules: "lianliankan", seed: 3, solvable: true };
  const answer = ok(await client.POST("/v1/shuffle", { body }));
  const expected: Schemas["ShuffleResponse"] = {
    board: ["BAAA", "CB.C", "B.AB"],
    moves: [
      { from: [1, 1], to: [0, 2] },
      { from: [3, 0], to: [2, 0] },
      { from: [1, 0], to: [2, 2] },
      { from: [0, 1], to: [3, 1] },
      { from: [3, 2], to: [0, 0] },
    ],
    moved: [
      { from: [0, 0], to: [1, 0] },
      { from: [1, 0], to: [0, 0] },
      { from: [2, 0], to: [0, 1] },
      { from: [3, 0], to: [2, 0] },
      { from: [0, 1], to: [1, 1] },
      { from: [1, 1], to: [0, 2] },
      { from: [0, 2], to: [3, 0] },
      { from: [2, 2], to: [3, 2] },
      { from: [3, 2], to: [2, 2] },
    ],
  };
  assert.deepEqual(answer, expected);
  return `board ${describeBoard(answer.board)}, ${describeMoves(answer.moves)}`;
});

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

if (failures.length > 0) {
  console.log(`typescript client: ${failures.length} of the checks FAILED: ${failures.join("; ")}`);
  process.exit(1);
}
console.log("typescript client: every check passed");
