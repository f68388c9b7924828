"""``paohuzi serve``: play two bots in the browser (a small ASGI app: Starlette + uvicorn).

Each browser tab opens its own table (``POST /api/new``): you are seat 0, the two bots seats 1
and 2. The page shows the table as SVG (:mod:`paohuzi_env.display.svg`, your view) and every decision as
buttons, one per legal action — each claim (碰, each 吃 group), each 比 step, 过 (忍碰 for a 碰;
in a 比 chain it cancels the 吃), HU — and in a discard decision a click on a card of your hand
discards it. The bots' moves appear in the log as they are made. The running totals over the
tab's hands, the final scoring with its 名堂 breakdown, a link to the replay viewer
(:mod:`paohuzi_env.apps.replay_html`) of the hand just played and one to its review (the replay
with the analysis panel of your decisions, :func:`paohuzi_env.apps.review.review`) follow each
hand. The 提示 (hint) button turns on the analyser's value of each of your legal actions at
your decisions (:func:`paohuzi_env.apps.review.analyse_position`: from your information only),
shown on the action buttons with the best one marked.

The server holds the games and checks every action against the engine: an action that is not
legal now, or one sent from a page that is out of date (its ``version``, the number of actions
played, differs), is refused with a message that says why and what is legal, and changes
nothing. It binds to 127.0.0.1 unless told otherwise.

HTTP API (JSON): ``POST /api/new`` {seed?} → table state; ``GET /api/table/{id}`` → state;
``POST /api/table/{id}/act`` {action, version} → state, or 400/409 {error, state};
``POST /api/table/{id}/next`` → the next hand's state; ``GET /api/table/{id}/hint`` → the value of
each of your legal actions now (``{hand, version, decision, analyser, legal: [{action, name, mean,
se, worlds}], best, worlds}``), or 409 {error, state} when it is not your decision (503 without
the compiled core); ``GET /replay/{id}/{n}`` → the replay page of hand n; ``GET /review/{id}/{n}``
→ the replay page of hand n with the review of your (seat 0's) decisions. The app is
:func:`create_app`; :func:`run` serves it.

Limits (all configurable, ``paohuzi serve --max-tables/--idle-timeout/--max-body``): at most
``max_tables`` tables are held — opening one more drops the least recently used table — and a
table nobody has touched for ``idle_timeout`` seconds is dropped; a dropped table's id answers
404. A request body is at most ``max_body`` bytes (413 past that). A body that is not a JSON
object, a field of the wrong type, a number out of range, an unknown field or an unknown table
id is answered with a 4xx and a message saying what is wrong and what is allowed, and changes
nothing. A table keeps the records of its last ``MAX_RECORDS`` finished hands (for the replay
links), so a long session does not grow without bound. The analyses run on a worker thread, so
the server answers other tables meanwhile; a table keeps its last hint and the reviews of its kept
hands, so asking again costs nothing.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import OrderedDict
from html import escape
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..agents import decide, make_agent
from ..backends.select import game_class
from ..display.render import event_text, move_name, result_text, win_breakdown
from ..display.svg import display_name, table_svg
from ..game.actions import NUM_ACTIONS, action_name
from ..game.engine import next_dealer
from ..game.rules import Rules, as_rules
from .replay_html import replay_html
from .review import ANALYSER, analyse_position, analyser_options, jsonable, review

YOU = 0
MAX_TABLES = 64
"""Open tables kept; the least recently used one is dropped past this."""
IDLE_TIMEOUT = 3600.0
"""Seconds a table may go untouched before it is dropped."""
MAX_BODY = 4096
"""Bytes a request body may hold (the page sends a few dozen)."""
MAX_RECORDS = 100
"""Finished hands a table keeps for its replay links (the oldest are dropped)."""
MAX_SEED = 2**64
"""Seeds are ints 0 <= seed < MAX_SEED."""
_FIELDS = {"new": ("seed",), "act": ("action", "version"), "next": ()}
_PROMPT = {
    "tianhu": "天胡? 胡, 或 过",
    "hu": "胡? 胡, 或 过",
    "claim": "要这张牌吗? 吃 (选一组) / 碰 / 过 (不要; 有碰而过即忍碰)",
    "bi": "比: 手中同样的牌每张都要放进一个比组 (R-CHI-2); 过 = 取消这次吃",
    "discard": "出牌: 点一张手牌, 或下面的按钮",
}

_ANSWERING = {"tianhu": "a 天胡 offer", "hu": "a HU offer", "claim": "a claim (吃/碰/过)",
              "bi": "a 比 step", "discard": "a discard"}


class Refused(Exception):
    """An action the table does not accept; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Table:
    """One browser tab's games: you (seat 0) against two bots, hand after hand."""

    def __init__(self, table_id: str, rules: Rules, opponents: tuple[str, str], seed: int,
                 backend: str | None = None) -> None:
        self.id = table_id
        self.rules = rules
        self.opponents = opponents
        self.seed = seed
        self.lock = threading.Lock()
        self._game_cls: Any = game_class(backend)
        self._ss = np.random.SeedSequence(seed)
        self.dealer = int(np.random.default_rng(self._ss.spawn(1)[0]).integers(3))
        self.streak = 0
        self.totals = [0, 0, 0]
        self.records: OrderedDict[int, dict[str, Any]] = OrderedDict()  # hand number -> record
        self.reviews: dict[int, dict[str, Any]] = {}  # hand number -> review (of kept records)
        self._hint: tuple[tuple[int, int], dict[str, Any]] | None = None  # (hand, version), hint
        self.hand_no = 0
        self.used = time.monotonic()
        self.game: Any = None
        self._deal()

    def _deal(self) -> None:
        deal_ss, bot_ss = self._ss.spawn(2)
        self.game = self._game_cls(self.rules, dealer=self.dealer, seed=deal_ss)
        self.bots = {s: make_agent(self.opponents[i], seed=b, rules=self.rules)
                     for i, (s, b) in enumerate(zip((1, 2), bot_ss.spawn(2)))}
        self.hand_no += 1
        self._run_bots()

    def _run_bots(self) -> None:
        g = self.game
        while not g.done and g.current_player != YOU:
            s = g.current_player
            g.step(decide(self.bots[s], g, s))
        if g.done and self.hand_no not in self.records:
            r = g.result
            for s in range(3):
                self.totals[s] += r.scores[s]
            rec = g.record()
            rec["seats"] = ["你", *self.opponents]
            rec["title"] = f"第 {self.hand_no} 局 — 你 vs {' / '.join(self.opponents)}"
            self.records[self.hand_no] = rec
            while len(self.records) > MAX_RECORDS:  # a long session keeps its last hands only
                old, _ = self.records.popitem(last=False)
                self.reviews.pop(old, None)
            self.dealer, self.streak = next_dealer(self.rules, g.dealer, r.winner, self.streak)

    def act(self, action: Any, version: Any) -> None:
        """Play ``action`` for you; the bots answer until it is your turn or the hand is over.

        Raises:
            Refused: for a malformed, stale or illegal action (the game is unchanged).
        """
        g = self.game
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
            raise Refused(f"an action is an int id 0..{NUM_ACTIONS - 1}, got {_short(action)}")
        if isinstance(version, bool) or not isinstance(version, int) or version < 0:
            raise Refused(f"version (the number of actions played, {len(g.actions)}) must be an "
                          f"int >= 0, got {_short(version)}")
        if g.done:
            raise Refused(f"hand {self.hand_no} is over: no action is legal; start the next hand",
                          409)
        if version != len(g.actions):
            raise Refused(f"this page is out of date: it was made after {_short(version)} actions, the "
                          f"hand is at {len(g.actions)}; the table below is current, choose again",
                          409)
        legal = g.legal_actions()
        if action not in legal:
            what = action_name(action, g.decision)
            raise Refused(
                f"{what} (action {action}) is not legal now: you are answering "
                f"{_ANSWERING[g.decision]}; legal: "
                + ", ".join(f"{action_name(a, g.decision)} ({a})" for a in legal)
            )
        g.step(action)
        self._run_bots()

    def hint(self, analyser: str = ANALYSER) -> dict[str, Any]:
        """The analyser's value of each of your legal actions now, from your information only
        (:func:`paohuzi_env.apps.review.analyse_position`; its worlds are seeded by the table's
        seed, the hand and the number of actions played, so asking again gives the same answer).

        Raises:
            Refused: 409 when the hand is over or it is not your decision.
        """
        g = self.game
        if g.done:
            raise Refused(f"hand {self.hand_no} is over: there is no decision to hint; start the "
                          "next hand (or open its review)", 409)
        if g.current_player != YOU:
            raise Refused(f"it is seat {g.current_player}'s turn, not yours (seat {YOU}): a hint is "
                          "for your own decisions", 409)
        key = (self.hand_no, len(g.actions))
        if self._hint is not None and self._hint[0] == key:
            return self._hint[1]
        res = analyse_position(g, YOU, analyser=analyser,
                               seed=np.random.SeedSequence([self.seed, self.hand_no, len(g.actions)]))
        out = {"hand": self.hand_no, "version": len(g.actions), "decision": g.decision,
               "analyser": analyser, "legal": jsonable(res["legal"]),
               "best": res["best"], "worlds": res["worlds"]}
        self._hint = (key, out)
        return out

    def next_hand(self) -> None:
        """Deal the next hand (after the last one is over).

        Raises:
            Refused: while a hand is still being played.
        """
        if not self.game.done:
            raise Refused(f"hand {self.hand_no} is not over yet; finish it first", 409)
        self._deal()

    def state(self, message: str | None = None) -> dict[str, Any]:
        """What the page shows (your view only: nothing hidden leaves the server)."""
        g = self.game
        yours = not g.done and g.current_player == YOU
        d = g.decision if yours else None
        legal = g.legal_actions() if yours else []
        out: dict[str, Any] = {
            "id": self.id,
            "hand": self.hand_no,
            "version": len(g.actions),
            "svg": table_svg(g, YOU, totals=self.totals, names=["你", *self.opponents]),
            "your_turn": yours,
            "decision": d,
            "prompt": _PROMPT[d] if d else None,
            "legal": [{"action": a, "name": move_name(a, d, legal)} for a in legal],
            "log": [t.strip() for t in map(event_text, g.events) if t is not None],
            "totals": list(self.totals),
            "done": g.done,
            "result": None,
            "replay": None,
            "review": None,
            "message": message,
        }
        if g.done:
            r = g.result
            lines = [result_text(g)]
            if r.win is not None:
                lines += win_breakdown(r.win)
            out["result"] = {"lines": lines, "scores": list(r.scores), "winner": r.winner}
            out["replay"] = f"/replay/{self.id}/{self.hand_no}"
            out["review"] = f"/review/{self.id}/{self.hand_no}"
        return out


