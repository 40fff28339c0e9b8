#!/usr/bin/env bash
# Process-level benchmark of `linkpath judge` against the baselines of
# bench/baselines (the parse-only floor and the straightforward contestant
# solvers), on large generated judge inputs, end to end as processes (stdin
# from the input file, stdout to /dev/null), and printed as Markdown tables
# of median wall times and their ratios:
#   Target 1  HDU 1175 1000 x 999, 49 queries: linkpath / floor, goal <= 2
#   Target 2  Mahjong 1000 x 1000 at 30% and 40% tiles, 50 pairs:
#             contestant / linkpath, goal >= 20
#   Target 3  POJ 3009, 100 hard 20 x 20 boards: contestant / linkpath, goal >= 5
#
#   bench/judge.sh [RUNS]      (RUNS timed runs of each program, default 5)
#
# LINKPATH_BIN names the linkpath binary to measure; without it the root
# crate is built (cargo build --release --locked --bin linkpath). Inputs are
# generated into target/bench-inputs/ when missing (delete them to make them
# anew). Before timing, linkpath's answers must equal the contestant's (and
# the samples' expected outputs): a benchmark of wrong answers is worthless,
# so a mismatch stops the script with exit code 1.
# Needs bash, coreutils, cargo and python3 (stdlib only).
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: bench/judge.sh [RUNS]   (RUNS a positive number, default 5)" >&2
    exit 2
fi

cargo build --release --locked --quiet --manifest-path bench/baselines/Cargo.toml
base=bench/baselines/target/release
if [[ -n ${LINKPATH_BIN:-} ]]; then
    linkpath=$LINKPATH_BIN
else
    cargo build --release --locked --quiet --bin linkpath
    linkpath=target/release/linkpath
fi
[[ -x $linkpath ]] || { echo "no linkpath binary at $linkpath" >&2; exit 2; }

inputs=target/bench-inputs
mkdir -p "$inputs"
generate() { # FILE GEN-ARGS...: writes $inputs/FILE unless it is there
    local file=$inputs/$1
    shift
    if [[ ! -s $file ]]; then
        "$base/gen" "$@" > "$file.tmp"
        mv "$file.tmp" "$file"
    fi
}
generate hdu1175.in hdu1175 --seed 1
generate mahjong30.in mahjong --seed 1 --density 30
generate mahjong40.in mahjong --seed 1 --density 40
generate poj3009-hard.in poj3009-hard --seed 1
generate llk.json llk-json --seed 1
generate mahjong30.json mahjong-json --seed 1 --density 30

