"""The browser table's server (paohuzi_env.apps.serve), through its HTTP API."""

from __future__ import annotations

import json
import math
import re
import warnings

import pytest

pytest.importorskip("starlette", reason="the serve extra (starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (test extra) is needed by starlette's TestClient")

with warnings.catch_warnings():  # starlette's note on httpx versus httpx2 is not ours to fix
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from paohuzi_env import fast  # noqa: E402
from paohuzi_env.apps.cli import main  # noqa: E402
from paohuzi_env.apps.serve import create_app  # noqa: E402
from paohuzi_env.game.actions import HU, NUM_ACTIONS, PASS  # noqa: E402


@pytest.fixture()
def client():
    with TestClient(create_app(("expert", "greedy"))) as c:
        yield c


def _act(client, state, action, version=None):
    return client.post(f"/api/table/{state['id']}/act",
                       json={"action": action, "version": state["version"] if version is None else version})


def _play_out(client, s):
    while not s["done"]:
        assert s["your_turn"] and s["legal"]
        r = _act(client, s, s["legal"][0]["action"])
        assert r.status_code == 200, r.text
        s = r.json()
    return s


def test_a_hand_is_played_to_its_scoring_and_replay(client):
    s = client.post("/api/new", json={"seed": 5}).json()
    assert s["hand"] == 1 and s["your_turn"] and s["svg"].startswith("<svg")
    assert s["prompt"] and all(set(x) == {"action", "name"} for x in s["legal"])
    s = _play_out(client, s)
    assert s["legal"] == [] and s["result"]["lines"] and sum(s["result"]["scores"]) == 0
    assert s["totals"] == s["result"]["scores"]
    if s["result"]["winner"] is not None:  # the 名堂 breakdown: groups, huxi, 名堂, score
        assert any("名堂" in line for line in s["result"]["lines"])
        assert any("囤" in line and "番" in line for line in s["result"]["lines"])
    # the record replays to the same hand, and the replay page is served
    page = client.get(s["replay"])
    assert page.status_code == 200 and "window.replay" in page.text
    assert client.get(f"/replay/{s['id']}/9").status_code == 404
    nxt = client.post(f"/api/table/{s['id']}/next").json()
    assert nxt["hand"] == 2 and not nxt["done"] and nxt["totals"] == s["totals"]


def test_illegal_stale_and_malformed_actions_change_nothing(client):
    s = client.post("/api/new", json={"seed": 5}).json()
    legal = {x["action"] for x in s["legal"]}
    illegal = next(a for a in (HU, PASS, 0, 1, 2, 3) if a not in legal)
    r = _act(client, s, illegal)
    assert r.status_code == 400
    body = r.json()
    assert "is not legal now" in body["error"] and "legal:" in body["error"]
    assert body["state"]["version"] == s["version"] and body["state"]["legal"] == s["legal"]
    r = _act(client, s, s["legal"][0]["action"], version=s["version"] + 3)
    assert r.status_code == 409 and "out of date" in r.json()["error"]
    for bad in ("7", 3.5, True, None, NUM_ACTIONS + 4):
        r = _act(client, s, bad)
        assert r.status_code == 400, bad
    again = client.get(f"/api/table/{s['id']}").json()
    assert again["version"] == s["version"] and again["svg"] == s["svg"]
    assert client.post(f"/api/table/{s['id']}/next").status_code == 409  # the hand is not over
    r = client.post("/api/table/nope/act", json={"action": 0, "version": 0})
    assert r.status_code == 404 and "no table" in r.json()["error"]
    assert client.post("/api/new", json={"seed": -1}).status_code == 400


def test_tables_are_independent_and_the_page_hides_the_bots_hands(client):
    a = client.post("/api/new", json={"seed": 9}).json()
    b = client.post("/api/new", json={"seed": 9}).json()
    assert a["id"] != b["id"] and a["svg"] == b["svg"]
    b2 = _act(client, b, b["legal"][-1]["action"]).json()
    assert b2["version"] > b["version"]
    assert client.get(f"/api/table/{a['id']}").json()["version"] == a["version"]
    # seat 0's view only: the bots' hands are backs while the hand is on
    assert 'data-view="0"' in a["svg"]
    assert 'class="hand" data-seat="1"><use xlink:href="#pk-back"' in a["svg"]


