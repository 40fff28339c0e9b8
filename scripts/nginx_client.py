"""A client of linkpath replicas behind nginx, for the scripts that kill
one mid-play (scripts/replicas-consistency.sh, scripts/replicas-match.sh):
one keep-alive connection a client, every 5xx counted by status, code and
route, and `until`, which sends a request again, with its Idempotency-Key,
after a 502, 503, 504 or a connection error."""

import http.client
import json
import re
import threading
import time

HTTP_TIMEOUT = 40                   # past nginx's own 30 s: a hang
RETRIED = {502, 503, 504}

lock = threading.Lock()
count = {"requests": 0, "retries": 0, "connection errors": 0, "replayed": 0, "moves": 0}
fivexx: dict = {}


class Client:
    def __init__(self, port, token=None):
        self.port = port
        self.token = token
        self.conn = None

    def send(self, method, path, body=None, key=None):
        """One request through nginx: (status, headers, answer), status
        None for a connection error."""
        headers = {"content-type": "application/json"} if body is not None else {}
        if key:
            headers["idempotency-key"] = key
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        with lock:
            count["requests"] += 1
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=HTTP_TIMEOUT)
            self.conn.request(method, path, None if body is None else json.dumps(body).encode(), headers)
            answer = self.conn.getresponse()
            raw = answer.read()
        except (OSError, http.client.HTTPException) as err:
            self.conn = None
            if isinstance(err, TimeoutError):
                raise SystemExit(f"{method} {path}: no answer in {HTTP_TIMEOUT} s")
            with lock:
                count["connection errors"] += 1
            return None, {}, None
        got = {k.lower(): v for k, v in answer.getheaders()}
        if answer.status >= 500:
            try:
                code = json.loads(raw)["error"]["code"]
            except Exception:
                code = "not JSON"
            route = re.sub("[0-9a-f]{32}", "{id}", path)
            seen = (answer.status, code, f"{method} {route}")
            with lock:
                fivexx[seen] = fivexx.get(seen, 0) + 1
        return answer.status, got, json.loads(raw) if raw else None

    def answered(self, method, path, oks, body=None, key=None):
        """(status, answer) once answered one of `oks`, sent again with the
        same key after a 502, 503, 504 or a connection error, for at most
        30 s; any other status ends the client."""
        give_up = time.time() + 30
        while True:
            status, got, answer = self.send(method, path, body, key)
            if status in oks:
                if got.get("idempotent-replayed") == "true":
                    with lock:
                        count["replayed"] += 1
                return status, answer
            if status is not None and status not in RETRIED:
                raise SystemExit(f"{method} {path}: {status} {json.dumps(answer)[:300]}")
            if time.time() > give_up:
                raise SystemExit(f"{method} {path}: still {status} after 30 s")
            with lock:
                count["retries"] += 1
            time.sleep(min(float(got.get("retry-after", "0.05")), 1))

    def until(self, method, path, ok, body=None, key=None):
        """The answer once answered `ok`, as `answered` sends it."""
        return self.answered(method, path, {ok}, body, key)[1]


def summary(clients, took):
    """The requests, the clients' retries and the 5xx they saw."""
    lines = [f"{clients} clients: {count['requests']} requests through nginx in {took:.1f} s, "
             f"{count['retries']} sent again by clients ({count['connection errors']} connection errors, "
             f"{sum(fivexx.values())} × 5xx); Idempotent-Replayed answers: {count['replayed']}"]
    for (status, code, route), n in sorted(fivexx.items()):
        lines.append(f"  {n} × {status} {code} to {route}")
    return "\n".join(lines)