def create_app(opponents: tuple[str, str] = ("expert", "expert"), rules: str | Rules = "huaihua",
               backend: str | None = None, max_tables: int = MAX_TABLES,
               idle_timeout: float = IDLE_TIMEOUT, max_body: int = MAX_BODY,
               analyser: str = ANALYSER) -> Starlette:
    """The ASGI app (tables live in memory, one per ``POST /api/new``).

    Args:
        opponents: agent specs of the two bots (next seat, previous seat), as ``make_agent`` takes them.
        rules: a preset name or a :class:`Rules`.
        backend: the tables' engine: ``auto``, ``fast`` or ``python`` (None: ``$PAOHUZI_BACKEND``).
        max_tables: tables held at most; opening one more drops the least recently used.
        idle_timeout: seconds after its last request a table is dropped.
        max_body: bytes a request body may hold (413 past that).
        analyser: the search behind the hints and the reviews
            (:data:`paohuzi_env.apps.review.ANALYSER`; a ``search:OPTIONS`` spec that values
            every legal action).

    Raises:
        ValueError: for a bad opponent spec, rules, limit or analyser.
    """
    rules = as_rules(rules)
    _check_limits(max_tables, idle_timeout, max_body)
    analyser_options(analyser)  # a bad analyser fails at start, not at the first hint
    opponents = (str(opponents[0]), str(opponents[1]))
    for spec in opponents:
        make_agent(spec, seed=0, rules=rules)  # a bad spec fails at start, not at the first deal
    tables: OrderedDict[str, Table] = OrderedDict()
    guard = threading.Lock()

    def evict(now: float) -> None:
        """Drop idle tables and, past ``max_tables``, the least recently used (under ``guard``)."""
        while tables:
            oldest = next(iter(tables.values()))
            if len(tables) > max_tables or now - oldest.used > idle_timeout:
                tables.popitem(last=False)
            else:
                break

    def table_of(request: Request) -> Table:
        tid = request.path_params["tid"]
        now = time.monotonic()
        with guard:
            evict(now)
            t = tables.get(tid)
            if t is not None:
                tables.move_to_end(tid)
                t.used = now
        if t is None:
            shown = tid if len(tid) <= 40 else tid[:40] + "..."
            raise Refused(f"no table {shown!r} (the server restarted, or the table was dropped after "
                          f"{idle_timeout:g} s idle or as the least recently used of "
                          f"{max_tables}): reload the page for a new table", 404)
        return t

    def refused(e: Refused, table: Table | None) -> JSONResponse:
        body: dict[str, Any] = {"error": str(e)}
        if table is not None:
            with table.lock:
                body["state"] = table.state(str(e))
        return JSONResponse(body, status_code=e.status)

    async def page(request: Request) -> Response:
        return HTMLResponse(_PAGE.replace("__RULES__", rules.name)
                            .replace("__OPP__", escape(" / ".join(map(display_name, opponents)))))

    async def new(request: Request) -> Response:
        try:
            body = await _json(request, max_body, "new")
            seed = body.get("seed")
            if seed is None:
                seed = secrets.randbits(63)
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_SEED:
                raise Refused(f"seed must be an int 0 <= seed < 2**64, got {_short(seed)}")
        except Refused as e:
            return refused(e, None)
        tid = secrets.token_urlsafe(9)
        t = Table(tid, rules, opponents, seed, backend)
        with guard:
            tables[tid] = t
            evict(time.monotonic())
        with t.lock:
            return JSONResponse(t.state())

    async def show(request: Request) -> Response:
        try:
            t = table_of(request)
        except Refused as e:
            return refused(e, None)
        with t.lock:
            return JSONResponse(t.state())

    async def act(request: Request) -> Response:
        try:
            t = table_of(request)
            body = await _json(request, max_body, "act")
        except Refused as e:
            return refused(e, None)
        try:
            with t.lock:
                t.act(body.get("action"), body.get("version"))
                return JSONResponse(t.state())
        except Refused as e:
            return refused(e, t)

    async def next_hand(request: Request) -> Response:
        try:
            t = table_of(request)
            await _json(request, max_body, "next")
        except Refused as e:
            return refused(e, None)
        try:
            with t.lock:
                t.next_hand()
                return JSONResponse(t.state())
        except Refused as e:
            return refused(e, t)

    async def hint(request: Request) -> Response:
        try:
            t = table_of(request)
        except Refused as e:
            return refused(e, None)

        def work() -> dict[str, Any]:
            with t.lock:
                return t.hint(analyser)

        try:
            return JSONResponse(await run_in_threadpool(work))
        except Refused as e:
            return refused(e, t)
        except RuntimeError as e:  # the compiled core (the analyser's search) is not available
            return JSONResponse({"error": f"no hint here: {e}"}, status_code=503)

    def record_of(request: Request) -> tuple[Table, int, dict[str, Any]] | HTMLResponse:
        """The table, hand number and record a replay or review URL names, or the 404 page."""
        try:
            t = table_of(request)
        except Refused as e:
            return HTMLResponse(f"<p>{escape(str(e))}</p>", status_code=404)
        n = request.path_params["n"]
        with t.lock:
            rec = t.records.get(n)
            if rec is None:
                kept = f"{min(t.records)}..{max(t.records)}" if t.records else "none yet"
                return HTMLResponse(f"<p>no finished hand {n} kept at this table (kept: {kept}; "
                                    f"the last {MAX_RECORDS} finished hands)</p>", status_code=404)
        return t, n, rec

    async def replay(request: Request) -> Response:
        found = record_of(request)
        if isinstance(found, HTMLResponse):
            return found
        return HTMLResponse(replay_html(found[2], start_view="full"))

    async def review_page(request: Request) -> Response:
        found = record_of(request)
        if isinstance(found, HTMLResponse):
            return found
        t, n, rec = found

        def work() -> str:
            rev = t.reviews.get(n)
            if rev is None:
                rev = review(rec, YOU, analyser=analyser, seed=t.seed)
                with t.lock:
                    if n in t.records:  # not dropped meanwhile
                        t.reviews[n] = rev
            return replay_html(rec, start_view=str(YOU), review=rev,
                               title=f"{rec.get('title') or f'第 {n} 局'} — 复盘 (review)")

        try:
            return HTMLResponse(await run_in_threadpool(work))
        except ValueError as e:  # e.g. you had no choice in this hand: nothing to review
            return HTMLResponse(f"<p>{escape(str(e))}</p><p><a href=\"/replay/{escape(t.id)}/{n}\">"
                                "the replay of this hand</a></p>", status_code=404)
        except RuntimeError as e:  # the compiled core (the analyser's search) is not available
            return HTMLResponse(f"<p>no review here: {escape(str(e))}</p>", status_code=503)

    app = Starlette(routes=[
        Route("/", page),
        Route("/api/new", new, methods=["POST"]),
        Route("/api/table/{tid}", show),
        Route("/api/table/{tid}/act", act, methods=["POST"]),
        Route("/api/table/{tid}/next", next_hand, methods=["POST"]),
        Route("/api/table/{tid}/hint", hint),
        Route("/replay/{tid}/{n:int}", replay),
        Route("/review/{tid}/{n:int}", review_page),
    ])
    app.state.tables = tables  # for tests and the load test: the tables held now
    return app


