#!/usr/bin/env python3
"""Counts the run graph of a Mahjong judge input's first board.

    bench/run_graph.py target/bench-inputs/mahjong30.in

Prints how many maximal straight runs of open cells the padded board has
(the nodes of the graph `src/solver/runs.rs` searches), how many are dead
ends (one crossing), how many lie outside the graph's 2-core (dead ends,
and runs left with one crossing once those are peeled off, repeatedly),
and how many runs of the 2-core have two crossings in it. Behind the
"a pruned graph has little to gain" figures in BENCHMARKS.md.
"""
import sys
from collections import deque


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    lines = open(sys.argv[1]).read().split("\n")
    width, height = map(int, lines[0].split())
    rows = [line.ljust(width)[:width] for line in lines[1 : 1 + height]]
    # The board inside an open ring (a Mahjong path may leave the board).
    w, h = width + 2, height + 2
    open_ = [
        [x in (0, w - 1) or y in (0, h - 1) or rows[y - 1][x - 1] in " ." for x in range(w)]
        for y in range(h)
    ]
    across, down, count = {}, {}, 0
    for y in range(h):
        for x in range(w):
            if not open_[y][x]:
                continue
            if x > 0 and open_[y][x - 1]:
                across[x, y] = across[x - 1, y]
            else:
                across[x, y], count = count, count + 1
            if y > 0 and open_[y - 1][x]:
                down[x, y] = down[x, y - 1]
            else:
                down[x, y], count = count, count + 1
    crossing = [set() for _ in range(count)]
    for cell, row in across.items():
        column = down[cell]
        crossing[row].add(column)
        crossing[column].add(row)
    degree = [len(c) for c in crossing]
    dead_ends = sum(1 for d in degree if d == 1)
    left = degree[:]
    peeled = [False] * count
    queue = deque(r for r in range(count) if left[r] <= 1)
    while queue:
        run = queue.popleft()
        if peeled[run]:
            continue
        peeled[run] = True
        for other in crossing[run]:
            if not peeled[other]:
                left[other] -= 1
                if left[other] == 1:
                    queue.append(other)
    two = sum(1 for r in range(count) if not peeled[r] and left[r] == 2)
    print(f"runs {count}")
    print(f"dead ends (one crossing) {dead_ends}")
    print(f"outside the 2-core {sum(peeled)}")
    print(f"2-core runs with two crossings in it {two}")


if __name__ == "__main__":
    main()
