#!/usr/bin/env bash
# deploy/compose/nginx.conf in front of two replicas, on loopback: Debian's
# nginx runs the project's own file with only the addresses changed (its
# listen port, and the replicas' loopback ports in place of the Compose
# service name, which Docker's DNS would resolve), and two release
# `linkpath serve` with one solver slot each. Shows, with the README's
# /v1/solve example sent through nginx and answered byte for byte:
#
#   1. both replicas answer in turn;
#   2. a body over client_max_body_size: nginx's own 413, as linkpath's
#      JSON error body (`too_large`, Content-Type: application/json);
#   3. one replica saturated (its slot held by a long curling search, so it
#      answers 503 itself): every client still gets 200, nginx having
#      retried the POST on the other replica;
#   4. the same with `non_idempotent` taken out of the file: clients get
#      503s, so that word is what makes the retry happen;
#   5. both replicas saturated: the client gets a replica's own 503 with
#      Retry-After at once, after one try of each (tries are bounded);
#   6. proxy_read_timeout cut to 1 s and a solve slower than that: nginx's
#      504, as JSON (`deadline_exceeded`);
#   7. a limit_req added (the file has none): nginx's 503, as JSON
#      (`overloaded`, with Retry-After);
#   8. one replica stopped: every client still gets 200;
#   9. both replicas stopped: nginx's 502, as JSON (`upstream_unavailable`,
#      with Retry-After).
#
#   scripts/nginx-test.sh                         # builds the binary first if needed
#   LINKPATH_BIN=target/x86_64-unknown-linux-gnu/release/linkpath scripts/nginx-test.sh
#
# Only 127.0.0.1 is sent traffic; a few dozen requests in about 20 s.
# Stops, by PID, every process it started. Installs nginx with apt-get if
# missing, without letting the package start a system nginx.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

step "nginx"
PATH=$PATH:/usr/sbin
command -v nginx >/dev/null || apt_install nginx
nginx -v 2>&1

step "the binary"
dockerfile_binary

tmp=$(mktemp -d)
clean_up_on_exit "$tmp"

step "two replicas, one solver slot each"
# The defaults but for the slot count, a solve deadline long enough to
# hold a slot through the tests below, and games in memory (the two
# replicas would contend for one default file).
linkpath_defaults
ports=() replica_pids=()
for i in 1 2; do
  start_replica "$tmp/replica$i.log" --workers 1 --solve-timeout-ms 15000 \
    --shutdown-grace-ms 0 --store memory
  replica_pids+=("$replica_pid"); ports+=("$replica_port")
  echo "replica $i: 127.0.0.1:$replica_port, pid $replica_pid"
done
r1="127.0.0.1:${ports[0]}" r2="127.0.0.1:${ports[1]}"

# start_proxy NAME PORT [VARIANT]: nginx on deploy/compose/nginx.conf for
# loopback, in front of both replicas, its files $tmp/NAME.*; sets
# nginx_pid. VARIANT changes one thing more: `drop` takes non_idempotent
# out, `slow` cuts proxy_read_timeout to 1 s, `limited` adds a limit_req
# of one request a minute.
start_proxy() {
  local more=()
  case ${3:-} in
    "") ;;
    drop) more=('^(\s*proxy_next_upstream [^;]*) non_idempotent;' '\1;') ;;
    slow) more=('^(\s*)proxy_read_timeout 30s;$' '\g<1>proxy_read_timeout 1s;') ;;
    limited)
      # shellcheck disable=SC2016 # nginx's variable, not the shell's
      more=('^(\s*)client_max_body_size ([^;]*);$'
            '\g<1>client_max_body_size \2;\n\g<1>limit_req_zone $binary_remote_addr zone=test:1m rate=1r/m;'
            '^(\s*)proxy_read_timeout 30s;$' '\g<1>proxy_read_timeout 30s;\n\g<1>limit_req zone=test;') ;;
    *) fail "no variant $3" ;;
  esac
  start_nginx "$tmp" "$1" "$2" "$r1" "$r2" "${more[@]}"
}