# Same answers first.
check() { # LABEL INPUT EXPECTED-OUTPUT-FILE COMMAND...
    local label=$1 input=$2 expected=$3
    shift 3
    local got
    got=$(mktemp)
    "$@" < "$input" > "$got"
    if ! cmp -s "$got" "$expected"; then
        echo "MISMATCH: $label on $input differs from $expected:" >&2
        diff "$expected" "$got" | head -20 >&2 || true
        rm -f "$got"
        exit 1
    fi
    rm -f "$got"
}
expected=$(mktemp -d)
trap 'rm -rf "$expected"' EXIT
for case in hdu1175:hdu1175 mahjong:mahjong30 mahjong:mahjong40 poj3009:poj3009-hard; do
    format=${case%%:*} name=${case#*:}
    "$base/contestant" "$format" < "$inputs/$name.in" > "$expected/$name.out"
    check "linkpath judge $format" "$inputs/$name.in" "$expected/$name.out" "$linkpath" judge "$format"
done
check "contestant poj3009-pruned" "$inputs/poj3009-hard.in" "$expected/poj3009-hard.out" \
    "$base/contestant" poj3009-pruned
# The samples of docs/rules.md, kept in tests/data/.
for format in hdu1175 mahjong poj3009; do
    sample=tests/data/$format
    if [[ -f $sample.in && -f $sample.out ]]; then
        check "linkpath judge $format" "$sample.in" "$sample.out" "$linkpath" judge "$format"
        check "contestant $format" "$sample.in" "$sample.out" "$base/contestant" "$format"
    fi
done

echo "# bench/judge.sh: linkpath judge against the baselines"
echo
echo "- command: \`${LINKPATH_BIN:+LINKPATH_BIN=$LINKPATH_BIN }bench/judge.sh${1:+ $1}\` ($runs runs of each program, interleaved)"
echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "- linkpath: \`$linkpath\`; baselines: \`$base\`; inputs: \`$inputs/\`"
echo "- answers: linkpath judge = contestant on every input below (checked before timing)"
echo

python3 - "$runs" "$linkpath" "$base" "$inputs" <<'PY'
import statistics, subprocess, sys, time

runs, linkpath, base, inputs = int(sys.argv[1]), *sys.argv[2:]

# (key, command, input file)
jobs = [
    ("lp-hdu", [linkpath, "judge", "hdu1175"], "hdu1175.in"),
    ("floor-hdu", [f"{base}/floor", "hdu1175"], "hdu1175.in"),
    ("contestant-hdu", [f"{base}/contestant", "hdu1175"], "hdu1175.in"),
]
for density in (30, 40):
    file = f"mahjong{density}.in"
    jobs += [
        (f"lp-mj{density}", [linkpath, "judge", "mahjong"], file),
        (f"contestant-mj{density}", [f"{base}/contestant", "mahjong"], file),
        (f"floor-mj{density}", [f"{base}/floor", "mahjong"], file),
    ]
jobs += [
    ("lp-curl", [linkpath, "judge", "poj3009"], "poj3009-hard.in"),
    ("plain-curl", [f"{base}/contestant", "poj3009"], "poj3009-hard.in"),
    ("pruned-curl", [f"{base}/contestant", "poj3009-pruned"], "poj3009-hard.in"),
    ("floor-curl", [f"{base}/floor", "poj3009"], "poj3009-hard.in"),
]

def run(command, file):
    with open(f"{inputs}/{file}", "rb") as stdin:
        start = time.perf_counter()
        done = subprocess.run(command, stdin=stdin, stdout=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} < {file} failed with exit code {done.returncode}")
    return elapsed * 1000

# Interleaved: every round runs every program once, so a change of load on
# the machine hits all of them alike; the median of the rounds is reported.
times = {key: [] for key, _, _ in jobs}
for _ in range(runs):
    for key, command, file in jobs:
        times[key].append(run(command, file))
median = {key: statistics.median(values) for key, values in times.items()}

def ms(key):
    return f"{median[key]:.1f}"

def ratio(a, b):
    return f"{median[a] / median[b]:.2f}"

def verdict(ok):
    return "met" if ok else "NOT met"

print("All times are median wall milliseconds of the whole process, input read from a file.")
print()
print("## Target 1: HDU 1175, 1000 x 999, about 50% tiles of 20 types, 49 queries")
print()
print("| input | linkpath judge hdu1175 | floor hdu1175 | contestant hdu1175 | linkpath / floor (goal <= 2) | contestant / floor |")
print("|---|---:|---:|---:|---:|---:|")
r = median["lp-hdu"] / median["floor-hdu"]
print(f"| hdu1175.in | {ms('lp-hdu')} | {ms('floor-hdu')} | {ms('contestant-hdu')} | **{r:.2f}** ({verdict(r <= 2)}) | {ratio('contestant-hdu', 'floor-hdu')} |")
print()
print("## Target 2: Mahjong, 1000 x 1000, 50 pairs of random tiles")
print()
print("| input | linkpath judge mahjong | contestant mahjong | floor mahjong | contestant / linkpath (goal >= 20) | contestant per pair |")
print("|---|---:|---:|---:|---:|---:|")
for density in (30, 40):
    lp, co, fl = f"lp-mj{density}", f"contestant-mj{density}", f"floor-mj{density}"
    r = median[co] / median[lp]
    per_pair = (median[co] - median[fl]) / 50
    print(f"| mahjong{density}.in ({density}% tiles) | {ms(lp)} | {ms(co)} | {ms(fl)} | **{r:.2f}** ({verdict(r >= 20)}) | {per_pair:.1f} |")
print()
print("(contestant per pair = (contestant - floor) / 50: its time per query without the parsing.)")
print()
print("## Target 3: POJ 3009, 100 hard 20 x 20 boards (50 answered 8 to 10, 50 answered -1)")
print()
print("| input | linkpath judge poj3009 | contestant poj3009 | contestant poj3009-pruned | floor poj3009 | plain / linkpath (goal >= 5) | pruned / linkpath |")
print("|---|---:|---:|---:|---:|---:|---:|")
r = median["plain-curl"] / median["lp-curl"]
print(f"| poj3009-hard.in | {ms('lp-curl')} | {ms('plain-curl')} | {ms('pruned-curl')} | {ms('floor-curl')} | **{r:.2f}** ({verdict(r >= 5)}) | {ratio('pruned-curl', 'lp-curl')} |")
PY

echo
echo "## For reference: serde_json alone on the same boards as /v1/solve bodies"
echo
echo "| body | serde_json parse (serde-floor, 10 parses) |"
echo "|---|---|"
for body in llk.json mahjong30.json; do
    echo "| $body ($(wc -c < "$inputs/$body") bytes) | $("$base/serde-floor" "$inputs/$body" --iters 10) |"
done
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
