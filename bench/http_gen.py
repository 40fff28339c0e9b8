#!/usr/bin/env python3
"""Fallback generator of big /v1/solve bodies (stdlib only), used by
bench/http_big.sh and bench/memory.sh when bench/baselines' `gen` is not
built. Same command line and same shapes as `gen`, not the same bytes:

  http_gen.py llk-json --seed N                  1000 rows x 999 columns,
      numeric rows, 20 tile types at 50%, 49 same-type queries, lianliankan
  http_gen.py mahjong-json --seed N [--density P] 1000 x 1000, string rows
      ('X' tile, '.' empty), P percent tiles (default 30; P <= 1 is read as
      a fraction), 50 random tile pairs, mahjong

The body is written to stdout.
"""
import argparse
import json
import random
import sys


def tiles_and_board(rng, width, height, density, types):
    cells = []
    for _ in range(height):
        row = []
        for _ in range(width):
            row.append(1 + rng.randrange(types) if rng.random() < density else 0)
        cells.append(row)
    return cells


def queries(rng, cells, count, same_type):
    tiles = [(x, y) for y, row in enumerate(cells) for x, v in enumerate(row) if v]
    out = []
    while len(out) < count:
        a = tiles[rng.randrange(len(tiles))]
        b = tiles[rng.randrange(len(tiles))]
        if a != b and (not same_type or cells[a[1]][a[0]] == cells[b[1]][b[0]]):
            out.append({"from": list(a), "to": list(b)})
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["llk-json", "mahjong-json"])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--density", type=float, default=30)
    a = p.parse_args()
    rng = random.Random(a.seed)
    if a.kind == "llk-json":
        cells = tiles_and_board(rng, 999, 1000, 0.5, 20)
        body = {"board": cells, "rules": "lianliankan",
                "queries": queries(rng, cells, 49, True)}
    else:
        d = a.density if a.density <= 1 else a.density / 100
        cells = tiles_and_board(rng, 1000, 1000, d, 1)
        rows = ["".join("X" if v else "." for v in row) for row in cells]
        body = {"board": rows, "rules": "mahjong",
                "queries": queries(rng, cells, 50, False)}
    json.dump(body, sys.stdout, separators=(",", ":"))


if __name__ == "__main__":
    main()