nginx_port=$(free_port)
step "nginx with deploy/compose/nginx.conf on 127.0.0.1:$nginx_port"
start_proxy proxy "$nginx_port"
diff -u deploy/compose/nginx.conf "$tmp/proxy.conf" || true

# The README's example: its curl command's body and the answer it shows.
python3 - "$tmp/readme.body" "$tmp/readme.answer" <<'EOF'
import re, sys
readme = open("README.md").read()
m = re.search(r"```sh\n(curl -s localhost:8080/v1/solve .*?)\n```\s*answers\s*```json\n(.*?)\n```", readme, re.S)
if not m:
    sys.exit("README.md: no curl localhost:8080/v1/solve example followed by its answer")
open(sys.argv[1], "w").write(re.search(r"-d '(.*?)'", m.group(1), re.S).group(1))
open(sys.argv[2], "w").write(m.group(2))
EOF

# post URL: the README example; prints the status, keeps the body in
# $tmp/answer and the headers in $tmp/headers.
post() {
  curl -s -o "$tmp/answer" -D "$tmp/headers" -w '%{http_code}' --max-time 20 \
    -H 'content-type: application/json' --data-binary "@$tmp/readme.body" "$1" || echo 000
}
# clients PORT N: N requests one after another through the nginx on PORT;
# prints how many got 200 with the README's exact answer, and the others.
clients() {
  local port=$1 n=$2 good=0 other=() code
  for _ in $(seq "$n"); do
    code=$(post "http://127.0.0.1:$port/v1/solve")
    if [ "$code" = 200 ] && cmp -s "$tmp/answer" "$tmp/readme.answer"; then
      good=$((good + 1))
    else
      other+=("$code")
    fi
    sleep 0.02
  done
  echo "$good ${other[*]:-}"
}
# retried NAME FROM STATUS: access-log lines of that nginx after line FROM whose
# upstream status list is "STATUS, 200".
log_lines() { wc -l <"$tmp/$1.access.log"; }
retried() { tail -n +"$(($2 + 1))" "$tmp/$1.access.log" | grep -cE "upstream_status=\[$3, 200\]" || true; }
show_log() { tail -n +"$(($2 + 1))" "$tmp/$1.access.log" | head -n "${3:-4}" | sed 's/^/  /'; }

python3 - "$tmp/hold.json" <<'EOF'
import json, sys
# A 24 x 24 curling rink with no throw limit: the search runs until the
# deadline (15 s here), or until its client hangs up.
n = 24
board = [[int((x, y) not in ((0, 0), (n - 1, n - 1)) and (x * 7 + y * 11) % 10 < 3)
          for x in range(n)] for y in range(n)]
json.dump({"board": board, "rules": {"preset": "curling", "max_segments": None},
           "queries": [{"from": [0, 0], "to": [n - 1, n - 1]}]}, open(sys.argv[1], "w"))
