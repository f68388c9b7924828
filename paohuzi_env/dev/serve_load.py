"""A bounded load test of ``paohuzi serve`` on loopback: ``python -m paohuzi_env.dev.serve_load``.

The server (:func:`paohuzi_env.apps.serve.create_app` under uvicorn) runs in a child process on a
socket this process binds to a free loopback port, so its resident memory is its own. Several
client threads (plain ``http.client``, one keep-alive connection each) send a fixed, seeded mix
of requests: new tables, legal actions, state reads, replays, next hands, and bad ones — illegal
and stale actions, malformed JSON, wrong types, huge numbers, unknown fields, oversized bodies,
unknown table ids. With more tables opened than ``--max-tables`` the server keeps evicting.

It reports requests/s, the p50/p99 latency, the count of each status code (a 5xx is a failure),
and the server's resident memory (VmRSS) after the first half of the requests (warm-up: by then
it has been evicting for a while) and at the end. Timing figures are measurements for the docs
(docs/hardening.md); tests (tests/test_serve_load.py) assert only behaviour.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Any


def _serve_fd(fd: int, opponents: tuple[str, str], rules: str, max_tables: int,
              max_body: int, memo_caps: tuple[int, int, int] | None = None) -> None:
    """The child: serve the app on an inherited listening socket until terminated."""
    import uvicorn

    from ..apps.serve import create_app

    if memo_caps is not None:  # the compiled evaluator's memo caps (paohuzi_env.dev.soak --memo-caps)
        from .. import _fast

        _fast._set_memo_caps(*memo_caps)

    app = create_app(opponents, rules, max_tables=max_tables, max_body=max_body)
    config = uvicorn.Config(app, log_level="error", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[socket.socket(fileno=fd)])


def rss_kib(pid: int) -> int:
    """Resident memory of process ``pid`` in KiB (Linux /proc).

    Raises:
        OSError: where /proc/PID/status cannot be read (not Linux, or the process is gone).
    """
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise OSError(f"no VmRSS line in /proc/{pid}/status")


class Server:
    """``paohuzi serve``'s app in a child process on 127.0.0.1 (a context manager)."""

    def __init__(self, opponents: tuple[str, str] = ("random", "random"), rules: str = "huaihua",
                 max_tables: int = 16, max_body: int = 4096,
                 memo_caps: tuple[int, int, int] | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        fd = self.sock.fileno()
        code = (f"from paohuzi_env.dev.serve_load import _serve_fd; _serve_fd({fd}, {tuple(opponents)!r}, "
                f"{rules!r}, {max_tables}, {max_body}, {memo_caps!r})")
        env = dict(os.environ)
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = here + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen([sys.executable, "-c", code], pass_fds=(fd,), env=env)
        self.sock.close()  # the child holds it now
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited at start (status {self.proc.returncode})")
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                c.request("GET", "/")
                if c.getresponse().status == 200:
                    c.close()
                    return
            except OSError:
                pass
            if time.monotonic() > end:
                self.close()
                raise RuntimeError(f"the server did not answer within {timeout} s")
            time.sleep(0.1)

    def rss_kib(self) -> int:
        """The server process's resident memory in KiB."""
        return rss_kib(self.proc.pid)

    def close(self) -> None:
        """Stop the server: terminate it, and kill it if it has not exited within 10 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Client:
    """One client thread's connection and the tables it has opened."""

    def __init__(self, port: int, rng: random.Random) -> None:
        self.port = port
        self.rng = rng
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.state: dict[str, Any] | None = None
        self.gone: list[str] = []  # ids of tables this client opened earlier (maybe evicted)

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        for attempt in (0, 1):  # the server may close a keep-alive connection after an error
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                r = self.conn.getresponse()
                return r.status, r.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def post(self, path: str, obj: Any = None, raw: bytes | None = None) -> tuple[int, bytes]:
        data = raw if raw is not None else json.dumps(obj).encode()
        return self.request("POST", path, data, {"Content-Type": "application/json"})

    def one(self) -> tuple[str, int]:
        """Send one request of the mix; returns (kind, status)."""
        s = self.state
        if s is None or self.rng.random() < 0.04:
            if s is not None:
                self.gone.append(s["id"])
            st, body = self.post("/api/new", {"seed": self.rng.randrange(2**32)})
            if st == 200:
                self.state = json.loads(body)
            return "new", st
        tid = s["id"]
        u = self.rng.random()
        if s["done"]:
            if u < 0.3:
                return "replay", self.request("GET", s["replay"])[0]
            st, body = self.post(f"/api/table/{tid}/next", {})
            if st == 200:
                self.state = json.loads(body)
            elif st == 404:
                self.state = None
            return "next", st
        if u < 0.55:  # a legal move
            a = self.rng.choice(s["legal"])["action"]
            st, body = self.post(f"/api/table/{tid}/act", {"action": a, "version": s["version"]})
            if st == 200:
                self.state = json.loads(body)
            elif st == 404:
                self.state = None
            return "act", st
        if u < 0.65:
            st, body = self.request("GET", f"/api/table/{tid}")
            if st == 404:
                self.state = None
            return "show", st
        bad = self.rng.randrange(10)
        path = f"/api/table/{tid}/act"
        if bad == 0:
            st = self.post(path, {"action": 61 + self.rng.randrange(10**6), "version": s["version"]})[0]
        elif bad == 1:
            st = self.post(path, {"action": s["legal"][0]["action"], "version": s["version"] + 7})[0]
        elif bad == 2:
            st = self.post(path, raw=b'{"action": 3, "version": ')[0]
        elif bad == 3:
            st = self.post(path, {"action": "3", "version": [s["version"]]})[0]
        elif bad == 4:
            st = self.post(path, {"action": 10**400, "version": -(10**30)})[0]
        elif bad == 5:
            st = self.post(path, raw=b'{"action": 1e999, "version": NaN}')[0]
        elif bad == 6:
            st = self.post(path, raw=b'{"action": 3, "pad": "' + b"x" * 9000 + b'"}')[0]
        elif bad == 7:
            st = self.post("/api/new", {"seed": 2**80})[0]
        elif bad == 8:
            st = self.post(path, {"action": 3, "version": 0, "cheat": True})[0]
        else:
            old = self.rng.choice(self.gone) if self.gone else "no-such-table"
            st = self.request("GET", f"/api/table/{old}")[0]
        return f"bad{bad}", st


def run_load(requests: int = 2000, clients: int = 8, max_tables: int = 16, seed: int = 0,
             opponents: tuple[str, str] = ("random", "random"), rules: str = "huaihua",
             points: int = 1, memo_caps: tuple[int, int, int] | None = None) -> dict[str, Any]:
    """Run the mixed load against a fresh server; returns the figures.

    Keys: ``requests``, ``clients``, ``seconds``, ``rps``, ``p50_ms``, ``p99_ms``, ``status``
    (status code -> count), ``kinds`` (request kind -> {status: count}), ``rss_kib_warm`` and
    ``rss_kib_end`` (server VmRSS after half the requests and at the end), ``rss_kib`` (VmRSS
    after half and then after each of ``points`` equal parts of the rest), ``tables_opened``.
    """
    if clients < 1 or points < 1 or requests < 2 * clients * points:
        raise ValueError(f"need clients >= 1, points >= 1 and requests >= 2 * clients * points, got "
                         f"{requests}, {clients}, {points}")
    half = requests // 2
    lat: list[float] = []
    status: Counter[int] = Counter()
    kinds: dict[str, Counter[int]] = {}
    lock = threading.Lock()
    errors: list[BaseException] = []
    with Server(opponents, rules, max_tables, memo_caps=memo_caps) as srv:
        def work(k: int, n: int, state: list[_Client]) -> None:
            c = state[k]
            try:
                for _ in range(n):
                    t0 = time.perf_counter()
                    kind, st = c.one()
                    dt = time.perf_counter() - t0
                    with lock:
                        lat.append(dt)
                        status[st] += 1
                        kinds.setdefault(kind, Counter())[st] += 1
            except BaseException as e:  # reported below, never swallowed
                errors.append(e)

        cl = [_Client(srv.port, random.Random(seed * 1000 + k)) for k in range(clients)]
        rss = []
        t_start = time.perf_counter()
        parts = [half] + [(requests - half) // points + (k < (requests - half) % points)
                          for k in range(points)]
        for part in parts:
            per = [part // clients + (1 if k < part % clients else 0) for k in range(clients)]
            threads = [threading.Thread(target=work, args=(k, per[k], cl)) for k in range(clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if errors:
                raise errors[0]
            rss.append(srv.rss_kib())
        seconds = time.perf_counter() - t_start
        for c in cl:
            c.conn.close()
    lat.sort()
    opened = sum(v for k, cnt in kinds.items() if k == "new" for v in cnt.values())
    return {
        "requests": len(lat), "clients": clients, "max_tables": max_tables, "opponents": opponents,
        "seconds": seconds, "rps": len(lat) / seconds,
        "p50_ms": 1000 * lat[len(lat) // 2], "p99_ms": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))],
        "status": dict(sorted(status.items())),
        "kinds": {k: dict(sorted(v.items())) for k, v in sorted(kinds.items())},
        "rss_kib_warm": rss[0], "rss_kib_end": rss[-1], "rss_kib": rss, "tables_opened": opened,
    }


def main(argv: list[str] | None = None) -> int:
    """The command line: run the load test, print its figures as JSON and a summary line.

    Returns:
        The exit status: 1 when any request got a 5xx answer, else 0.
    """
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.dev.serve_load",
                                description=__doc__.split("\n")[0])
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--max-tables", type=int, default=16)
    p.add_argument("--opponents", nargs=2, default=["random", "random"])
    p.add_argument("--rules", default="huaihua")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--points", type=int, default=1,
                   help="RSS samples after the warm-up half (default 1: at the end)")
    p.add_argument("--memo-caps", metavar="SOLVE,WILD,WIN", default=None,
                   help="the server's compiled-evaluator memo caps (default: built in); small caps "
                        "fill at once, so the RSS figures show the tables' own memory")
    a = p.parse_args(argv)
    caps = None
    if a.memo_caps is not None:
        caps = tuple(int(x) for x in a.memo_caps.split(","))
        if len(caps) != 3 or min(caps) < 1:
            p.error(f"--memo-caps takes three positive ints SOLVE,WILD,WIN, got {a.memo_caps!r}")
    r = run_load(a.requests, a.clients, a.max_tables, a.seed, tuple(a.opponents), a.rules, a.points,
                 caps)  # type: ignore[arg-type]
    print(json.dumps(r, indent=1))
    fives = sum(v for k, v in r["status"].items() if k >= 500)
    growth = r["rss_kib_end"] / r["rss_kib_warm"] - 1
    print(f"{r['requests']} requests from {r['clients']} clients in {r['seconds']:.1f} s: "
          f"{r['rps']:.0f} requests/s, p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms; "
          f"5xx: {fives}; {r['tables_opened']} tables opened, at most {r['max_tables']} held; "
          f"server RSS {r['rss_kib_warm'] / 1024:.1f} MiB after warm-up -> "
          f"{r['rss_kib_end'] / 1024:.1f} MiB at the end ({100 * growth:+.1f}%)")
    return 1 if fives else 0


if __name__ == "__main__":
    sys.exit(main())
