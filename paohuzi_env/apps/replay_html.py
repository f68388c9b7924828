"""A self-contained HTML replay viewer of one recorded hand (``paohuzi replay REC.json --html``).

The page holds everything it needs — the pictures as inline SVG (:mod:`paohuzi_env.display.svg`), the
CSS and a little JavaScript — and loads nothing from anywhere: open it from disk. It steps
through the hand one decision at a time, forwards and backwards (buttons, or the keys ← → Home
End), shows the table from any seat's view or with full information (buttons, or the keys 0 1 2
and F), and for each decision names the seat, the decision and its legal actions, marks the one
taken and, where the record carries them, shows the acting agent's action probabilities. (The
view switch changes the picture only: the decision panel always names the acting seat's legal
actions, as a review of the hand would.)

A record is :meth:`Game.record`'s dict (``rules``, ``deck``, ``dealer``, ``actions``) with these
optional keys:

- ``seats``: a name per seat (e.g. the agent specs);
- ``probs``: one entry per action, None or ``{action id: probability}`` over that decision's
  legal actions (what the acting agent's policy gave; ``paohuzi-eval --save-records`` writes
  them for checkpoint agents);
- ``title``: a line for the page's heading.

With a review (``replay_html(record, review=...)``, :func:`paohuzi_env.apps.review.review`'s dict;
``paohuzi review REC --seat K --html OUT``) the page also shows the review's summary and, at each
reviewed decision, the analysis panel: every legal action's mean ± se as a bar, the action taken
and the best marked, the loss (docs/review.md). ``page.html#step=N`` then opens at step ``N``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from ..backends.select import game_class
from ..display.render import event_text, move_name, result_text, win_breakdown
from ..display.svg import card_defs, display_name, table_svg
from ..game.actions import NUM_ACTIONS
from ..game.engine import IllegalActionError
from ..game.rules import rules_from_record

VIEWS = ("0", "1", "2", "full")
_REVIEW_KEYS = ("REVIEW_CSS", "REVIEW_TOP", "REVIEW_HTML", "REVIEW_DATA", "REVIEW_JS", "REVIEW_HOOK")
_PLACEHOLDER = re.compile("__(" + "|".join(("TITLE", "DEFS", "DATA", *_REVIEW_KEYS)) + ")__")


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file and check its shape.

    Raises:
        ValueError: naming the file and what is wrong with it.
    """
    p = Path(path)
    try:
        record = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"no record file {str(p)!r}") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{str(p)!r} is not JSON: {e}") from None
    check_record(record, str(p))
    return record


def check_record(record: Any, where: str = "the record") -> None:
    """Raise ValueError unless ``record`` has the keys :meth:`Game.record` writes, and valid
    optional ``seats`` and ``probs``."""
    if not isinstance(record, Mapping):
        raise ValueError(f"{where} must be a JSON object (Game.record()), got {type(record).__name__}")
    missing = [k for k in ("rules", "deck", "dealer", "actions") if k not in record]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}: a record is Game.record()'s "
                         "dict with rules, deck, dealer and actions")
    actions = record["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, int) and 0 <= a < NUM_ACTIONS
                                                for a in actions):
        raise ValueError(f"{where}: actions must be a list of action ids 0..{NUM_ACTIONS - 1}")
    probs = record.get("probs")
    if probs is not None and (not isinstance(probs, list) or len(probs) != len(actions)):
        raise ValueError(f"{where}: probs must be a list with one entry (null or "
                         f"{{action: probability}}) per action ({len(actions)})")
    seats = record.get("seats")
    if seats is not None and (not isinstance(seats, list) or len(seats) != 3):
        raise ValueError(f"{where}: seats must be a list of three names")