EOF
# hold ADDRESS: takes that replica's only slot; sets hold_pid.
hold() {
  curl -s -o /dev/null --max-time 30 -H 'content-type: application/json' \
    --data-binary "@$tmp/hold.json" "http://$1/v1/solve" &
  hold_pid=$!; pids+=("$hold_pid")
  for _ in $(seq 100); do
    curl -s "http://$1/metrics" | grep -E '^linkpath_solves_in_flight 1' >/dev/null && return 0
    sleep 0.05
  done
  fail "$1: the holding solve never started"
}
# proxy_error STATUS CODE: the answer in $tmp/answer and $tmp/headers is
# nginx's own STATUS with linkpath's error body of code CODE, byte for
# byte the one deploy/compose/nginx.conf returns, as application/json.
proxy_error() {
  python3 - "$1" "$2" "$tmp/headers" "$tmp/answer" deploy/compose/nginx.conf <<'EOF'
import json, re, sys
status, code, headers, answer, conf = sys.argv[1:6]
head = open(headers, encoding="latin-1").read().splitlines()
fields = {}
for line in head[1:]:
    if ":" in line:
        name, value = line.split(":", 1)
        fields[name.strip().lower()] = value.strip()
got = int(head[0].split()[1])
body = open(answer, "rb").read().decode()
if got != int(status):
    sys.exit(f"status {got}, not {status}: {body[:200]!r}")
if fields.get("content-type") != "application/json":
    sys.exit(f"Content-Type {fields.get('content-type')!r}, not application/json")
returned = re.findall(r"^\s*return %s '(.*)';$" % status, open(conf).read(), re.M)
if returned != [body]:
    sys.exit(f"the body {body!r} is not the file's {returned!r}")
error = json.loads(body)
if list(error) != ["error"] or sorted(error["error"]) != ["code", "message"] \
        or error["error"]["code"] != code or not error["error"]["message"]:
    sys.exit(f"not linkpath's error body with code {code}: {body}")
print(f"{status} {fields['content-type']} {body}")
EOF
}
# free ADDRESS: waits until that replica runs no solve.
free() {
  for _ in $(seq 100); do
    curl -s "http://$1/metrics" | grep -E '^linkpath_solves_in_flight 0' >/dev/null && return 0
    sleep 0.05
  done
  fail "$1: a solve is still running"
}

step "1. both replicas up: 10 requests through nginx"
from=$(log_lines proxy)
read -r good other <<<"$(clients "$nginx_port" 10)"
[ "$good" = 10 ] || fail "$good of 10 got the README's answer; others: $other"
for r in "$r1" "$r2"; do
  tail -n +"$((from + 1))" "$tmp/proxy.access.log" | grep -qF "upstream=[$r]" \
    || fail "replica $r answered none of them"
done
ok "10 of 10 × 200 with the README's answer, both replicas answering"
show_log proxy "$from" 2

step "2. a body over client_max_body_size (16m): nginx's 413, as JSON"
head -c 17000000 /dev/zero | tr '\0' ' ' >"$tmp/big.body"
code=$(curl -s -o "$tmp/answer" -D "$tmp/headers" -w '%{http_code}' --max-time 20 \
  -H 'content-type: application/json' -H 'Expect:' --data-binary "@$tmp/big.body" \
  "http://127.0.0.1:$nginx_port/v1/solve" || echo 000)
rm -f "$tmp/big.body"
proxy_error 413 too_large || fail "a 17 MB body got $code, not the JSON 413"
ok "a 17 MB body: 413 too_large as application/json, from nginx"

step "3. replica 1 saturated: 20 requests through nginx"
hold "$r1"; hold1_pid=$hold_pid
code=$(post "http://$r1/v1/solve")
[ "$code" = 503 ] || fail "replica 1 answered $code, not 503, with its slot held"
ok "replica 1 itself answers 503 ($(grep -i '^retry-after' "$tmp/headers" | tr -d '\r'))"
from=$(log_lines proxy)
read -r good other <<<"$(clients "$nginx_port" 20)"
retries=$(retried proxy "$from" 503)
[ "$good" = 20 ] || fail "$good of 20 got 200 with the README's answer; others: $other"
[ "$retries" -ge 1 ] || fail "no request was retried after a 503 (the test did not test)"
ok "20 of 20 × 200 with the README's answer; $retries retried on replica 2 after replica 1's 503"
show_log proxy "$from" 2

step "4. the same without non_idempotent: nginx passes the 503 on"
control_port=$(free_port)
start_proxy control "$control_port" drop
control_pid=$nginx_pid
from=$(log_lines control)
read -r good other <<<"$(clients "$control_port" 20)"
busy=$(tr ' ' '\n' <<<"$other" | grep -c '^503$' || true)
[ "$busy" -ge 1 ] || fail "without non_idempotent no client saw a 503: the retry is not shown to come from it"
ok "without non_idempotent: $good × 200, $busy × 503 reached the client"
show_log control "$from" 2
stop "$control_pid"