def _check_limits(max_tables: Any, idle_timeout: Any, max_body: Any) -> None:
    if isinstance(max_tables, bool) or not isinstance(max_tables, int) or max_tables < 1:
        raise ValueError(f"max_tables must be an int >= 1, got {max_tables!r}")
    if (isinstance(idle_timeout, bool) or not isinstance(idle_timeout, (int, float))
            or not idle_timeout > 0):
        raise ValueError(f"idle_timeout must be a number of seconds > 0, got {idle_timeout!r}")
    if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body < 64:
        raise ValueError(f"max_body must be an int >= 64 (bytes), got {max_body!r}")


async def _json(request: Request, max_body: int, endpoint: str) -> dict[str, Any]:
    """The request's JSON object (an empty body counts as ``{}``).

    Raises:
        Refused: 413 for a body over ``max_body`` bytes; 400 for a body that is not a JSON
            object or has a field ``endpoint`` does not take.
    """
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > max_body):
        raise Refused(f"request body too large or its length unreadable ({declared[:20]!r} bytes); "
                      f"at most {max_body} bytes", 413)
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > max_body:
            raise Refused(f"request body too large: more than {max_body} bytes", 413)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError and JSONDecodeError included
        raise Refused(f"the request body is not valid JSON ({str(e)[:80]}); send a JSON object "
                      f"such as {_EXAMPLE[endpoint]}") from None
    if not isinstance(body, dict):
        raise Refused(f"the request body must be a JSON object such as {_EXAMPLE[endpoint]}, got "
                      f"a {type(body).__name__}")
    unknown = sorted(set(body) - set(_FIELDS[endpoint]))
    if unknown:
        allowed = ", ".join(_FIELDS[endpoint]) or "none"
        raise Refused(f"unknown field(s) {', '.join(map(repr, unknown))[:120]}; allowed: {allowed}")
    return body


