"""The terminal game, driven end to end by scripted input."""

from __future__ import annotations

import json
import re

import pytest

from paohuzi_env.apps.play import play, rank_title
from paohuzi_env.game.engine import Game, next_dealer


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


def _scripted(answers, prompts):
    it = iter(answers)

    def read(prompt):
        prompts.append(prompt)
        return next(it)

    return read


def test_opponents_moves_show_as_they_happen_and_one_numbering():
    # Before each of your decisions the table's moves since your last one are listed (draws,
    # claims, discards), not only as a log at the end; the menu is the only numbering.
    shown, prompts = [], []
    play(("expert", "expert"), seed=4, hands=1, records=None,
         read=_scripted(["1"] * 300, prompts), write=shown.append)
    text = "\n".join(shown)
    menus = [i for i, line in enumerate(shown) if line.startswith("[1] ")]
    assert len(menus) >= 3
    # bot moves appear between two of your menus
    between = shown[menus[0]:menus[-1]]
    assert any(line.startswith("  · 座1") or line.startswith("  · 座2") for line in between)
    # no action ids beside the menu (the ansi render's "[3:打 四, ...]" list is left out)
    assert not re.search(r"\b\d+:(打|吃|碰|胡|过|比)", text)
    assert "得分" in text and "累计" in text


def test_card_names_and_move_names_are_accepted():
    shown, prompts = [], []
    answers = iter(["九", "s9", "过", "碰", "胡"])

    def read(prompt):
        prompts.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            return "1"

    play(("expert", "expert"), seed=4, hands=1, records=None, read=read, write=shown.append)
    text = "\n".join(shown)
    assert "'九' is not one of the choices" not in text
    assert "  · 座0 打出 九" in text  # seed 4: you deal, holding 九九; typing 九 discards one


def test_match_reads_cards_groups_and_words():
    from paohuzi_env.apps.play import _match
    from paohuzi_env.game.actions import PASS, PENG

    assert _match("九", [8, 9], "discard") == 8
    assert _match("s9", [8, 9], "discard") == 8
    assert _match("拾", [8, 9], "discard") is None  # not legal: asked again
    assert _match("过", [PENG, PASS], "claim") == PASS and _match("碰", [PENG, PASS], "claim") == PENG
    assert _match("一二三", [20, PASS], "claim") == 20 and _match("吃 一二三", [20, PASS], "claim") == 20


def test_bi_prompt_says_pass_cancels_the_chi_and_hands_pause():
    shown, prompts = [], []
    play(("expert", "expert"), seed=4, hands=2, records=None,
         read=_scripted(["1"] * 600, prompts), write=shown.append)
    bi = [p for p in prompts if p.startswith("你的选择 (比")]
    assert bi and all("过 = 取消这次吃" in p for p in bi)  # R-CHI-2
    assert any(line.startswith("[1] 比") and "过 (取消这次吃)" in line for line in shown)
    # a pause between the hands, none after the last
    assert sum(p.startswith("按回车开始下一局") for p in prompts) == 1
    assert "第 2 局" in "\n".join(shown)


def test_hands_below_one_is_an_error():
    with pytest.raises(ValueError, match="hands must be at least 1"):
        play(hands=-1, records=None, read=lambda p: "q", write=lambda s: None)


def test_pass_is_named_for_what_it_means():
    from paohuzi_env.display.render import move_name
    from paohuzi_env.game.actions import PASS, PENG

    assert move_name(PASS, "claim", [PENG, PASS]) == "过 (忍碰)"  # R-CHOU-3
    assert move_name(PASS, "claim", [20, PASS]) == "过"
    assert move_name(PASS, "bi", [21, PASS]) == "过 (取消这次吃)"  # R-CHI-2
    assert move_name(PASS, "hu", [59, PASS]) == "过"