def frames_of(record: dict[str, Any], backend: str | None = None) -> list[dict[str, Any]]:
    """One frame per decision of the hand and one for its end: the four pictures (seats 0, 1,
    2 and full information), who acts and on what, the legal actions, the action taken, its
    probabilities when recorded, and the public events since the previous frame.

    Raises:
        ValueError: for a record whose actions do not replay (naming the step).
    """
    rules = rules_from_record(record["rules"])
    game = game_class(backend)(rules, deck=record["deck"], dealer=record["dealer"])
    names = record.get("seats")
    probs = record.get("probs") or [None] * len(record["actions"])
    frames: list[dict[str, Any]] = []
    seen = 0
    actions = list(record["actions"])
    for i in range(len(actions) + 1):
        log = [t for t in map(event_text, game.events[seen:]) if t is not None]
        seen = len(game.events)
        frame: dict[str, Any] = {
            "svg": [table_svg(game, s, names=names, defs=False) for s in (0, 1, 2, None)],
            "log": log,
            "actor": game.current_player,
            "decision": game.decision,
        }
        if i == len(actions):
            if not game.done:
                raise ValueError(f"the record ends after {len(actions)} actions, before the hand "
                                 f"is over (seat {game.current_player} to act)")
            frame["result"] = [result_text(game)]
            if game.result.win is not None:
                frame["result"] += win_breakdown(game.result.win)
            frames.append(frame)
            break
        d = game.decision
        legal = game.legal_actions()
        frame["legal"] = [[a, move_name(a, d, legal)] for a in legal]
        frame["chosen"] = actions[i]
        p = probs[i]
        frame["probs"] = None if p is None else {str(int(k)): float(v) for k, v in p.items()}
        frames.append(frame)
        try:
            game.step(actions[i])
        except IllegalActionError as e:
            raise ValueError(f"action {i} of the record ({actions[i]}) does not replay: {e}") from None
    return frames


