"""Cards, their facts and the notation people type (docs/rules.md section 1: R-CARD-1..3; the 王 of
section 10: R-WANG-1)."""

from __future__ import annotations

import numpy as np
import pytest

from paohuzi_env.game import cards
from paohuzi_env.game.cards import (
    BIG_KINDS,
    COPIES,
    NUM_CARDS,
    NUM_KINDS,
    RED_KINDS,
    SMALL_KINDS,
    WANG,
    WANG_COPIES,
    code,
    counts_of,
    is_big,
    is_red,
    kind_of,
    kinds_of,
    name,
    parse,
    point,
    split_wang,
)

SMALL = "一二三四五六七八九十"
BIG = "壹贰叁肆伍陆柒捌玖拾"


# ----------------------------------------------------------------------------- R-CARD-1


def test_deck_size_r_card_1():
    # R-CARD-1: 80 cards = 20 kinds x 4 copies.
    assert NUM_KINDS == 20
    assert COPIES == 4
    assert NUM_CARDS == 80
    assert SMALL_KINDS == tuple(range(10))
    assert BIG_KINDS == tuple(range(10, 20))


@pytest.mark.parametrize("p", range(1, 11))
def test_kind_ids_r_card_1(p):
    # R-CARD-1: small point p -> p-1, big point p -> p+9.
    assert kind_of(p, big=False) == p - 1
    assert kind_of(p, big=True) == p + 9
    assert point(p - 1) == p
    assert point(p + 9) == p
    assert not is_big(p - 1)
    assert is_big(p + 9)


@pytest.mark.parametrize("bad", [0, 11, -1])
def test_kind_of_rejects_bad_points(bad):
    with pytest.raises(ValueError):
        kind_of(bad, big=False)


def test_names_and_codes_r_card_1():
    # R-CARD-1: 一..十 are small points 1..10, 壹..拾 big points 1..10.
    for i, ch in enumerate(SMALL):
        assert name(i) == ch
        assert code(i) == f"s{i + 1}"
    for i, ch in enumerate(BIG):
        assert name(10 + i) == ch
        assert code(10 + i) == f"b{i + 1}"


@pytest.mark.parametrize("bad", [-1, 21, 3.0, True, "s1"])
def test_name_and_code_reject_non_kinds(bad):
    with pytest.raises(ValueError):
        name(bad)
    with pytest.raises(ValueError):
        code(bad)


# ----------------------------------------------------------------------------- R-CARD-2


def test_red_cards_r_card_2():
    # R-CARD-2: red = points 2, 7, 10 of both sizes (二七十 贰柒拾), all others black.
    assert RED_KINDS == (1, 6, 9, 11, 16, 19)
    assert cards.format(RED_KINDS) == "二七十贰柒拾"
    for k in range(NUM_KINDS):
        assert is_red(k) == (point(k) in (2, 7, 10))
    # 6 red kinds x 4 copies = 24 red cards; 40 big and 40 small cards.
    assert sum(COPIES for k in range(NUM_KINDS) if is_red(k)) == 24
    assert sum(COPIES for k in range(NUM_KINDS) if is_big(k)) == 40
    assert sum(COPIES for k in range(NUM_KINDS) if not is_big(k)) == 40


@pytest.mark.parametrize(
    "text", ["二", "七", "十", "贰", "柒", "拾", "s2", "s7", "s10", "b2", "b7", "b10"]
)
def test_each_red_card_is_red(text):
    (k,) = parse(text)
    assert is_red(k)


@pytest.mark.parametrize(
    "text", ["一", "三", "四", "五", "六", "八", "九", "壹", "叁", "肆", "伍", "陆", "捌", "玖"]
)
def test_each_black_card_is_black(text):
    (k,) = parse(text)
    assert not is_red(k)


# ----------------------------------------------------------------------------- R-CARD-3


def test_parse_ascii_notation_r_card_3():
    assert parse("s1 s2 s3 s10 b1 b10") == [0, 1, 2, 9, 10, 19]
    # capitals are read the same
    assert parse("S1 B10") == [0, 19]


def test_parse_chinese_r_card_3():
    assert parse(SMALL) == list(range(10))
    assert parse(BIG) == list(range(10, 20))


def test_parse_seed_variants_r_card_3():
    # R-CARD-3: 参 is 叁 (b3 = kind 12) and 搅 is 捌 (b8 = kind 17), as the seeds write them.
    assert parse("参") == parse("叁") == [12]
    assert parse("搅") == parse("捌") == [17]
    assert parse("壹贰参肆伍陆柒搅玖拾") == list(range(10, 20))


@pytest.mark.parametrize(
    "text",
    [
        "s1 s2 b3",
        "s1s2b3",
        "s1,s2,b3",
        "s1, s2 ,b3",
        "一二叁",
        "一 二 叁",
        "一,二,叁",
        "一，二、叁",  # full-width comma and 顿号
        "s1二参",  # mixed notations
        "  s1 二\tb3\n",
    ],
)
def test_separators_are_optional_r_card_3(text):
    assert parse(text) == [0, 1, 12]


def test_parse_keeps_order_and_duplicates():
    assert parse("b3 s1 b3 s1") == [12, 0, 12, 0]


def test_parse_empty():
    assert parse("") == []
    assert parse("   ") == []
    assert parse([]) == []