def test_the_same_seed_deals_the_same_hand():
    with TestClient(create_app(("expert", "expert"))) as c:
        s = c.post("/api/new", json={"seed": 4}).json()
    with TestClient(create_app(("expert", "expert"))) as c:
        assert c.post("/api/new", json={"seed": 4}).json()["svg"] == s["svg"]


def test_bad_opponents_and_missing_extra_are_clear_errors(capsys, monkeypatch):
    with pytest.raises(ValueError, match="agent spec|unknown"):
        create_app(("expert", "grandmaster"))
    assert main(["serve", "--port", "0"]) == 2
    assert "--port" in capsys.readouterr().err
    import sys

    monkeypatch.setitem(sys.modules, "paohuzi_env.apps.serve", None)
    assert main(["serve"]) == 2
    assert "serve extra" in capsys.readouterr().err


def test_the_replay_page_holds_the_hand_just_played(client):
    s = _play_out(client, client.post("/api/new", json={"seed": 2}).json())
    html = client.get(s["replay"]).text
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', html,
                                re.S).group(1).replace("<\\/", "</"))
    assert len(data["frames"]) == s["version"] + 1
    assert data["frames"][-1]["result"][0] == s["result"]["lines"][0]
    assert data["seats"] == ["你", "expert", "greedy"]


def test_serve_binds_to_this_machine_by_default(monkeypatch):
    from paohuzi_env.apps import serve
    from paohuzi_env.apps.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert args.opponents == ["expert", "expert"]
    seen = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: seen.update(kw))
    serve.run()
    assert seen["host"] == "127.0.0.1"


# --- limits and bad input (issue 27) -------------------------------------------------------

def _tables(client):
    return client.app.state.tables