def replay_html(record: dict[str, Any], *, title: str | None = None, start_view: str = "full",
                backend: str | None = None, review: Mapping[str, Any] | None = None) -> str:
    """The replay page of one record (see the module docstring).

    Args:
        record: a record (``Game.record()`` with the optional keys above).
        title: the page heading; default: the record's ``title``, or the rules and dealer.
        start_view: ``"0"``, ``"1"``, ``"2"`` or ``"full"``: the view shown first.
        backend: the engine that replays it (:mod:`paohuzi_env.backends.select`).
        review: a review of this record (:func:`paohuzi_env.apps.review.review`'s dict): the
            page then shows, at each reviewed decision, the analysis panel (each legal action's
            mean ± se as a bar, the action taken and the best marked, the loss, the network's
            probabilities when the review has them), at each win offer its points and whether
            it was taken, and the review's summary with buttons to its costliest steps. None:
            the plain replay page.

    Raises:
        ValueError: for a bad record or ``start_view``, or a review that is not one of this
            record (a step past its end, another seat or other legal actions at a step).
    """
    check_record(record)
    if start_view not in VIEWS:
        raise ValueError(f"start_view must be one of {VIEWS}, got {start_view!r}")
    frames = frames_of(record, backend)
    heading = title or record.get("title") or (
        f"跑胡子 replay — {record['rules']['name']}, 庄家 座{record['dealer']}")
    seats = record.get("seats")
    data = json.dumps({"frames": frames, "view": start_view,
                       "seats": None if seats is None else [display_name(x) for x in seats]},
                      ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    parts = dict.fromkeys(_REVIEW_KEYS, "")
    if review is not None:
        parts = {"REVIEW_CSS": _REVIEW_CSS, "REVIEW_TOP": _REVIEW_TOP, "REVIEW_HTML": _REVIEW_HTML,
                 "REVIEW_DATA": _REVIEW_DATA.replace(
                     "__REVIEW__", review_json(review_data(review, frames))),
                 "REVIEW_JS": _REVIEW_JS, "REVIEW_HOOK": "reviewShow(f);"}
    parts.update(TITLE=escape(heading), DATA=data,
                 DEFS=f'<svg width="0" height="0" style="position:absolute">{card_defs()}</svg>')
    # one pass: nothing substituted (a title, a name) is read again for a placeholder
    return _PLACEHOLDER.sub(lambda m: parts[m.group(1)], _PAGE)


def write_replay(record: dict[str, Any], out: str | Path, review: Mapping[str, Any] | None = None,
                 **kwargs: Any) -> Path:
    """Write :func:`replay_html` to ``out`` (with the analysis panel of ``review`` when given);
    returns the path."""
    path = Path(out)
    path.write_text(replay_html(record, review=review, **kwargs), encoding="utf-8")
    return path


def _finite(x: Any) -> float | None:
    """``x`` as a float, or None when it is missing, not a number, NaN or infinite (JSON has no
    NaN)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return float(x) if math.isfinite(x) else None


def review_data(review: Mapping[str, Any], frames: list[dict[str, Any]]) -> dict[str, Any]:
    """The part of a review the page's panel shows, checked against the record's ``frames``
    (:func:`frames_of`) and made JSON-safe (NaN becomes null).

    Raises:
        ValueError: for a review that is not a review's dict or not one of this record.
    """
    if not isinstance(review, Mapping) or not isinstance(review.get("decisions"), list):
        raise ValueError("review must be paohuzi_env.apps.review.review()'s dict (with decisions)")
    seat = review.get("seat")
    last = len(frames) - 1  # the end frame has no decision

    def frame_at(step: Any, what: str) -> dict[str, Any]:
        if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step < last:
            raise ValueError(f"the review's {what} step {step!r} is not a decision of this record "
                             f"(0..{last - 1}): a review of another hand?")
        f = frames[step]
        if seat is not None and f["actor"] != seat:
            raise ValueError(f"the review is of seat {seat!r}, but seat {f['actor']} acts at "
                             f"step {step}: a review of another hand?")
        return f

    decisions = []
    for d in review["decisions"]:
        f = frame_at(d.get("step") if isinstance(d, Mapping) else None, "decision")
        legal = d.get("legal")
        if not isinstance(legal, list) or sorted(r.get("action") for r in legal) != sorted(
                a for a, _ in f["legal"]):
            raise ValueError(f"the review's legal actions at step {d['step']} are not the "
                             "record's: a review of another hand?")
        rows = [{"action": int(r["action"]), "name": str(r.get("name", r["action"])),
                 "mean": _finite(r.get("mean")), "se": _finite(r.get("se")),
                 "worlds": r.get("worlds") if isinstance(r.get("worlds"), int) else None,
                 "prob": _finite(r.get("prob"))} for r in legal]
        decisions.append({"step": d["step"], "decision": str(d.get("decision", f["decision"])),
                          "legal": rows, "worlds": d.get("worlds"),
                          "chosen": d.get("chosen"), "best": d.get("best"),
                          "loss": _finite(d.get("loss"))})
    wins = []
    for w in review.get("wins") or []:
        frame_at(w.get("step") if isinstance(w, Mapping) else None, "win")
        wins.append({"step": w["step"], "decision": str(w.get("decision", "hu")),
                     "taken": bool(w.get("taken")), "points": _finite(w.get("points"))})
    summary = review.get("summary") or {}
    costliest = [s for s in summary.get("costliest", []) if isinstance(s, int)]
    loss = {d["step"]: d["loss"] for d in decisions}
    return {
        "seat": seat if isinstance(seat, int) else None,
        "analyser": str(review.get("analyser", "")),
        "agent": None if review.get("agent") is None else str(review["agent"]),
        "decisions": decisions,
        "wins": wins,
        "summary": {"decisions": summary.get("decisions", len(decisions)),
                    "total_loss": _finite(summary.get("total_loss")),
                    "agreement": _finite(summary.get("agreement")),
                    "costliest": [[s, loss.get(s)] for s in costliest]},
    }


def review_json(data: Any) -> str:
    """``data`` as JSON that is safe inside an HTML ``<script>`` element: ``<``, ``>`` and ``&``
    are written as JSON's unicode escapes, so no string in it can close the element or open a comment."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_PAGE = """<!DOCTYPE html>
<html lang="zh"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
body { background:#0f2219; color:#eee; font-family: 'Noto Sans CJK SC', 'Noto Serif CJK SC',
  sans-serif; margin: 12px; }
h1 { font-size: 18px; margin: 0 0 8px; }
#bar { display:flex; gap:6px; align-items:center; flex-wrap:wrap; margin-bottom:8px; }
button { background:#2e6b4f; color:#fff; border:1px solid #9cc9b0; border-radius:5px;
  padding:4px 10px; font-size:15px; cursor:pointer; }
button:disabled { opacity:.4; cursor:default; }
button.on { background:#f4c542; color:#222; }
#pos { min-width: 90px; text-align:center; font-variant-numeric: tabular-nums; }
#main { display:flex; gap:12px; align-items:flex-start; }
#board { flex: 0 1 auto; min-width: 0; }
#board svg { display:block; height: min(700px, calc(100vh - 80px)); width: auto; max-width: 100%; }
#side { width: 320px; font-size: 14px; overflow-wrap: anywhere; }
h1 { overflow-wrap: anywhere; }
#side h2 { font-size: 15px; margin: 6px 0; color:#f4c542; }
#legal { list-style:none; padding:0; margin:0; }
#legal li { padding:3px 6px; margin:2px 0; border-radius:4px; background:#1d3b2d;
  display:flex; justify-content:space-between; gap:8px; }
#legal li.chosen { background:#f4c542; color:#222; font-weight:bold; }
.bar { display:inline-block; height:8px; background:#9cc9b0; vertical-align:middle; }
#log { padding-left:34px; margin:0; max-height:260px; overflow:auto; color:#cfe0d5; }
#result { white-space:pre-wrap; color:#f4c542; font-family: monospace, 'Noto Sans CJK SC'; }
.keys { color:#8fb39f; font-size:12px; }
__REVIEW_CSS__</style></head>
<body>
__DEFS__
<h1>__TITLE__</h1>
<div id="bar">
  <button id="first" title="Home">|◀ 开头</button><button id="prev" title="←">◀ 上一步</button>
  <span id="pos"></span>
  <button id="next" title="→">下一步 ▶</button><button id="last" title="End">结尾 ▶|</button>
  <span style="margin-left:16px">视角:</span>
  <button class="view" data-view="0">座0</button><button class="view" data-view="1">座1</button>
  <button class="view" data-view="2">座2</button><button class="view" data-view="full">全部信息</button>
  <span class="keys">keys: ← → Home End · 0 1 2 F</span>
</div>
<div id="main">
  <div id="board"></div>
  <div id="side">__REVIEW_TOP__
    <h2 id="who"></h2>__REVIEW_HTML__
    <ul id="legal"></ul>
    <div id="result"></div>
    <h2>经过 (events)</h2>
    <ol id="log"></ol>
  </div>
</div>
<script type="application/json" id="data">__DATA__</script>__REVIEW_DATA__
<script>
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("data").textContent);
  var F = D.frames, idx = 0, view = D.view;
  var VIEW_INDEX = {"0": 0, "1": 1, "2": 2, "full": 3};
  var WORDS = {tianhu: "天胡?", hu: "胡?", claim: "吃/碰? (过 = 不要; 不碰 = 忍碰)",
               bi: "比 (过 取消这次吃)", discard: "出牌"};
  function seatName(s) { return "座" + s + (D.seats ? " " + D.seats[s] : ""); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function show() {
    var f = F[idx];
    document.getElementById("board").innerHTML = f.svg[VIEW_INDEX[view]];
    document.getElementById("pos").textContent = (idx + 1) + " / " + F.length;
    document.getElementById("first").disabled = document.getElementById("prev").disabled = idx === 0;
    document.getElementById("last").disabled = document.getElementById("next").disabled =
      idx === F.length - 1;
    var buttons = document.querySelectorAll("button.view");
    for (var i = 0; i < buttons.length; i++)
      buttons[i].classList.toggle("on", buttons[i].getAttribute("data-view") === view);
    var legal = document.getElementById("legal");
    legal.innerHTML = "";
    var who = document.getElementById("who");
    var res = document.getElementById("result");
    res.textContent = "";
    if (f.result) {
      who.textContent = "本局结束";
      res.textContent = f.result.join("\\n");
    } else {
      who.textContent = "第 " + (idx + 1) + " 步: " + seatName(f.actor) + " — " +
        (WORDS[f.decision] || f.decision);
      f.legal.forEach(function (pair) {
        var li = el("li", undefined, pair[0] === f.chosen ? "chosen" : "");
        li.setAttribute("data-action", pair[0]);
        li.appendChild(el("span", pair[1] + " (" + pair[0] + ")" + (pair[0] === f.chosen ? "  ✔" : "")));
        if (f.probs) {
          var p = f.probs[String(pair[0])] || 0;
          var s = el("span");
          var b = el("span", undefined, "bar");
          b.style.width = Math.round(p * 80) + "px";
          s.appendChild(b);
          s.appendChild(document.createTextNode(" " + (100 * p).toFixed(1) + "%"));
          li.appendChild(s);
        }
        legal.appendChild(li);
      });
    }
    var log = document.getElementById("log");
    log.innerHTML = "";
    for (var j = 0; j <= idx; j++) F[j].log.forEach(function (t) { log.appendChild(el("li", t)); });
    log.scrollTop = log.scrollHeight;__REVIEW_HOOK__
  }
  function go(i) { idx = Math.max(0, Math.min(F.length - 1, i)); show(); }
  function setView(v) { view = v; show(); }
  document.getElementById("first").onclick = function () { go(0); };
  document.getElementById("prev").onclick = function () { go(idx - 1); };
  document.getElementById("next").onclick = function () { go(idx + 1); };
  document.getElementById("last").onclick = function () { go(F.length - 1); };
  var vb = document.querySelectorAll("button.view");
  for (var i = 0; i < vb.length; i++)
    vb[i].onclick = function () { setView(this.getAttribute("data-view")); };
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") go(idx + 1);
    else if (e.key === "ArrowLeft") go(idx - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(F.length - 1);
    else if (e.key === "0" || e.key === "1" || e.key === "2") setView(e.key);
    else if (e.key === "f" || e.key === "F") setView("full");
    else return;
    e.preventDefault();
  });
  __REVIEW_JS__window.replay = {go: go, setView: setView, frames: F.length,
                   index: function () { return idx; }, view: function () { return view; }};
  show();
})();
</script>
</body></html>
"""


# The analysis panel (only on a page made with a review). Every string of the review reaches the
# page through textContent (never innerHTML), and its JSON through review_json.
_REVIEW_CSS = """#side { width: 420px; }
#review-summary { background:#1d3b2d; border:1px solid #4f8a6c; border-radius:6px; padding:6px 8px;
  margin-bottom:6px; }
