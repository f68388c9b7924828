"""The browser table's server (paohuzi_env.serve), through its HTTP API."""

from __future__ import annotations

import json
import re
import warnings

import pytest

pytest.importorskip("starlette", reason="the serve extra (starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (test extra) is needed by starlette's TestClient")

with warnings.catch_warnings():  # starlette's note on httpx versus httpx2 is not ours to fix
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from paohuzi_env.actions import HU, NUM_ACTIONS, PASS  # noqa: E402
from paohuzi_env.cli import main  # noqa: E402
from paohuzi_env.serve import create_app  # noqa: E402


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

    monkeypatch.setitem(sys.modules, "paohuzi_env.serve", None)
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
    from paohuzi_env import serve
    from paohuzi_env.cli import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000
    assert args.opponents == ["expert", "expert"]
    seen = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: seen.update(kw))
    serve.run()
    assert seen["host"] == "127.0.0.1"