@pytest.mark.parametrize("path, body, status, says", [
    ("act", b'{"action": 3, "version": ', 400, "not valid JSON"),
    ("act", b"\xff\xfe{}", 400, "not valid JSON"),
    ("act", b"[1, 2]", 400, "must be a JSON object"),
    ("act", b'"act"', 400, "must be a JSON object"),
    ("act", b'{"action": NaN, "version": 0}', 400, "not valid JSON"),
    ("act", b'{"action": 1e999, "version": 0}', 400, "an action is an int"),
    ("act", b'{"action": ' + b"9" * 400 + b', "version": 0}', 400, "an action is an int"),
    ("act", b'{"action": -1, "version": 0}', 400, "an action is an int"),
    ("act", b'{"action": 3, "version": -5}', 400, "must be an int >= 0"),
    ("act", b'{"action": 3, "version": ' + b"7" * 300 + b"}", 409, "(300 characters)"),
    ("act", b'{"action": [3], "version": 0}', 400, "an action is an int"),
    ("act", b'{"action": 3, "version": 0, "x": 1}', 400, "unknown field(s) 'x'; allowed: action, version"),
    ("act", b"[" * 3000 + b"]" * 3000, 413, "at most 4096 bytes"),
    ("act", b'{"action": 3, "version": 0, "pad": "' + b"x" * 5000 + b'"}', 413, "too large"),
    ("next", b'{"seed": 1}', 400, "unknown field(s) 'seed'; allowed: none"),
    ("next", b"{", 400, "not valid JSON"),
    ("new", b'{"seed": 18446744073709551616}', 400, "seed must be an int 0 <= seed < 2**64"),
    ("new", b'{"seed": 2.5}', 400, "seed must be"),
    ("new", b'{"seed": "5"}', 400, "seed must be"),
    ("new", b"not json", 400, "not valid JSON"),
    ("new", b'{"seed": 1, "rules": "x"}', 400, "unknown field(s) 'rules'"),
    ("new", b"[" * 1500 + b"]" * 1500, 400, "JSON"),  # too deep, or a list: either way 400
])
def test_bad_bodies_get_a_4xx_with_a_message_and_change_nothing(client, path, body, status, says):
    s = client.post("/api/new", json={"seed": 5}).json()
    held = list(_tables(client))
    url = {"new": "/api/new", "act": f"/api/table/{s['id']}/act",
           "next": f"/api/table/{s['id']}/next"}[path]
    r = client.post(url, content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == status, r.text
    assert says in r.json()["error"]
    assert list(_tables(client)) == held  # no table opened or dropped
    again = client.get(f"/api/table/{s['id']}").json()
    assert again["version"] == s["version"] and again["svg"] == s["svg"]


def test_an_empty_body_is_an_empty_object(client):
    assert client.post("/api/new").status_code == 200
    s = client.post("/api/new", json={"seed": 5}).json()
    r = client.post(f"/api/table/{s['id']}/act")
    assert r.status_code == 400 and "an action is an int id 0..60, got None" in r.json()["error"]


def test_unknown_table_ids_are_404_and_not_echoed_whole(client):
    assert client.get("/api/table/..%2F..%2Fetc").status_code == 404  # no route: starlette's 404
    for tid in ("nope", "x" * 2000, "%00", "%2e%2e"):
        for method, url in (("GET", f"/api/table/{tid}"), ("POST", f"/api/table/{tid}/act"),
                            ("POST", f"/api/table/{tid}/next")):
            r = client.request(method, url, json={"action": 0, "version": 0} if "act" in url else None)
            assert r.status_code == 404, (method, url)
            assert "no table" in r.json()["error"] and len(r.json()["error"]) < 400
        assert client.get(f"/replay/{tid}/1").status_code == 404
    assert _tables(client) == {}


def test_tables_past_the_cap_drop_the_least_recently_used():
    with TestClient(create_app(("random", "random"), max_tables=2)) as c:
        a = c.post("/api/new", json={"seed": 1}).json()
        b = c.post("/api/new", json={"seed": 2}).json()
        assert c.get(f"/api/table/{a['id']}").status_code == 200  # a is now the most recent
        d = c.post("/api/new", json={"seed": 3}).json()
        assert list(c.app.state.tables) == [a["id"], d["id"]]
        r = c.get(f"/api/table/{b['id']}")
        assert r.status_code == 404 and "least recently used of 2" in r.json()["error"]
        assert _act(c, a, a["legal"][0]["action"]).status_code == 200
        for seed in range(10):
            c.post("/api/new", json={"seed": seed})
            assert len(c.app.state.tables) <= 2


def test_idle_tables_are_dropped(monkeypatch):
    from paohuzi_env.apps import serve

    now = [1000.0]
    monkeypatch.setattr(serve.time, "monotonic", lambda: now[0])
    with TestClient(create_app(("random", "random"), idle_timeout=60)) as c:
        a = c.post("/api/new", json={"seed": 1}).json()
        now[0] += 50
        b = c.post("/api/new", json={"seed": 2}).json()
        now[0] += 20  # a idle 70 s, b 20 s
        assert c.get(f"/api/table/{b['id']}").status_code == 200
        r = c.get(f"/api/table/{a['id']}")
        assert r.status_code == 404 and "60 s idle" in r.json()["error"]
        assert list(c.app.state.tables) == [b["id"]]


def test_bad_limits_are_refused_at_start(capsys):
    for kw, says in (({"max_tables": 0}, "max_tables"), ({"idle_timeout": -1}, "idle_timeout"),
                     ({"max_body": 10}, "max_body"), ({"max_tables": 2.5}, "max_tables")):
        with pytest.raises(ValueError, match=says):
            create_app(("random", "random"), **kw)
    assert main(["serve", "--max-tables", "0"]) == 2
    assert "max_tables must be an int >= 1" in capsys.readouterr().err


def test_serve_passes_its_limits_to_the_app(monkeypatch):
    from paohuzi_env.apps import serve

    seen = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: seen.update(tables=app.state.tables))
    monkeypatch.setattr(serve, "create_app", lambda *a, **kw: (seen.update(kw), create_app(*a, **kw))[1])
    assert main(["serve", "--max-tables", "3", "--idle-timeout", "9", "--max-body", "512",
                 "--opponents", "random", "random"]) == 0
    assert seen["max_tables"] == 3 and seen["idle_timeout"] == 9 and seen["max_body"] == 512


def test_a_long_session_keeps_only_the_last_hands_records(monkeypatch):
    from paohuzi_env.apps import serve

    monkeypatch.setattr(serve, "MAX_RECORDS", 2)
    with TestClient(create_app(("random", "random"))) as c:
        s = c.post("/api/new", json={"seed": 8}).json()
        for hand in range(1, 5):
            s = _play_out(c, s)
            assert s["hand"] == hand and c.get(s["replay"]).status_code == 200
            if hand < 4:
                s = c.post(f"/api/table/{s['id']}/next").json()
        assert list(c.app.state.tables[s["id"]].records) == [3, 4]
        r = c.get(f"/replay/{s['id']}/1")
        assert r.status_code == 404 and "kept: 3..4" in r.text


