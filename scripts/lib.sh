# shellcheck shell=bash
# Sourced, from the project root and under `set -euo pipefail`, by the
# scripts that run servers of their own on loopback (scripts/nginx-test.sh,
# redis-fault.sh, replicas-consistency.sh, metrics-check.sh and
# bench/replicas.sh): what they all do the same way. Only 127.0.0.1; a
# process is stopped only by the PID it was started with.
#
#   step TEXT        a heading, with the seconds since the script started
#   fail TEXT        "NAME: FAILED: TEXT" on stderr (NAME: the script's file
#                    name without .sh), exit 1
#   ok TEXT          "ok: TEXT"
#   apt_install PACKAGE...
#                    installs Debian packages without letting them start
#                    their services
#   dockerfile_binary
#                    sets `bin`: LINKPATH_BIN, or the binary of the
#                    Dockerfile's build command, run first
#   linkpath_defaults
#                    unsets every LINKPATH_ variable of this shell
#   clean_up_on_exit DIR
#                    on exit, interrupted or stopped by SIGTERM too: a
#                    function `before_cleanup`, where the script defines one,
#                    then every PID in `pids` sent SIGTERM and waited for,
#                    then DIR removed; the exit status is kept
#   pids+=(PID)      a process to stop on exit
#   forget PID...    waited for already, so never signalled again
#   stop PID...      SIGTERM, waited for, forgotten
#   stop_cleanly PID NAME
#                    the same, and fails unless it exits 0
#   kill_hard PID    SIGKILL, waited for, forgotten
#   free_port        prints a free loopback TCP port
#   wait_for URL PID LOG
#                    waits up to 10 s for URL to answer 2xx; fails, with
#                    LOG, if PID exits first
#   start_replica LOG [ARG...]
#                    `$bin serve ARG...` on a free loopback port, its output
#                    in LOG, once /healthz answers; sets `replica_port` and
#                    `replica_pid`
#   start_redis PORT DIR LOG [OPTION...]
#                    a redis-server of the script's own, once it answers
#                    PING; sets `redis_pid`
#   nginx_conf OUT PORT R1 R2 [PATTERN REPLACEMENT]...
#                    writes deploy/compose/nginx.conf for loopback
#   start_nginx DIR NAME PORT R1 R2 [PATTERN REPLACEMENT]...
#                    nginx on that file, once /healthz answers through it;
#                    sets `nginx_pid`

started=$SECONDS
pids=()

