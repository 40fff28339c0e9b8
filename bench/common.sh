# Sourced by the HTTP and memory benchmarks (bench/http_*.sh,
# bench/memory.sh): the linkpath binary, the input generator, and a scratch
# directory whose server is stopped on exit. Run from the project root.
# Its servers keep games in memory: a run starts fresh, and servers that
# overlap do not contend for one store file.
export LINKPATH_STORE=memory

# Sets `bin`: LINKPATH_BIN, or the release build of the root crate.
linkpath_binary() {
  if [ -z "${LINKPATH_BIN:-}" ]; then
    cargo build --release --locked --quiet --bin linkpath
    LINKPATH_BIN=target/release/linkpath
  fi
  bin=$LINKPATH_BIN
  [ -x "$bin" ] || { echo "no executable at LINKPATH_BIN=$bin" >&2; exit 1; }
}

# Sets `baselines`, `gen` (an array) and `gen_name`: bench/baselines' gen,
# built with the extra binaries named as arguments (--bin NAME ...), or the
# python fallback when NO_BASELINES is set or the build is not there.
input_generator() {
  baselines=bench/baselines/target/release
  [ -n "${NO_BASELINES:-}" ] && baselines=/nonexistent # try the fallbacks
  if [ -z "${NO_BASELINES:-}" ] && [ -f bench/baselines/Cargo.toml ]; then
    cargo build --release --locked --quiet --manifest-path bench/baselines/Cargo.toml --bin gen "$@" \
      || echo "warning: building bench/baselines failed; using what is there" >&2
  fi
  if [ -x "$baselines/gen" ]; then
    gen=("$baselines/gen"); gen_name="bench/baselines/target/release/gen"
  else
    gen=(python3 bench/http_gen.py); gen_name="python3 bench/http_gen.py (fallback: bench/baselines not built or NO_BASELINES set)"
  fi
}

# Sets `work` (a scratch directory) and `server_pid` (empty until a script
# starts a server); on exit the server is stopped and the directory removed.
scratch_space() {
  work=$(mktemp -d)
  server_pid=
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}

cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
