#!/usr/bin/env python3
"""How much a memo of curling states could save on a POJ 3009 input.

    bench/curling_states.py target/bench-inputs/poj3009-hard.in [BOARDS]

For the first BOARDS datasets (default 40), a breadth-first walk over
(stone position, set of broken blocks) up to 9 throws counts the throws
that end on a stop (transitions) and the distinct states they reach. The
gap between the two is all a memo of visited states could skip. Slow
(pure Python); it answers a design question, it is not a benchmark.
"""
import sys

STEPS = [(1, 0), (0, 1), (-1, 0), (0, -1)]


def datasets(text):
    numbers = iter(map(int, text.split()))
    while True:
        w, h = next(numbers), next(numbers)
        if w == 0:
            return
        yield w, h, [next(numbers) for _ in range(w * h)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    transitions = distinct = 0
    for w, h, cells in list(datasets(open(sys.argv[1]).read()))[:limit]:
        start, goal = cells.index(2), cells.index(3)
        block = [c == 1 for c in cells]

        def slide(at, dx, dy, broken):
            x, y, moved = at % w, at // w, False
            while True:
                nx, ny = x + dx, y + dy
                if not (0 <= nx < w and 0 <= ny < h):
                    return None  # lost
                i = ny * w + nx
                if block[i] and i not in broken:
                    return (y * w + x, i) if moved else None
                if i == goal:
                    return None  # reached: no further state
                x, y, moved = nx, ny, True

        seen = {(start, frozenset())}
        frontier = list(seen)
        for _ in range(9):
            following = []
            for at, broken in frontier:
                for dx, dy in STEPS:
                    stop = slide(at, dx, dy, broken)
                    if stop:
                        transitions += 1
                        state = (stop[0], broken | {stop[1]})
                        if state not in seen:
                            seen.add(state)
                            following.append(state)
            frontier = following
        distinct += len(seen)
    print(f"{limit} boards: {transitions} transitions, {distinct} distinct states, "
          f"{1 - distinct / max(transitions, 1):.0%} of transitions revisit a state")


if __name__ == "__main__":
    main()
