"""The terminal game, driven end to end by scripted input."""

from __future__ import annotations

import json

from paohuzi_env.engine import Game, next_dealer
from paohuzi_env.play import play, rank_title


def test_terminal_game_plays_hands_and_saves_replayable_records(tmp_path):
    answers = iter(["x", "0", "99"] + ["1"] * 500)
    shown = []
    total = play(("greedy", "random"), seed=4, hands=2, records=tmp_path,
                 read=lambda prompt: next(answers), write=shown.append)
    text = "\n".join(shown)
    assert "is not one of the choices" in text  # bad input asks again
    assert "累计" in text and "第 2 局" in text
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2
    rec = json.loads(files[0].read_text())
    g = Game.replay(rec)
    assert g.done
    assert isinstance(total, int)


def test_quit_and_interrupt_leave_cleanly(tmp_path):
    shown = []
    play(seed=1, hands=3, records=tmp_path, read=lambda p: "q", write=shown.append)
    assert "再见" in shown[-1]

    def interrupt(prompt):
        raise KeyboardInterrupt

    shown.clear()
    play(seed=1, hands=3, records=None, read=interrupt, write=shown.append)
    assert "再见" in shown[-1]


def test_rank_ladder_of_seed_002():
    assert rank_title(-50) == "包身工"
    assert rank_title(29) == "包身工"
    assert rank_title(30) == "短工"
    assert rank_title(840) == "中农"
    assert rank_title(69000) == "巡抚"
    assert rank_title(200000) == "帝王"


def test_dealer_rules():
    # huaihua: the winner deals; after 荒庄 the next player.
    assert next_dealer("huaihua", 0, 2) == (2, 0)
    assert next_dealer("huaihua", 0, None) == (1, 0)
    # classic: after 荒庄 the dealer stays; after three in a row the next player deals.
    assert next_dealer("classic", 0, None, 0) == (0, 1)
    assert next_dealer("classic", 0, None, 1) == (0, 2)
    assert next_dealer("classic", 0, None, 2) == (1, 0)
    assert next_dealer("classic", 0, 1, 2) == (1, 0)


def test_terminal_game_under_yongzhou_shows_wang_and_replays(tmp_path):
    # `paohuzi play --rules yongzhou`: 王 are shown in the human's hand and the event log, and
    # the saved records replay under the 82-card rules.
    answers = iter(["0", "1"] * 400)
    shown = []
    play(("expert", "greedy"), rules="yongzhou", seed=11, hands=4, records=tmp_path,
         read=lambda prompt: next(answers), write=shown.append)
    text = "\n".join(shown)
    assert "yongzhou" in text and "王" in text
    for f in sorted(tmp_path.glob("*.json")):
        g = Game.replay(json.loads(f.read_text()))
        assert g.done and len(g.deck) == 82
