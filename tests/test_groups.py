"""Groups (门子) and their huxi: the table of docs/rules.md section 3 (R-GROUP-1, R-GROUP-2).

The seeds' huxi facts (seeds 001, 002, 004): 碰 small 1 / big 3; 坎, 偎, 臭偎 3 / 6; 跑 6 / 9;
提 9 / 12; 一二三 and 二七十 3, 壹贰叁 and 贰柒拾 6, every other 句 0; 绞 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paohuzi_env.game.cards import parse
from paohuzi_env.game.groups import (
    JIAOS,
    MELD_TYPES,
    SEQUENCES,
    group_huxi,
    is_chi_group,
    normalise_meld,
    sequence_huxi,
)


def g(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse(text)))


# ----------------------------------------------------------------------------- same-kind groups


@pytest.mark.parametrize(
    "gtype, small, big",
    [
        ("peng", 1, 3),  # 碰: 1 / 3
        ("kan", 3, 6),  # 坎: 3 / 6
        ("wei", 3, 6),  # 偎: 3 / 6
        ("chou_wei", 3, 6),  # 臭偎: 3 / 6
        ("pao", 6, 9),  # 跑: 6 / 9
        ("ti", 9, 12),  # 提: 9 / 12
        ("jiang", 0, 0),  # 将: 0
    ],
)
def test_same_kind_huxi(gtype, small, big):
    size = {"pao": 4, "ti": 4, "jiang": 2}.get(gtype, 3)
    for p in range(1, 11):
        # the same for every point, red or black (泸州's red bonus is not implemented)
        assert group_huxi(gtype, (p - 1,) * size) == small, (gtype, p)
        assert group_huxi(gtype, (p + 9,) * size) == big, (gtype, p)


# ----------------------------------------------------------------------------- 句 and 绞


def test_sequences_are_all_the_ju():
    # R-GROUP-2: three consecutive points of one size (8 per size) or 2-7-10 of one size.
    assert len(SEQUENCES) == 18
    assert len(set(SEQUENCES)) == 18
    expected = set()
    for base in (0, 10):
        for start in range(8):
            expected.add((base + start, base + start + 1, base + start + 2))
        expected.add((base + 1, base + 6, base + 9))
    assert set(SEQUENCES) == expected


def test_jiaos_are_all_the_mixed_triples():
    # section 3: 绞 = three cards of one point, both sizes present (AAa or Aaa).
    assert len(JIAOS) == 20
    for p in range(10):
        assert (p, p, p + 10) in JIAOS
        assert (p, p + 10, p + 10) in JIAOS


@pytest.mark.parametrize(
    "text, huxi",
    [
        ("一二三", 3),
        ("二七十", 3),
        ("壹贰叁", 6),
        ("贰柒拾", 6),
        ("s1 s2 s3", 3),
        ("b2 b7 b10", 6),
    ],
)
def test_scoring_sequences(text, huxi):
    cards = g(text)
    assert is_chi_group(cards)
    assert sequence_huxi(cards) == huxi
    # the same huxi in the hand (句) and on the table (吃/比 group)
    assert group_huxi("ju", cards) == huxi
    assert group_huxi("chi", cards) == huxi


def test_every_other_sequence_is_zero():
    scoring = {g("一二三"), g("二七十"), g("壹贰叁"), g("贰柒拾")}
    for seq in SEQUENCES:
        if seq in scoring:
            continue
        assert sequence_huxi(seq) == 0, seq
        assert group_huxi("ju", seq) == 0
        assert group_huxi("chi", seq) == 0


@pytest.mark.parametrize("text", ["二三四", "八九十", "贰叁肆", "捌玖拾", "四五六", "陆柒捌"])
def test_some_zero_sequences(text):
    assert is_chi_group(g(text))
    assert group_huxi("ju", g(text)) == 0


def test_jiao_is_zero():
    # 绞牌0胡 (seed 001), 绞牌没有息 (seeds 002, 004) -- also for 1 and 2-7-10 points.
    for jiao in JIAOS:
        assert is_chi_group(jiao)
        assert group_huxi("jiao", jiao) == 0
        assert group_huxi("chi", jiao) == 0
    assert group_huxi("jiao", g("一一壹")) == 0
    assert group_huxi("jiao", g("二贰贰")) == 0


@pytest.mark.parametrize(
    "text",
    [
        "一二叁",  # R-GROUP-2: sizes may not be mixed
        "s1 s2 b3",
        "二七拾",
        "贰七十",
        "九十壹",  # no wrap-around
        "s9 s10 s1",
        "一三五",
        "一一一",  # three of a kind is a 坎/碰/偎, not a 吃 group
        "壹壹壹",
        "一一二",
        "二七九",
    ],
)
def test_not_a_chi_group(text):
    assert not is_chi_group(g(text))


# ----------------------------------------------------------------------------- table melds


@pytest.mark.parametrize(
    "meld, expected",
    [
        (("chi", "三一二"), ("chi", g("一二三"))),
        (("chi", [19, 11, 16]), ("chi", (11, 16, 19))),
        (("chi", "s9 b9 s9"), ("chi", (8, 8, 18))),
        (("peng", "b4 b4 b4"), ("peng", (13, 13, 13))),
        (("wei", "一一一"), ("wei", (0, 0, 0))),
        (("chou_wei", "s5s5s5"), ("chou_wei", (4, 4, 4))),
        (("pao", "拾拾拾拾"), ("pao", (19,) * 4)),
        (("ti", "s1 s1 s1 s1"), ("ti", (0,) * 4)),
    ],
)
def test_normalise_meld(meld, expected):
    assert normalise_meld(meld) == expected


def test_meld_types():
    assert set(MELD_TYPES) == {"chi", "peng", "wei", "chou_wei", "pao", "ti"}


@pytest.mark.parametrize(
    "meld, needle",
    [
        (("kong", "s1 s1 s1"), "kong"),
        (("kan", "s1 s1 s1"), "kan"),  # a 坎 is in the hand, never a table meld
        (("jiang", "s1 s1"), "jiang"),
        (("chi", "s1 s2 b3"), "chi"),  # R-GROUP-2
        (("chi", "s1 s2"), "chi"),
        (("chi", "s1 s1 s1"), "chi"),
        (("peng", "s1 s1"), "peng"),
        (("peng", "s1 s1 s2"), "peng"),
        (("wei", "b1 b1 b1 b1"), "wei"),
        (("pao", "s3 s3 s3"), "pao"),
        (("ti", "s3 s3 s3 b3"), "ti"),
    ],
)
def test_bad_melds(meld, needle):
    with pytest.raises(ValueError) as ei:
        normalise_meld(meld)
    assert needle in str(ei.value)


@pytest.mark.parametrize("meld", ["chi", ("chi",), ("chi", "s1 s2 s3", "x"), None])
def test_meld_must_be_a_pair(meld):
    with pytest.raises(ValueError):
        normalise_meld(meld)


def test_meld_with_a_bad_card():
    with pytest.raises(ValueError) as ei:
        normalise_meld(("peng", "s11 s11 s11"))
    assert "s11" in str(ei.value)


# ----------------------------------------------------------------------------- the one group table


def test_chi_groups_are_the_38_groups_in_action_order():
    from paohuzi_env.game import actions
    from paohuzi_env.game.groups import CHI_GROUPS

    assert len(CHI_GROUPS) == 38 == actions.NUM_GROUPS
    assert len(set(CHI_GROUPS)) == 38
    assert all(len(c) == 3 and tuple(sorted(c)) == c and is_chi_group(c) for c in CHI_GROUPS)
    assert actions.GROUPS == CHI_GROUPS
    assert [actions.group_cards(a) for a in range(20, 58)] == list(CHI_GROUPS)
    assert actions.GROUP_ID == {c: 20 + i for i, c in enumerate(CHI_GROUPS)}
    assert [actions.is_group(a) for a in range(actions.NUM_ACTIONS)] == [20 <= a < 58 for a in range(61)]
    assert (actions.GROUP_BASE, actions.PENG, actions.HU, actions.PASS, actions.NUM_ACTIONS) == (
        20, 58, 59, 60, 61)
    # the order the action catalogue documents
    assert CHI_GROUPS[0] == g("一二三") and CHI_GROUPS[7] == g("八九十")
    assert CHI_GROUPS[8] == g("壹贰叁") and CHI_GROUPS[15] == g("捌玖拾")
    assert CHI_GROUPS[16:18] == (g("二七十"), g("贰柒拾"))
    assert CHI_GROUPS[18] == g("一一壹") and CHI_GROUPS[27] == g("十十拾")
    assert CHI_GROUPS[28] == g("一壹壹") and CHI_GROUPS[37] == g("十拾拾")
    for k in range(20):
        assert actions.GROUPS_WITH[k] == tuple(20 + i for i, c in enumerate(CHI_GROUPS) if k in c)


def test_sequences_and_jiaos_split_the_table_in_their_documented_order():
    from paohuzi_env.game.groups import CHI_GROUPS

    assert set(SEQUENCES) | set(JIAOS) == set(CHI_GROUPS)
    assert not set(SEQUENCES) & set(JIAOS)
    small = [(p, p + 1, p + 2) for p in range(8)] + [(1, 6, 9)]
    assert list(SEQUENCES) == small + [tuple(k + 10 for k in c) for c in small]
    assert list(JIAOS) == [(p, p, p + 10) for p in range(10)] + [(p, p + 10, p + 10) for p in range(10)]


def test_group_names_cover_every_group_type():
    from paohuzi_env.display import render
    from paohuzi_env.game.groups import GROUP_NAMES, HAND_TYPES, SEQUENCE_TYPES

    assert set(GROUP_NAMES) == set(MELD_TYPES) | set(HAND_TYPES) | set(SEQUENCE_TYPES)
    assert GROUP_NAMES["chou_wei"] == "臭偎" and GROUP_NAMES["loose"] == "散牌"
    assert render.GROUP_NAMES is GROUP_NAMES
    # defined once: no other module of the package spells out the table
    pkg = Path(render.__file__).parent
    copies = [p.name for p in pkg.rglob("*.py")
              if p.name != "groups.py" and '"chou_wei": "臭偎"' in p.read_text(encoding="utf-8")]
    assert copies == []