# The hint and the review (issue 43): the compiled search values the human's legal actions.
SMALL_ANALYSER = "search:guide=none,prune=0,z=0,samples=8,playouts=128"
needs_core = pytest.mark.skipif(not fast.available(), reason="the analyser runs on the compiled core")


@pytest.fixture()
def analysed():
    with TestClient(create_app(("expert", "greedy"), analyser=SMALL_ANALYSER)) as c:
        yield c


@needs_core
def test_the_hint_values_every_legal_action_of_your_decision(analysed):
    s = analysed.post("/api/new", json={"seed": 5}).json()
    decisions = set()
    while not s["done"]:
        r = analysed.get(f"/api/table/{s['id']}/hint")
        assert r.status_code == 200, r.text
        h = r.json()
        assert (h["hand"], h["version"], h["decision"]) == (s["hand"], s["version"], s["decision"])
        assert h["analyser"] == SMALL_ANALYSER and h["worlds"] >= 2
        assert [(x["action"], x["name"]) for x in h["legal"]] == [(x["action"], x["name"])
                                                                  for x in s["legal"]]
        assert all(math.isfinite(x["mean"]) and math.isfinite(x["se"]) and x["worlds"] >= 2
                   for x in h["legal"])
        assert h["best"] == max(h["legal"], key=lambda x: x["mean"])["action"]
        assert analysed.get(f"/api/table/{s['id']}/hint").json() == h  # asking again: the same
        assert analysed.get(f"/api/table/{s['id']}").json()["version"] == s["version"]  # no move
        decisions.add(s["decision"])
        s = _act(analysed, s, s["legal"][-1]["action"])
        assert s.status_code == 200, s.text
        s = s.json()
    assert "discard" in decisions
    # the hand is over: a clear 409 with the state; no table: 404
    r = analysed.get(f"/api/table/{s['id']}/hint")
    assert r.status_code == 409 and "is over" in r.json()["error"] and r.json()["state"]["done"]
    r = analysed.get("/api/table/nope/hint")
    assert r.status_code == 404 and "no table" in r.json()["error"]


@needs_core
def test_no_hint_when_it_is_not_your_turn(analysed):
    s = analysed.post("/api/new", json={"seed": 5}).json()
    table = analysed.app.state.tables[s["id"]]
    table.game.step(s["legal"][0]["action"])  # as if the bots had not answered yet
    if table.game.done or table.game.current_player == 0:
        pytest.skip("seat 0 acts again at once in this deal")
    r = analysed.get(f"/api/table/{s['id']}/hint")
    assert r.status_code == 409 and "not yours" in r.json()["error"]


def test_a_bad_analyser_is_refused_at_start():
    for bad in ("expert", "search:guide=auto", "search:top=3", "search:samples=x"):
        with pytest.raises(ValueError):
            create_app(analyser=bad)


@needs_core
def test_the_review_page_holds_the_panel_of_your_decisions(analysed):
    s = _play_out(analysed, analysed.post("/api/new", json={"seed": 2}).json())
    assert s["review"] == f"/review/{s['id']}/{s['hand']}"
    r = analysed.get(s["review"])
    assert r.status_code == 200 and 'id="analysis"' in r.text and 'id="review-summary"' in r.text
    raw = re.search(r'<script type="application/json" id="review">(.*?)</script>', r.text, re.S).group(1)
    assert "<" not in raw  # every < of the review's strings is escaped
    rev = json.loads(raw)
    assert rev["seat"] == 0 and rev["analyser"] == SMALL_ANALYSER and rev["decisions"]
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', r.text,
                                re.S).group(1).replace("<\\/", "</"))
    assert data["view"] == "0"
    for d in rev["decisions"]:
        frame = data["frames"][d["step"]]
        assert frame["actor"] == 0 and frame["chosen"] == d["chosen"]
        assert sorted(x["action"] for x in d["legal"]) == sorted(a for a, _ in frame["legal"])
    assert analysed.get(s["review"]).text == r.text  # kept: the same page again
    # the plain replay has no panel; unknown hands and tables are 404
    assert 'id="analysis"' not in analysed.get(s["replay"]).text
    assert analysed.get(f"/review/{s['id']}/9").status_code == 404
    assert analysed.get("/review/nope/1").status_code == 404