_EXAMPLE = {"new": '{"seed": 5} or {}', "act": '{"action": 3, "version": 0}', "next": "{}"}


def _short(value: Any) -> str:
    """``repr(value)``, cut to 40 characters (a 400-digit number is not echoed whole)."""
    r = repr(value)
    return r if len(r) <= 40 else r[:40] + f"... ({len(r)} characters)"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def run(host: str = "127.0.0.1", port: int = 8000, opponents: tuple[str, str] = ("expert", "expert"),
        rules: str | Rules = "huaihua", max_tables: int = MAX_TABLES,
        idle_timeout: float = IDLE_TIMEOUT, max_body: int = MAX_BODY) -> None:
    """Serve :func:`create_app` with uvicorn until interrupted."""
    import uvicorn

    app = create_app(opponents, rules, max_tables=max_tables, idle_timeout=idle_timeout,
                     max_body=max_body)
    print(f"paohuzi: the table is at http://{host}:{port}/  (Ctrl-C stops the server)")
    uvicorn.run(app, host=host, port=port, log_level="warning")


_PAGE = """<!DOCTYPE html>
<html lang="zh"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>跑胡子 — 你 vs __OPP__</title>
<style>
body { background:#0f2219; color:#eee; font-family:'Noto Sans CJK SC','Noto Serif CJK SC',sans-serif;
  margin:12px; }
h1 { font-size:18px; margin:0 0 8px; }
#main { display:flex; gap:12px; align-items:flex-start; }
#board { flex: 0 1 auto; min-width: 0; }
#board svg { display:block; height: min(700px, calc(100vh - 80px)); width: auto; max-width: 100%; }
#board.discard use[data-seat-hand] { cursor:pointer; }
#side { width:340px; font-size:14px; overflow-wrap:anywhere; }
#prompt { color:#f4c542; font-weight:bold; margin:6px 0; min-height:20px; }
#actions { display:flex; flex-wrap:wrap; gap:5px; margin-bottom:8px; }
button { background:#2e6b4f; color:#fff; border:1px solid #9cc9b0; border-radius:5px;
  padding:5px 10px; font-size:15px; cursor:pointer; }
button:hover { background:#3d8a66; }
#message { color:#ff9a8a; min-height:18px; margin:4px 0; white-space:pre-wrap; }
#result { white-space:pre-wrap; color:#f4c542; font-family:monospace,'Noto Sans CJK SC'; }
#log { padding-left:34px; margin:0; max-height:280px; overflow:auto; color:#cfe0d5; }
#totals { margin:6px 0; }
a { color:#9cd3ff; }
#hintbar { display:flex; gap:8px; align-items:center; margin:4px 0; }
#hint-toggle { font-size:13px; padding:2px 8px; white-space:nowrap; flex:none; }
#hint-toggle.on { background:#f4c542; color:#222; }
#hint { color:#cfe0d5; font-size:12px; }
button.act .hint { font-size:12px; color:#cfe0d5; margin-left:6px; font-variant-numeric:tabular-nums; }
button.act.best { border-color:#8fe3ae; box-shadow:0 0 0 2px #8fe3ae; }
button.act.best .hint { color:#8fe3ae; font-weight:bold; }
</style></head>
<body>
<h1>跑胡子 (__RULES__) — 你 (座0) vs __OPP__ <span id="handno"></span></h1>
<div id="main">
  <div id="board"></div>
  <div id="side">
    <div id="prompt"></div>
    <div id="actions"></div>
    <div id="hintbar"><button id="hint-toggle"
      title="the analyser's value of each legal action, from your information only">提示 (hint): 关</button>
      <span id="hint"></span></div>
    <div id="message"></div>
    <div id="result"></div>
    <div id="after"></div>
    <div id="totals"></div>
    <h3>经过</h3>
    <ol id="log"></ol>
  </div>
</div>
<script>
(function () {
  "use strict";
  var S = null;
  function el(tag, text, attrs) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    for (var k in (attrs || {})) e.setAttribute(k, attrs[k]);
    return e;
  }
  function post(url, body) {
    return fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                       body: JSON.stringify(body || {})})
      .then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); });
  }
  function answer(res) {
    var status = res[0], j = res[1];
    if (j.state) S = j.state; else if (!j.error) S = j;
    render(j.error || null);
  }
  var busy = false;  // one move at a time: a double click does not send a stale second one
  function act(a) {
    if (busy) return;
    busy = true;
    post("/api/table/" + S.id + "/act", {action: a, version: S.version}).then(answer)
      .finally(function () { busy = false; });
  }
  function render(error) {
    var board = document.getElementById("board");
    board.innerHTML = S.svg;
    board.className = S.decision === "discard" ? "discard" : "";
    document.getElementById("handno").textContent = "· 第 " + S.hand + " 局";
    document.getElementById("prompt").textContent =
      S.done ? "本局结束" : (S.your_turn ? S.prompt : "等待对手…");
    var acts = document.getElementById("actions");
    acts.innerHTML = "";
    S.legal.forEach(function (x) {
      var b = el("button", x.name, {"class": "act", "data-action": x.action});
      b.onclick = function () { act(x.action); };
      acts.appendChild(b);
    });
    if (S.decision === "discard") {
      var legal = {};
      S.legal.forEach(function (x) { legal[x.action] = true; });
      var cards = board.querySelectorAll('g.hand[data-seat="0"] use[data-kind]');
      for (var i = 0; i < cards.length; i++) {
        var k = Number(cards[i].getAttribute("data-kind"));
        if (!legal[k]) continue;
        cards[i].setAttribute("data-seat-hand", "1");
        cards[i].addEventListener("click", (function (kk) { return function () { act(kk); }; })(k));
      }
    }
    showHint();
    document.getElementById("message").textContent = error || S.message || "";
    var res = document.getElementById("result");
    res.textContent = S.result ? S.result.lines.join("\\n") : "";
    var after = document.getElementById("after");
    after.innerHTML = "";
    if (S.done) {
      var nb = el("button", "下一局 ▶", {id: "next-hand"});
      nb.onclick = function () { post("/api/table/" + S.id + "/next").then(answer); };
      after.appendChild(nb);
      after.appendChild(document.createTextNode("  "));
      after.appendChild(el("a", "本局回放 (replay)", {href: S.replay, target: "_blank", id: "replay-link"}));
      after.appendChild(document.createTextNode("  "));
      after.appendChild(el("a", "本局复盘 (review)", {
        href: S.review, target: "_blank", id: "review-link",
        title: "the replay with the analysis of your decisions"}));
    }
    document.getElementById("totals").textContent = "累计: 你 " + S.totals[0] + " · 座1 " +
      S.totals[1] + " · 座2 " + S.totals[2];
    var log = document.getElementById("log");
    log.innerHTML = "";
    S.log.forEach(function (t) { log.appendChild(el("li", t)); });
    log.scrollTop = log.scrollHeight;
  }
  // the hint: the analyser's value of each legal action at your decision (GET .../hint)
  var hintOn = false, hints = {}, hintError = null;
  function hintKey() { return S.id + ":" + S.hand + ":" + S.version; }
  function fmt(x) { return x === null ? "—" : (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(2); }
  function showHint() {
    var tb = document.getElementById("hint-toggle"), box = document.getElementById("hint");
    tb.className = hintOn ? "on" : "";
    tb.textContent = "提示 (hint): " + (hintOn ? "开" : "关");
    box.textContent = "";
    var buttons = document.querySelectorAll("#actions button.act");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].classList.remove("best");
      var old = buttons[i].querySelector(".hint");
      if (old) buttons[i].removeChild(old);
    }
    if (!hintOn || !S || !S.your_turn) return;
    var key = hintKey(), h = hints[key];
    if (!h) {
      box.textContent = hintError || "分析中… (analysing)";
      if (h === undefined && !hintError) {
        hints[key] = null;
        fetch("/api/table/" + S.id + "/hint")
          .then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
          .then(function (res) {
            if (res[0] === 200) hints[key] = res[1];
            else { delete hints[key]; hintError = res[1].error || ("hint: HTTP " + res[0]); }
            if (S && hintKey() === key) showHint();
            hintError = null;
          });
      }
      return;
    }
    var rows = {};
    h.legal.forEach(function (r) { rows[r.action] = r; });
    for (var j = 0; j < buttons.length; j++) {
      var r = rows[Number(buttons[j].getAttribute("data-action"))];
      if (!r) continue;
      var best = r.action === h.best;
      if (best) buttons[j].classList.add("best");
      buttons[j].appendChild(el("span", (best ? "★ " : "") + fmt(r.mean), {"class": "hint",
        title: "mean " + fmt(r.mean) + " ± " + (r.se === null ? "—" : r.se.toFixed(2)) +
               " points over " + r.worlds + " worlds"}));
    }
    box.textContent = "★ best: " + rows[h.best].name + " (" + fmt(rows[h.best].mean) + " ± " +
      (rows[h.best].se === null ? "—" : rows[h.best].se.toFixed(2)) + " points, " + h.worlds +
      " worlds; from your information only)";
  }
  document.getElementById("hint-toggle").onclick = function () {
    hintOn = !hintOn;
    if (Object.keys(hints).length > 50) hints = {};
    if (S) showHint();
  };
  var seed = new URLSearchParams(location.search).get("seed");
  post("/api/new", seed === null ? {} : {seed: Number(seed)}).then(answer);
  window.paohuzi = {state: function () { return S; }, act: act,
                    hint: function () { return S ? hints[hintKey()] || null : null; }};
})();
</script>
</body></html>
"""