step "5. both replicas saturated: bounded tries, the 503 passed on"
hold "$r2"; hold2_pid=$hold_pid
t0=$(date +%s%N)
code=$(post "http://127.0.0.1:$nginx_port/v1/solve")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$code" = 503 ] || fail "through nginx with both replicas busy: $code, not 503"
grep -qi '^retry-after: 1' "$tmp/headers" || fail "the 503 has no Retry-After"
grep -qF '"code":"overloaded"' "$tmp/answer" && ! grep -qF "the proxy is" "$tmp/answer" \
  || fail "the 503 is not the replica's own: $(cat "$tmp/answer")"
tail -n 1 "$tmp/proxy.access.log" | grep -qE 'upstream_status=\[503, 503\]' \
  || fail "not one try of each replica: $(tail -n 1 "$tmp/proxy.access.log")"
ok "the replicas' own 503 with Retry-After in $ms ms, after one try of each replica"
show_log proxy "$(($(log_lines proxy) - 1))" 1
# Hanging up stops each search and frees its slot.
stop "$hold2_pid"
stop "$hold1_pid"

step "6. proxy_read_timeout cut to 1 s, a solve slower than that: nginx's 504, as JSON"
free "$r1"; free "$r2"
slow_port=$(free_port)
start_proxy slow "$slow_port" slow
slow_pid=$nginx_pid
code=$(curl -s -o "$tmp/answer" -D "$tmp/headers" -w '%{http_code}' --max-time 20 \
  -H 'content-type: application/json' --data-binary "@$tmp/hold.json" \
  "http://127.0.0.1:$slow_port/v1/solve" || echo 000)
proxy_error 504 deadline_exceeded || fail "a solve past proxy_read_timeout got $code, not the JSON 504"
tail -n 1 "$tmp/slow.access.log" | grep -qE 'upstream_status=\[504, 504\]' \
  || fail "not one timed-out try of each replica: $(tail -n 1 "$tmp/slow.access.log")"
ok "504 deadline_exceeded as application/json after one try of each replica"
stop "$slow_pid"
# nginx hung up on both: their searches stop and free the slots.
free "$r1"; free "$r2"

step "7. a limit_req added: nginx's own 503, as JSON"
limited_port=$(free_port)
start_proxy limited "$limited_port" limited
limited_pid=$nginx_pid
# start_proxy's /healthz took the minute's one request.
code=$(post "http://127.0.0.1:$limited_port/v1/solve")
proxy_error 503 overloaded || fail "a request over limit_req got $code, not the JSON 503"
grep -qi '^retry-after: 1' "$tmp/headers" || fail "nginx's 503 has no Retry-After"
ok "503 overloaded as application/json with Retry-After: 1"
stop "$limited_pid"

step "8. replica 1 stopped: 20 requests through nginx"
stop_cleanly "${replica_pids[0]}" "replica 1"
ok "replica 1 stopped (exit 0 on SIGTERM)"
from=$(log_lines proxy)
read -r good other <<<"$(clients "$nginx_port" 20)"
retries=$(retried proxy "$from" 502)
[ "$good" = 20 ] || fail "$good of 20 got 200 with the README's answer; others: $other"
[ "$retries" -ge 1 ] || fail "no request was retried after replica 1's refused connection"
ok "20 of 20 × 200 with the README's answer; $retries retried on replica 2 after a refused connection"
show_log proxy "$from" 2

step "9. both replicas stopped: nginx's 502, as JSON"
stop "${replica_pids[1]}"
code=$(post "http://127.0.0.1:$nginx_port/v1/solve")
proxy_error 502 upstream_unavailable || fail "with no replica up: $code, not the JSON 502"
grep -qi '^retry-after: 1' "$tmp/headers" || fail "nginx's 502 has no Retry-After"
ok "502 upstream_unavailable as application/json with Retry-After: 1"

printf '\nnginx-test: passed in %s s\n' "$((SECONDS - started))"
