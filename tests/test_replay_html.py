"""The self-contained replay page (paohuzi_env.apps.replay_html) and ``paohuzi replay``."""

from __future__ import annotations

import json
import re

import pytest

from paohuzi_env.agents import make_agent
from paohuzi_env.apps.cli import main
from paohuzi_env.apps.replay_html import frames_of, load_record, replay_html, review_data
from paohuzi_env.game.engine import Game


def _record(seed: int = 11, rules: str = "huaihua") -> dict:
    g = Game(rules, seed=seed)
    bots = [make_agent("expert", seed=i, rules=rules) for i in range(3)]
    while not g.done:
        s = g.current_player
        g.step(bots[s](g.view(s)))
    return g.record()


def test_frames_follow_the_hand_decision_by_decision():
    rec = _record()
    frames = frames_of(rec)
    assert len(frames) == len(rec["actions"]) + 1
    g = Game("huaihua", deck=rec["deck"], dealer=rec["dealer"])
    for f, a in zip(frames, rec["actions"]):
        assert f["actor"] == g.current_player and f["decision"] == g.decision
        assert [x for x, _ in f["legal"]] == g.legal_actions() and f["chosen"] == a
        assert len(f["svg"]) == 4 and all(s.startswith("<svg") for s in f["svg"])
        g.step(a)
    assert "result" in frames[-1] and frames[-1]["result"][0]
    # every public event of the hand appears once in the frames' logs
    assert sum(len(f["log"]) for f in frames) == sum(
        1 for ev in g.events if ev[0] in ("liang", "reveal", "wang", "discard", "to_discards", "chi",
                                          "bi", "peng", "pao", "ti", "chou_wei", "wei", "hu",
                                          "huangzhuang"))


def test_page_is_self_contained_and_carries_probabilities():
    rec = _record()
    legal0 = Game("huaihua", deck=rec["deck"], dealer=rec["dealer"]).legal_actions()
    rec["probs"] = [{str(a): 1 / len(legal0) for a in legal0}] + [None] * (len(rec["actions"]) - 1)
    rec["seats"] = ["expert", "expert", "expert"]
    html = replay_html(rec)
    assert html.startswith("<!DOCTYPE html>")
    # nothing from the network: no external scripts, styles, images or fonts
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "<link" not in html and "@import" not in html
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', html,
                                re.S).group(1).replace("<\\/", "</"))
    assert data["frames"][0]["probs"] == {str(a): pytest.approx(1 / len(legal0)) for a in legal0}
    assert data["frames"][1]["probs"] is None and data["seats"] == rec["seats"]
    assert html.count('<symbol id="pk-') == 22  # the card faces once: 20 kinds, the 王, the back


def test_bad_records_are_clear_errors(tmp_path):
    rec = _record()
    with pytest.raises(ValueError, match="lacks deck"):
        replay_html({k: v for k, v in rec.items() if k != "deck"})
    with pytest.raises(ValueError, match="one entry"):
        replay_html({**rec, "probs": [None]})
    with pytest.raises(ValueError, match="does not replay"):
        frames_of({**rec, "actions": [59] + rec["actions"][1:]})
    with pytest.raises(ValueError, match="before the hand is over"):
        frames_of({**rec, "actions": rec["actions"][:-1]})
    with pytest.raises(ValueError, match="start_view"):
        replay_html(rec, start_view="north")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="is not JSON"):
        load_record(bad)
    with pytest.raises(ValueError, match="no record file"):
        load_record(tmp_path / "missing.json")


def test_cli_replay_writes_html_and_prints_text(tmp_path, capsys):
    rec = _record(5, "yongzhou")
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(rec))
    out = tmp_path / "hand.html"
    assert main(["replay", str(path), "--html", str(out), "--view", "1"]) == 0
    assert out.exists() and '"view":"1"' in out.read_text()
    assert "wrote" in capsys.readouterr().out
    assert main(["replay", str(path)]) == 0
    text = capsys.readouterr().out
    assert "[1] 座" in text and ("胡" in text or "荒庄" in text)
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert "no record file" in capsys.readouterr().err


def test_a_hand_won_at_the_deal_has_one_frame():
    # R-START-1's forced 天胡 ends the hand before any decision: the page shows just the end.
    g = Game("huaihua", seed=8072)
    assert g.done and g.actions == []
    frames = frames_of(g.record())
    assert len(frames) == 1 and "天胡" in frames[0]["result"][0]
    assert "window.replay" in replay_html(g.record())


SMALL = "search:guide=none,prune=0,z=0,samples=6,playouts=64"


def _review_of(rec: dict, seat: int = 0) -> dict:
    from paohuzi_env import fast

    if not fast.available():
        pytest.skip("the review runs on the compiled core")
    from paohuzi_env.apps.review import review

    return review(rec, seat, analyser=SMALL)


def test_the_review_panel_rides_in_the_page_escaped():
    rec = _record()
    rev = _review_of(rec)
    # a hostile name in the review cannot close the script element or add markup
    rev["decisions"][0]["legal"][0]["name"] = "</script><b>x</b>&"
    rev["analyser"] = "<img src=x onerror=alert(1)>"
    page = replay_html(rec, review=rev)
    assert "</script><b>" not in page and "<img src=x" not in page
    m = re.search(r'<script type="application/json" id="review">(.*?)</script>', page, re.S)
    data = json.loads(m.group(1)) if m else None
    assert data is not None and data["seat"] == 0
    assert data["decisions"][0]["legal"][0]["name"] == "</script><b>x</b>&"
    assert [d["step"] for d in data["decisions"]] == [d["step"] for d in rev["decisions"]]
    # without a review the page has no panel data
    assert 'id="review"' not in replay_html(rec)


def test_a_review_of_another_hand_is_refused():
    rec = _record()
    rev = _review_of(rec)
    other = _record(seed=12)
    with pytest.raises(ValueError, match="another hand"):
        review_data(rev, frames_of(other))
    with pytest.raises(ValueError, match="review must be"):
        review_data({"seat": 0}, frames_of(rec))


def test_review_command_writes_the_page(tmp_path, capsys):
    rec = _record()
    _review_of(rec)  # skips without the core
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec))
    out = tmp_path / "rev.html"
    assert main(["review", str(path), "--seat", "0", "--analyser", SMALL, "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert 'id="review"' in page and "wrote" in capsys.readouterr().out