@pytest.mark.parametrize("bad", ["s11", "b0", "s0", "b11", "s100"])
def test_bad_ascii_tokens_are_named(bad):
    with pytest.raises(ValueError) as ei:
        parse(f"s1 {bad} b2")
    assert bad in str(ei.value)


@pytest.mark.parametrize("bad", ["x", "零", "Q", "?"])
def test_bad_characters_are_named(bad):
    with pytest.raises(ValueError) as ei:
        parse(f"一{bad}二")
    assert bad in str(ei.value)


def test_bare_size_letter_is_an_error():
    # "s" not followed by a point is no card.
    with pytest.raises(ValueError):
        parse("s 1")


def test_fifth_copy_raises_r_card_1():
    # R-CARD-1: four copies of each kind exist; a fifth in one holding is an error.
    assert parse("s1 s1 s1 s1") == [0, 0, 0, 0]
    with pytest.raises(ValueError) as ei:
        parse("s1 s1 s1 s1 一")
    assert "一" in str(ei.value) or "s1" in str(ei.value)
    with pytest.raises(ValueError):
        parse([19] * 5)


def test_max_copies_argument():
    assert parse("s1 s1", max_copies=2) == [0, 0]
    with pytest.raises(ValueError):
        parse("s1 s1 s1", max_copies=2)


def test_parse_kind_ids():
    assert parse([0, 19, 5]) == [0, 19, 5]
    assert parse(k for k in (3, 4)) == [3, 4]
    assert parse(np.array([1, 12], dtype=np.int64)) == [1, 12]
    assert all(type(k) is int for k in parse(np.array([1, 12])))


@pytest.mark.parametrize("bad", [[21], [-1], [True], [1.5], ["s1"]])
def test_parse_bad_kind_ids(bad):
    with pytest.raises(ValueError):
        parse(bad)


def test_format_r_card_3():
    assert cards.format([0, 1, 12]) == "一二叁"
    assert cards.format([0, 1, 12], sep=" ") == "一 二 叁"
    assert cards.format([]) == ""


def test_round_trips():
    every = list(range(NUM_KINDS))
    assert parse(cards.format(every)) == every
    assert parse(" ".join(code(k) for k in every)) == every
    assert parse(",".join(code(k) for k in every)) == every


def test_counts_and_kinds():
    counts = counts_of(parse("s1 s1 b10 三"))
    assert len(counts) == NUM_KINDS
    assert counts[0] == 2 and counts[2] == 1 and counts[19] == 1 and sum(counts) == 4
    assert kinds_of(counts) == [0, 0, 2, 19]


# ----------------------------------------------------------------------------- R-WANG-1


def test_wang_kind_r_wang_1():
    # R-WANG-1: the 王 is kind id 20, typed w or 王; it is not one of the 20 ordinary kinds.
    assert WANG == 20 and WANG_COPIES == 2
    assert NUM_KINDS == 20 and NUM_CARDS == 80
    assert name(WANG) == "王" and code(WANG) == "w"
    for text in ("w", "W", "王"):
        assert parse(text) == [WANG]
    assert parse("一w王") == [0, WANG, WANG]
    assert parse("s1, w ,b10") == [0, WANG, 19]
    assert parse([20, 0]) == [WANG, 0]
    assert cards.format([0, WANG, 12]) == "一王叁"
    assert parse(cards.format([WANG, 5, WANG])) == [WANG, 5, WANG]
    assert parse(" ".join(code(k) for k in (WANG, 3))) == [WANG, 3]


def test_wang_has_no_size_colour_or_point_r_wang_1():
    # R-WANG-1: a 王 belongs to no size and no colour.
    assert not is_red(WANG)
    assert not is_big(WANG)
    assert WANG not in RED_KINDS and WANG not in BIG_KINDS and WANG not in SMALL_KINDS
    with pytest.raises(ValueError):
        point(WANG)


def test_at_most_two_wang_r_wang_1():
    assert parse("王王") == [WANG, WANG]
    with pytest.raises(ValueError) as ei:
        parse("王 w 王")
    assert "王" in str(ei.value)
    with pytest.raises(ValueError):
        parse([20, 20, 20])
    # max_copies concerns the ordinary kinds only
    assert parse("王王一一", max_copies=2) == [WANG, WANG, 0, 0]


def test_parse_can_refuse_wang():
    assert parse("一二", wang=False) == [0, 1]
    for bad in ("一王", "w", [20]):
        with pytest.raises(ValueError) as ei:
            parse(bad, wang=False)
        assert "王" in str(ei.value)


def test_counts_of_refuses_wang_split_wang_counts_it():
    # counts stay over the 20 ordinary kinds; the 王 are a separate number.
    with pytest.raises(ValueError) as ei:
        counts_of(parse("一王"))
    assert "split_wang" in str(ei.value)
    with pytest.raises(ValueError):
        counts_of([21])
    counts, n = split_wang(parse("一一王三王"))
    assert len(counts) == NUM_KINDS and n == 2
    assert counts == counts_of([0, 0, 2])
    assert split_wang(parse("一二")) == (counts_of([0, 1]), 0)
    assert split_wang([]) == ([0] * NUM_KINDS, 0)
    with pytest.raises(ValueError):
        split_wang([21])
    assert kinds_of(counts, n) == [0, 0, 2, WANG, WANG]
    assert kinds_of(counts) == [0, 0, 2]
