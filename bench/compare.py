#!/usr/bin/env python3
"""Times programs on one input, interleaved, and prints wall and CPU times.

    bench/compare.py INPUT RUNS NAME=COMMAND [NAME=COMMAND ...]

Each round runs every command once, in the order given, with INPUT
redirected to stdin (a file, as bench/judge.sh and the judges give it) and
stdout discarded, so a change in the machine's load hits all of
them alike. CPU time (user + system of the child) moves less than wall
time on a shared machine. Used for the before/after figures in commit
messages, e.g.

    bench/compare.py target/bench-inputs/mahjong30.in 9 \\
        new='target/release/linkpath judge mahjong' \\
        old='/tmp/old/linkpath judge mahjong'
"""
import resource
import shlex
import subprocess
import sys
import time


def main() -> None:
    if len(sys.argv) < 4 or not sys.argv[2].isdigit():
        sys.exit(__doc__)
    path = sys.argv[1]
    runs = int(sys.argv[2])
    programs = [arg.split("=", 1) for arg in sys.argv[3:]]
    times = {name: [] for name, _ in programs}
    for _ in range(runs):
        for name, command in programs:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            with open(path, "rb") as stdin:
                subprocess.run(shlex.split(command), stdin=stdin, stdout=subprocess.DEVNULL, check=True)
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            times[name].append((wall, cpu))
    for name, samples in times.items():
        wall = sorted(s[0] for s in samples)
        cpu = sorted(s[1] for s in samples)
        mid = len(samples) // 2
        print(f"{name:<10} wall min {wall[0] * 1e3:7.1f} med {wall[mid] * 1e3:7.1f} ms"
              f" | cpu min {cpu[0] * 1e3:7.1f} med {cpu[mid] * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
