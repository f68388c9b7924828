"""The ``paohuzi`` command."""

from __future__ import annotations

from paohuzi_env.apps.cli import main


def test_score_prints_decomposition_and_score(capsys):
    # 坎 捌 (6) + 偎 九 from the self-drawn 九 (3) + 一二三 (3) + 壹贰叁 (6) + three 0-huxi 句
    # = 18 huxi: 平胡 at 18 -> tun 1 + (18-15)//3 = 2, +1 自摸 = 3; fan 1; score 3.
    rc = main(["score", "一二三 壹贰叁 四五六 四五六 肆伍陆 捌捌捌 九九", "--win", "九", "--self-drawn"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "胡息 18" in out and "3 囤 × 1 番 = 3 分" in out and "自摸" in out
    assert "坎" in out and "偎" in out


def test_score_with_melds_and_no_win(capsys):
    rc = main(["score", "一二三 壹贰叁 四五六 四五六 肆伍陆 捌捌捌 九九", "--win", "九"])
    assert rc == 1  # 16 huxi without 自摸 or 名堂 is below huaihua's 18
    assert "不能胡" in capsys.readouterr().out


def test_bad_input_is_a_clear_error(capsys):
    assert main(["score", "s11 s1", "--win", "s2"]) == 2
    assert "s11" in capsys.readouterr().err
    assert main(["score", "s1", "--melds", "peng-b3b3b3"]) == 2
    assert "type:cards" in capsys.readouterr().err
    assert main(["score", "s1", "--rules", "changsha"]) == 2
    assert "unknown rules preset" in capsys.readouterr().err


def test_play_random_prints_a_hand(capsys):
    assert main(["play-random", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "亮张" in out and ("荒庄" in out or "胡牌" in out or "天胡" in out)


def test_score_with_wang_under_yongzhou(capsys):
    # R-WANG-6/7: 一二三 3 + 壹贰叁 6 + 贰柒拾 6 + 二七十 3 + 坎 玖 6 + 四五六 0 = 24 huxi, and the two
    # 王 with the self-drawn 捌 are a 双王吊 group (0 huxi). tun 1 + (24 − 15) // 3 = 4; red
    # 二, 贰, 二七十, 贰柒拾 = 8 (the 王 stand for 捌): no colour; way 双王吊 8 -> 4 × 8 = 32.
    rc = main(["score", "一二三 壹贰叁 贰柒拾 二七十 玖玖玖 四五六 王王", "--win", "捌",
               "--self-drawn", "--rules", "yongzhou"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "胡息 24" in out and "4 囤 × 8 番 = 32 分" in out and "双王吊" in out and "王吊" in out
    # the same hand may not win on another player's card (R-WANG-5)
    assert main(["score", "一二三 壹贰叁 贰柒拾 二七十 玖玖玖 四五六 王王", "--win", "捌",
                 "--rules", "yongzhou"]) == 1


def test_score_says_why_a_holding_cannot_win(capsys):
    # R-WIN-3: 16 huxi, no 名堂, not 自摸: huaihua's 平胡 needs 18 (15 when 自摸)
    assert main(["score", "一二三 壹贰叁 四五六 四五六 肆伍陆 捌捌捌 九九", "--win", "九"]) == 1
    out = capsys.readouterr().out
    assert "R-WIN-3" in out and "16 huxi" in out and "18" in out and "--self-drawn" in out
    # R-GROUP-1: 七八九 八九十 八捌捌 would need the 坎 八八八 split
    melds = "chi:壹贰叁,chi:贰柒拾,peng:拾拾拾,chi:二七十"
    assert main(["score", "八八八 七九十 捌捌", "--melds", melds, "--win", "九"]) == 1
    out = capsys.readouterr().out
    assert "R-GROUP-1" in out and "八八八" in out
    # R-WIN-1: the card count cannot make 7 门子
    assert main(["score", "一二三 壹贰叁 四五六 四五六 肆伍陆 捌捌捌 九", "--win", "九"]) == 1
    assert "7 门子" in capsys.readouterr().out
    # R-WIN-1: no split at all
    assert main(["score", "一三五 七九 壹叁伍 柒玖 二四六 八十 贰肆陆 捌捌", "--win", "拾"]) == 1
    assert "do not split" in capsys.readouterr().out
    # R-WANG-5: a 王 holder wins only 自摸
    assert main(["score", "一二三 壹贰叁 贰柒拾 二七十 玖玖玖 四五六 王王", "--win", "捌",
                 "--rules", "yongzhou"]) == 1
    assert "R-WANG-5" in capsys.readouterr().out


def test_win_card_must_be_one_card_in_the_notation(capsys):
    assert main(["score", "一二三", "--win", "10"]) == 2
    err = capsys.readouterr().err
    assert "'10' is no card" in err and "s10 (十)" in err and "b10 (拾)" in err
    assert main(["score", "一二三", "--win", "九十"]) == 2
    assert "one card" in capsys.readouterr().err


def test_play_rejects_a_hand_count_below_one(capsys):
    for n in ("-1", "0"):
        assert main(["play", "--hands", n]) == 2
        assert "--hands must be at least 1" in capsys.readouterr().err