step() { printf '\n== [%ss] %s\n' "$((SECONDS - started))" "$*"; }
fail() { echo "$(basename "$0" .sh): FAILED: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

apt_install() {
  [ $# -gt 0 ] || return 0
  local sudo="" made_policy=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  # Debian's packages start their services (nginx on port 80, Redis on
  # 6379, a Prometheus server) where services may start; the scripts run
  # their own on free ports, so the packages' start is refused.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  [ -z "$made_policy" ] || $sudo rm -f /usr/sbin/policy-rc.d
}

# The static binary the image ships, so that what is tested is what runs
# in the container.
dockerfile_binary() {
  if [ -z "${LINKPATH_BIN:-}" ]; then
    local build
    build=$(sed -n 's/^RUN \(.*cargo build .*\)$/\1/p' Dockerfile)
    echo "$build"
    bash -c "$build"
  fi
  bin=${LINKPATH_BIN:-target/x86_64-unknown-linux-gnu/release/linkpath}
  [ -x "$bin" ] || fail "no executable at $bin"
  echo "$bin"
}

# A server started after this runs on its defaults, whatever this shell
# has set, but for what its command line says.
linkpath_defaults() {
  local var
  while read -r var; do unset "$var"; done < <(compgen -e | grep '^LINKPATH_' || true)
}

clean_up_on_exit() {
  cleanup_dir=$1
  trap stop_started EXIT
  # Without these, a signal would end the script without the EXIT trap.
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
stop_started() {
  local status=$? pid
  if declare -F before_cleanup >/dev/null; then before_cleanup; fi
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$cleanup_dir"
  exit "$status"
}

# A PID that has been waited for may be another process's by then.
forget() {
  local keep=() pid
  for pid in "${pids[@]}"; do [[ " $* " == *" $pid "* ]] || keep+=("$pid"); done
  pids=("${keep[@]}")
}
stop() {
  local pid
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
  forget "$@"
}
stop_cleanly() {
  local status=0
  kill -TERM "$1"
  wait "$1" || status=$?
  forget "$1"
  [ "$status" = 0 ] || fail "$2 exited $status on SIGTERM"
}
kill_hard() {
  kill -KILL "$1"
  # (bash reports a child killed by a signal on its own stderr.)
  exec 3>&2 2>/dev/null
  wait "$1" || true
  exec 2>&3 3>&-
  forget "$1"
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_for() {
  for _ in $(seq 100); do
    curl -sf "$1" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { cat "$3" >&2; fail "$1: the process exited"; }
    sleep 0.1
  done
  fail "$1 did not answer"
}

# The address by LINKPATH_LISTEN, so that ARG... and the caller's
# environment say the rest.
start_replica() {
  local log=$1
  shift
  replica_port=$(free_port)
  LINKPATH_LISTEN=127.0.0.1:$replica_port "$bin" serve "$@" >"$log" 2>&1 &
  replica_pid=$!; pids+=("$replica_pid")
  wait_for "http://127.0.0.1:$replica_port/healthz" "$replica_pid" "$log"
}

# The log is appended to: a Redis started again on the same port and
# directory keeps the first one's lines.
start_redis() {
  local port=$1 dir=$2 log=$3
  shift 3
  redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" "$@" >>"$log" 2>&1 &
  redis_pid=$!; pids+=("$redis_pid")
  for _ in $(seq 200); do
    [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ] && return 0
    kill -0 "$redis_pid" 2>/dev/null || { cat "$log" >&2; fail "redis-server exited"; }
    sleep 0.05
  done
  fail "redis-server did not answer PING on port $port"
}

# The project's file with the listen port and the two replicas' addresses
# put in, the resolver taken out (loopback addresses need no DNS, and
# Debian's nginx 1.22 predates `resolve`), and nothing else changed but
# each PATTERN (a Python regular expression, multi-line) replaced; each
# must match exactly one place.
nginx_conf() {
  python3 - deploy/compose/nginx.conf "$@" <<'EOF'
import re, sys
src, out, port, r1, r2, *more = sys.argv[1:]
if len(more) % 2:
    sys.exit(f"nginx_conf: {more[-1]!r} has no replacement")
text = open(src).read()
def sub(pattern, repl):
    global text
    text, n = re.subn(pattern, repl, text, flags=re.M)
    if n != 1:
        sys.exit(f"{src}: expected one line matching {pattern!r}, found {n}")
sub(r"^(\s*)listen 8080;$", rf"\g<1>listen 127.0.0.1:{port};")
sub(r"^(\s*)server linkpath:8080 resolve( [^;]*)?;$",
    lambda m: "\n".join(f"{m.group(1)}server {r}{m.group(2) or ''};" for r in (r1, r2)))
sub(r"^\s*resolver [^;]*;\n", "")
for pattern, repl in zip(more[::2], more[1::2]):
    sub(pattern, repl)
open(out, "w").write(text)
EOF
}

# Its files are DIR/NAME.*: the access log on stdout (as in the
# container), the pid and error log where the -g directives put them.
start_nginx() {
  local dir=$1 name=$2 port=$3
  shift 3
  nginx_conf "$dir/$name.conf" "$port" "$@"
  nginx -p "$dir/" -c "$dir/$name.conf" \
    -g "daemon off; pid $dir/$name.pid; error_log $dir/$name.error.log warn;" \
    >"$dir/$name.access.log" 2>"$dir/$name.stderr" &
  nginx_pid=$!; pids+=("$nginx_pid")
  wait_for "http://127.0.0.1:$port/healthz" "$nginx_pid" "$dir/$name.stderr"
}

# Two replicas on one redis-server of their own (key prefix $1), behind
# Debian's nginx running deploy/compose/nginx.conf, all on loopback: the
# set-up of the scripts that kill a replica mid-play. Installs nginx and
# redis-server if missing; sets tmp (removed at exit; KEEP_LOGS=DIR keeps
# the logs), redis_port, ports, replica_pids and nginx_port.
two_replicas_behind_nginx() {
  local prefix=$1
  step "nginx and redis-server"
  PATH=$PATH:/usr/sbin
  local missing=() i
  command -v nginx >/dev/null || missing+=(nginx)
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null || missing+=(redis-server)
  apt_install "${missing[@]}"
  nginx -v 2>&1
  redis-server --version

  step "the binary"
  dockerfile_binary

  tmp=$(mktemp -d)
  clean_up_on_exit "$tmp"
  before_cleanup() {
    [ -z "${KEEP_LOGS:-}" ] || cp "$tmp"/*.log "$KEEP_LOGS"/
  }

  redis_port=$(free_port)
  step "redis-server on 127.0.0.1:$redis_port"
  start_redis "$redis_port" "$tmp" "$tmp/redis.log" --save '' --appendonly no
  echo "pid $redis_pid"

  step "two replicas on it"
  # The defaults but for the store.
  linkpath_defaults
  ports=() replica_pids=()
  for i in 1 2; do
    start_replica "$tmp/replica$i.log" --shutdown-grace-ms 0 \
      --store "redis://127.0.0.1:$redis_port/0?prefix=$prefix"
    replica_pids+=("$replica_pid"); ports+=("$replica_port")
    echo "replica $i: 127.0.0.1:$replica_port, pid $replica_pid"
  done

  nginx_port=$(free_port)
  step "nginx with deploy/compose/nginx.conf on 127.0.0.1:$nginx_port"
  start_nginx "$tmp" nginx "$nginx_port" "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}"
}
