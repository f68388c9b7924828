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
"""

from __future__ import annotations

import json
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
                backend: str | None = None) -> str:
    """The replay page of one record (see the module docstring).

    Args:
        record: a record (``Game.record()`` with the optional keys above).
        title: the page heading; default: the record's ``title``, or the rules and dealer.
        start_view: ``"0"``, ``"1"``, ``"2"`` or ``"full"``: the view shown first.
        backend: the engine that replays it (:mod:`paohuzi_env.backends.select`).
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
    return (_PAGE.replace("__TITLE__", escape(heading))
            .replace("__DEFS__", f'<svg width="0" height="0" style="position:absolute">{card_defs()}</svg>')
            .replace("__DATA__", data))


def write_replay(record: dict[str, Any], out: str | Path, **kwargs: Any) -> Path:
    """Write :func:`replay_html` to ``out``; returns the path."""
    path = Path(out)
    path.write_text(replay_html(record, **kwargs), encoding="utf-8")
    return path


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
</style></head>
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
  <div id="side">
    <h2 id="who"></h2>
    <ul id="legal"></ul>
    <div id="result"></div>
    <h2>经过 (events)</h2>
    <ol id="log"></ol>
  </div>
</div>
<script type="application/json" id="data">__DATA__</script>
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
    log.scrollTop = log.scrollHeight;
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
  window.replay = {go: go, setView: setView, frames: F.length,
                   index: function () { return idx; }, view: function () { return view; }};
  show();
})();
</script>
</body></html>
"""