#review-summary h2 { margin:0 0 4px; }
#review-summary .line { margin:2px 0; }
#review-summary button { font-size:12px; padding:1px 6px; margin:2px 2px 0 0; }
#review-summary button.loss { border-color:#e39a8c; }
#review-summary button.win { border-color:#f4c542; }
#analysis { margin:4px 0 8px; background:#132d22; border:1px solid #4f8a6c; border-radius:6px;
  padding:6px 8px; }
#analysis h2 { margin:0 0 4px; }
#an-head { margin-bottom:4px; }
.an-row { display:grid; grid-template-columns: 112px 130px 1fr; gap:6px; align-items:center;
  padding:0 4px; border-radius:4px; border:1px solid transparent; font-size:13px; line-height:17px; }
.an-row.chosen { border-color:#f4c542; background:#2c3a1c; }
.an-row.best .an-name { color:#8fe3ae; font-weight:bold; }
.an-name { white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
.an-track { position:relative; height:14px; background:#0c1a13; border-radius:2px; }
.an-zero { position:absolute; top:0; bottom:0; width:1px; background:#8fb39f; }
.an-bar { position:absolute; top:3px; height:8px; background:#6cc48f; }
.an-bar.neg { background:#d9776a; }
.an-whisk { position:absolute; top:6px; height:2px; background:#eee; opacity:.8; }
.an-val { font-variant-numeric: tabular-nums; white-space:nowrap; font-size:12px; }
.an-p { color:#9cd3ff; }
.an-legend { color:#8fb39f; font-size:11px; margin-top:4px; }
#an-win { color:#f4c542; font-weight:bold; }
"""

_REVIEW_TOP = """
    <div id="review-summary"><h2>复盘 (review)</h2><div id="rs-lines"></div><div id="rs-jumps"></div></div>"""

_REVIEW_HTML = """
    <div id="analysis" style="display:none"><h2 id="an-title"></h2><div id="an-head"></div>
      <div id="an-rows"></div><div id="an-win"></div><div class="an-legend" id="an-legend"></div></div>"""

_REVIEW_DATA = """
<script type="application/json" id="review">__REVIEW__</script>"""

_REVIEW_JS = r"""var R = JSON.parse(document.getElementById("review").textContent);
  var RD = {}, RW = {};
  R.decisions.forEach(function (d) { RD[d.step] = d; });
  R.wins.forEach(function (w) { RW[w.step] = w; });
  function num(x, digits) {
    if (x === null || x === undefined) return "—";
    return (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(digits === undefined ? 2 : digits);
  }
  function jump(step, label, cls, title) {
    var b = el("button", label, cls);
    b.setAttribute("data-step", step);
    if (title) b.title = title;
    b.onclick = function () { go(step); };
    return b;
  }
  (function summary() {
    var s = R.summary, lines = document.getElementById("rs-lines");
    lines.appendChild(el("div", "座" + R.seat + " · " + s.decisions + " decisions · total loss " +
      (s.total_loss === null ? "—" : s.total_loss.toFixed(2)) + " points · agreement " +
      (s.agreement === null ? "—" : Math.round(100 * s.agreement) + "%"), "line"));
    lines.appendChild(el("div", "analyser: " + R.analyser + (R.agent ? " · p: " + R.agent : ""),
                         "line keys"));
    var jumps = document.getElementById("rs-jumps");
    jumps.appendChild(el("span", "costliest: ", "line"));
    if (!s.costliest.length) jumps.appendChild(el("span", "none (no loss) "));
    s.costliest.forEach(function (c) {
      jumps.appendChild(jump(c[0], "第 " + (c[0] + 1) + " 步 " + num(c[1] === null ? null : -c[1]),
                             "loss costliest", "jump to the decision at step " + c[0]));
    });
    var all = el("div", undefined, "line");
    all.appendChild(el("span", "reviewed: "));
    var steps = R.decisions.map(function (d) { return d.step; })
      .concat(R.wins.map(function (w) { return w.step; })).sort(function (a, b) { return a - b; });
    steps.forEach(function (st) {
      var d = RD[st];
      all.appendChild(d ? jump(st, String(st + 1), d.loss ? "loss" : "", "step " + st + ", loss " +
                               (d.loss === null ? "—" : d.loss.toFixed(2)))
                        : jump(st, (st + 1) + " 胡", "win", "a win offer at step " + st));
    });
    jumps.appendChild(all);
  })();
  function reviewShow(f) {
    var box = document.getElementById("analysis"), rows = document.getElementById("an-rows");
    var d = RD[idx], w = RW[idx];
    rows.innerHTML = "";
    document.getElementById("an-win").textContent = "";
    document.getElementById("an-head").textContent = "";
    document.getElementById("an-legend").textContent = "";
    if (!d && !w) { box.style.display = "none"; return; }
    box.style.display = "";
    document.getElementById("an-title").textContent =
      "分析 (analysis) — 第 " + (idx + 1) + " 步, 座" + R.seat;
    if (w) {
      document.getElementById("an-win").textContent = (w.decision === "tianhu" ? "天胡" : "胡") +
        " offer: a win worth " + num(w.points, 0) + " points — " +
        (w.taken ? "taken (胡了)" : "DECLINED (the analyser always takes a win)");
      return;
    }
    var name = {};
    d.legal.forEach(function (r) { name[r.action] = r.name; });
    document.getElementById("an-head").textContent = "loss " + (d.loss === null ? "—" : d.loss.toFixed(2)) +
      " · taken " + name[d.chosen] + " · best " + name[d.best] + (d.chosen === d.best ? " (agrees)" : "") +
      " · " + d.worlds + " worlds";
    var lo = 0, hi = 0;
    d.legal.forEach(function (r) {
      if (r.mean === null) return;
      var se = r.se || 0;
      lo = Math.min(lo, r.mean - se); hi = Math.max(hi, r.mean + se);
    });
    if (hi - lo < 1e-9) hi = lo + 1;
    var W = 130;
    function x(v) { return (v - lo) / (hi - lo) * W; }
    var sorted = d.legal.slice().sort(function (a, b) {
      return (b.mean === null ? -Infinity : b.mean) - (a.mean === null ? -Infinity : a.mean);
    });
    sorted.forEach(function (r) {
      var cls = "an-row" + (r.action === d.chosen ? " chosen" : "") + (r.action === d.best ? " best" : "");
      var row = el("div", undefined, cls);
      row.setAttribute("data-action", r.action);
      row.appendChild(el("span", (r.action === d.best ? "★ " : "") + r.name +
                                 (r.action === d.chosen ? " ✔" : ""), "an-name"));
      var track = el("div", undefined, "an-track");
      var zero = el("div", undefined, "an-zero");
      zero.style.left = x(0) + "px";
      track.appendChild(zero);
      if (r.mean !== null) {
        var bar = el("div", undefined, "an-bar" + (r.mean < 0 ? " neg" : ""));
        bar.style.left = Math.min(x(0), x(r.mean)) + "px";
        bar.style.width = Math.max(1, Math.abs(x(r.mean) - x(0))) + "px";
        track.appendChild(bar);
        if (r.se !== null) {
          var wh = el("div", undefined, "an-whisk");
          wh.style.left = x(r.mean - r.se) + "px";
          wh.style.width = Math.max(1, x(r.mean + r.se) - x(r.mean - r.se)) + "px";
          track.appendChild(wh);
        }
      }
      row.appendChild(track);
      var val = el("span", num(r.mean) + " ±" + (r.se === null ? "—" : r.se.toFixed(2)), "an-val");
      if (r.prob !== null) val.appendChild(el("span", "  p " + (100 * r.prob).toFixed(0) + "%", "an-p"));
      row.appendChild(val);
      rows.appendChild(row);
    });
    document.getElementById("an-legend").textContent = "✔ taken · ★ best (highest mean) · " +
      "bar: mean points for 座" + R.seat + ", whisker ±1 standard error" +
      (R.agent ? " · p: the network's probability" : "");
  }
  var start = /^#step=(\d+)$/.exec(location.hash);  // page.html#step=N opens at step N
  if (start) idx = Math.min(F.length - 1, Number(start[1]));
  window.replayReview = {decisions: R.decisions.length, steps: Object.keys(RD).map(Number)};
  """
