"""Rule presets (docs/rules.md section 9), overrides and YAML rule files."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from paohuzi_env import Rules, get_rules, load_rules
from paohuzi_env.game.rules import FAN_TABLES, PRESETS, SCORING_FAMILIES, YONGZHOU, preset_names

CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "rules"

NO_WANG = ("huaihua", "huaihua-468", "classic", "zipai", "hongshanzhang")
PRESET_NAMES = (*NO_WANG, "yongzhou")


def test_presets_exist():
    assert set(preset_names()) == set(PRESET_NAMES)
    for n in PRESET_NAMES:
        r = get_rules(n)
        assert isinstance(r, Rules)
        assert r.name == n
        assert r is PRESETS[n]


def test_default_is_huaihua():
    # Section 9: `huaihua` is the default preset.
    assert get_rules() == get_rules("huaihua")
    assert Rules() == get_rules("huaihua")


@pytest.mark.parametrize("n", NO_WANG)
def test_common_switches(n):
    r = get_rules(n)
    # R-WIN-3 / R-SCORE-1: every preset needs 15 huxi; tun counts from 15.
    assert r.min_huxi == 15
    # R-FLOW-2: `win_on_own_ti_wei` is off in every preset.
    assert r.win_on_own_ti_wei is False
    # R-FLOW-4.1: no winning on a discard (不抓炮) in any implemented preset.
    assert r.hu_on_discard is False
    # R-WIN-4 / R-SCORE-1: 自摸 adds a tun in every preset (huaihua: default on; classic;
    # zipai inherits it).
    assert r.zimo_tun is True
    # R-SCORE-2: fans are added unless a rule file asks for 番上番.
    assert r.fan_combine == "sum"


def test_huaihua_values():
    r = get_rules("huaihua")
    # section 9 huaihua: >=18 as 平胡, >=15 with a 名堂 or as 自摸 (zimo_15 default on).
    assert r.scoring == "huaihua"
    assert r.pinghu_min_huxi == 18
    assert r.zimo_15 is True
    # 天胡 does not count as 自摸 (seed 001 "天胡不算自摸").
    assert r.tianhu_is_zimo is False
    # `chou_when_chi_blocked` on; the winner deals next, after 荒庄 the next player.
    assert r.chou_when_chi_blocked is True
    assert r.dealer_rule == "winner"
    assert r.chi_on_discard is True and r.chou_rule == "any"
    assert r.chou_blocks_peng is True
    assert dict(r.fans) == {
        "天胡": 4, "地胡": 3, "点胡": 3, "红胡": 2, "乌胡": 5,
        "碰碰胡": 4, "十八大": 4, "十六小": 4, "海底胡": 2,
    }


def test_huaihua_468_values():
    r = get_rules("huaihua-468")
    base = get_rules("huaihua")
    # section 9: "as `huaihua`" except the fans.
    assert r.scoring == "huaihua"
    for f in dataclasses.fields(Rules):
        if f.name not in ("name", "fans"):
            assert getattr(r, f.name) == getattr(base, f.name), f.name
    # 天胡 8, 地胡 6, 点胡 6, 红胡 4+n, 乌胡 8, 碰碰胡 8, 十八大 8+n, 十六小 8+n, 海底胡 6.
    assert dict(r.fans) == {
        "天胡": 8, "地胡": 6, "点胡": 6, "红胡": 4, "乌胡": 8,
        "碰碰胡": 8, "十八大": 8, "十六小": 8, "海底胡": 6,
    }


def test_classic_values():
    r = get_rules("classic")
    assert r.scoring == "classic"
    # classic: >=15 huxi for any win; 自摸 +1 tun; 天胡 counts as 自摸 (seed 000 "天胡为自摸").
    assert r.pinghu_min_huxi == 15
    assert r.tianhu_is_zimo is True
    # fan level switch, default `half`.
    assert r.fan_level == "half"
    # after a 荒庄 the dealer stays, after three in a row its next player deals.
    assert r.dealer_rule == "classic"
    assert r.chi_on_discard is True and r.chou_rule == "any"
    assert r.chou_blocks_peng is True
    # basic: 红胡 2, 点胡 3, 红乌 4, 乌胡 5; half adds 对对胡 4 and 海底 2. No 地胡.
    assert dict(r.fans) == {"红胡": 2, "点胡": 3, "红乌": 4, "乌胡": 5, "对对胡": 4, "海底": 2}
    with pytest.raises(KeyError):
        r.fan("地胡")


def test_zipai_values():
    r = get_rules("zipai")
    assert r.scoring == "zipai"
    # seed 003 (R-FLOW-4, R-CHOU-1): 吃 only on drawn cards (碰/跑 take discards too); 臭 only
    # from a passed 吃, and it blocks only 吃.
    assert r.chi_on_discard is False and r.chou_rule == "chi"
    assert r.chou_blocks_peng is False
    # inherited from huaihua: min 15 huxi (and, the seed naming no 平胡 minimum, 15 for 平胡),
    # the tun formula, 自摸 +1 tun, the dealer rule.
    assert r.pinghu_min_huxi == 15
    assert r.dealer_rule == "winner"
    fans = dict(r.fans)
    assert fans["乌胡"] == 6
    assert fans["对对胡"] == 6
    assert fans["大字胡"] == 9
    assert fans["小字胡"] == 9
    assert fans["红乌"] == 9
    assert fans["红胡"] == 4
    assert fans["假点胡"] == 4
    assert fans["真点胡"] == 5
    assert fans["天胡"] == 4  # huxi x4 before tun
    assert fans["耍猴"] == 6  # fan total x6
    assert fans["海底"] == 6  # alone
    assert fans["海底加"] == 4  # with another fan-bearing 名堂
    assert fans["封顶"] == 20  # growing fans at most 20


def test_hongshanzhang_values():
    r = get_rules("hongshanzhang")
    base = get_rules("huaihua")
    # section 9: "as `huaihua`" (min 15, 平胡 18, zimo_15, 自摸 +1 tun, dealer rule) with the
    # 红山掌 名堂 of seed 002; no 天胡 or 地胡 fan (D-16).
    assert r.scoring == "hongshanzhang"
    for f in dataclasses.fields(Rules):
        if f.name not in ("name", "scoring", "fans"):
            assert getattr(r, f.name) == getattr(base, f.name), f.name
    assert dict(r.fans) == {
        "红胡": 2, "十三红": 4, "一点朱": 3, "黑胡": 5,
        "十八大": 3, "十八小": 4, "碰碰胡": 4, "海底": 2,
    }
    for n in ("天胡", "地胡"):
        with pytest.raises(KeyError):
            r.fan(n)


def test_yongzhou_values():
    # docs/rules.md section 10: as huaihua except what R-WANG-1..8 say.
    r = YONGZHOU
    base = get_rules("huaihua")
    assert r.name == "yongzhou" and r.scoring == "yongzhou"
    assert "yongzhou" in SCORING_FAMILIES
    # R-WANG-1: two 王 in the deck.
    assert r.wang == 2 and base.wang == 0
    # R-WANG-7: min 15 huxi, no 平胡 threshold; the 自摸 tun is replaced by the way factor,
    # colour x way multiplied; 天胡 counts as 自摸 (seed 002 "天胡为自摸").
    assert (r.min_huxi, r.pinghu_min_huxi) == (15, 15)
    assert r.zimo_tun is False
    assert r.fan_combine == "multiply"
    assert r.tianhu_is_zimo is True
    differ = {"name", "scoring", "fans", "wang", "pinghu_min_huxi", "zimo_tun", "fan_combine",
              "tianhu_is_zimo"}
    for f in dataclasses.fields(Rules):
        if f.name not in differ:
            assert getattr(r, f.name) == getattr(base, f.name), f.name
    assert dict(r.fans) == FAN_TABLES["yongzhou"] == {
        "红胡": 2, "点朱胡": 3, "黑胡": 4, "双王吊": 8, "单王吊": 4, "自摸": 2,
    }
    assert r.overrides() == {}
    assert get_rules(r, min_huxi=12).overrides() == {"min_huxi": 12}
    assert get_rules(r) is r


@pytest.mark.parametrize("n", NO_WANG)
def test_presets_without_wang(n):
    assert get_rules(n).wang == 0


@pytest.mark.parametrize(
    "base, kw, needle",
    [
        ("huaihua", {"wang": 1}, "wang"),
        ("huaihua", {"wang": 4}, "wang"),
        ("huaihua", {"wang": True}, "wang"),
        ("huaihua", {"wang": "2"}, "wang"),
        # the family and the 王 go together, both ways
        ("huaihua", {"wang": 2}, "yongzhou"),
        ("huaihua", {"scoring": "yongzhou"}, "wang=2"),
        (YONGZHOU, {"wang": 0}, "yongzhou"),
        (YONGZHOU, {"scoring": "huaihua"}, "wang=2"),
    ],
)
def test_wang_validation(base, kw, needle):
    with pytest.raises(ValueError) as ei:
        get_rules(base, **kw)
    assert needle in str(ei.value)


def test_wang_family_switch_both_ways():
    r = get_rules("huaihua", scoring="yongzhou", wang=2)
    assert r.scoring == "yongzhou" and dict(r.fans) == FAN_TABLES["yongzhou"]
    back = get_rules(YONGZHOU, scoring="huaihua", wang=0)
    assert dict(back.fans) == FAN_TABLES["huaihua"]


def test_rules_are_frozen_and_hashable():
    r = get_rules("huaihua")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.min_huxi = 10  # type: ignore[misc]
    assert hash(r) == hash(get_rules("huaihua"))


# ----------------------------------------------------------------------------- overrides


def test_override_switch():
    r = get_rules("huaihua", zimo_15=False)
    assert r.zimo_15 is False
    assert r.name == "huaihua"
    assert r.pinghu_min_huxi == 18
    assert r.overrides() == {"zimo_15": False}
    # the preset itself is unchanged
    assert get_rules("huaihua").zimo_15 is True
    assert get_rules("huaihua").overrides() == {}


def test_override_from_a_rules_object():
    base = get_rules("classic", fan_level="basic")
    r = get_rules(base, fan_combine="multiply")
    assert r.fan_level == "basic" and r.fan_combine == "multiply" and r.name == "classic"
    assert r.overrides() == {"fan_level": "basic", "fan_combine": "multiply"}
    assert get_rules(base) is base


def test_override_numbers():
    r = get_rules("huaihua", min_huxi=0, pinghu_min_huxi=0)
    assert (r.min_huxi, r.pinghu_min_huxi) == (0, 0)


def test_fans_override_merges():
    r = get_rules("huaihua", fans={"海底胡": 3})
    assert r.fan("海底胡") == 3
    assert r.fan("乌胡") == 5
    assert dict(r.fans) == {**dict(get_rules("huaihua").fans), "海底胡": 3}
    assert r.overrides() == {"fans": dict(r.fans)}
    # pairs are accepted as well as a mapping
    assert get_rules("zipai", fans=[("封顶", 10)]).fan("封顶") == 10


def test_fans_override_unknown_name():
    with pytest.raises(ValueError) as ei:
        get_rules("huaihua", fans={"十三红": 4})
    assert "十三红" in str(ei.value)
    # a 名堂 of another family is unknown here too
    with pytest.raises(ValueError):
        get_rules("classic", fans={"碰碰胡": 4})


def test_scoring_family_override_takes_its_fans():
    r = get_rules("huaihua", scoring="classic")
    assert dict(r.fans) == dict(get_rules("classic").fans)
    with pytest.raises(ValueError):
        get_rules("huaihua", scoring="sichuan")


def test_unknown_preset_lists_valid_ones():
    with pytest.raises(ValueError) as ei:
        get_rules("sichuan")
    msg = str(ei.value)
    assert "sichuan" in msg
    for n in PRESET_NAMES:
        assert n in msg


def test_unknown_key_lists_valid_ones():
    with pytest.raises(ValueError) as ei:
        get_rules("huaihua", zimo15=False)
    msg = str(ei.value)
    assert "zimo15" in msg
    for key in ("zimo_15", "min_huxi", "fan_combine", "fans"):
        assert key in msg


@pytest.mark.parametrize(
    "kw",
    [
        {"min_huxi": "15"},
        {"min_huxi": True},
        {"min_huxi": -1},
        {"min_huxi": 20, "pinghu_min_huxi": 18},  # min above the 平胡 minimum
        {"zimo_15": "yes"},
        {"zimo_15": 1},
        {"fan_level": "full"},  # 全花样 is named by the seeds but never defined
        {"fan_combine": "product"},
        {"dealer_rule": "random"},
        {"fans": {"乌胡": -1}},
        {"fans": {"乌胡": 2.5}},
        {"fans": {"乌胡": True}},
    ],
)
def test_bad_values_raise(kw):
    with pytest.raises(ValueError):
        get_rules("huaihua", **kw)


def test_name_is_not_an_override_in_a_file(tmp_path):
    # `name` is get_rules' own parameter, not a rule key: a rule file naming it (or using a
    # non-string key) must still raise ValueError, not TypeError.
    for text in ("preset: huaihua\nname: classic\n", "preset: huaihua\n1: 2\n"):
        f = tmp_path / "named.yaml"
        f.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError) as ei:
            load_rules(f)
        assert "named.yaml" in str(ei.value)
        assert "zimo_15" in str(ei.value)  # the valid keys are listed


# ----------------------------------------------------------------------------- YAML files


def test_shipped_rule_files_load():
    files = sorted(CONFIGS.glob("*.yaml"))
    assert len(files) >= 3
    for f in files:
        assert isinstance(load_rules(f), Rules)


def test_load_huaihua_no_zimo15():
    r = load_rules(CONFIGS / "huaihua-no-zimo15.yaml")
    assert r == get_rules("huaihua", zimo_15=False)


def test_load_classic_basic():
    r = load_rules(str(CONFIGS / "classic-basic.yaml"))
    assert r == get_rules("classic", fan_level="basic")


def test_load_huaihua_multiply():
    r = load_rules(CONFIGS / "huaihua-multiply.yaml")
    assert r.fan_combine == "multiply"
    assert r.fan("海底胡") == 3
    assert r.fan("乌胡") == 5
    assert r == get_rules("huaihua", fan_combine="multiply", fans={"海底胡": 3})


def test_load_defaults_to_huaihua(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    assert load_rules(empty) == get_rules("huaihua")
    only = tmp_path / "only.yaml"
    only.write_text("zimo_tun: false\n", encoding="utf-8")
    assert load_rules(only) == get_rules("huaihua", zimo_tun=False)


@pytest.mark.parametrize(
    "text, needle",
    [
        ("- huaihua\n- classic\n", "mapping"),
        ("just a string\n", "mapping"),
        ("preset: nowhere\n", "nowhere"),
        ("preset: huaihua\nzimo_fifteen: false\n", "zimo_fifteen"),
        ("preset: classic\nfan_level: full\n", "fan_level"),
        ("preset: huaihua\nmin_huxi: fifteen\n", "min_huxi"),
        ("preset: huaihua\nfans:\n  黑胡: 5\n", "黑胡"),
    ],
)
def test_bad_rule_files_raise(tmp_path, text, needle):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as ei:
        load_rules(bad)
    msg = str(ei.value)
    assert needle in msg
    assert "bad.yaml" in msg


def test_renamed_key_discards_claimable_names_its_replacement(tmp_path):
    # R-FLOW-4 was corrected: the old switch closed discards to every claim; its successor
    # `chi_on_discard` closes them to 吃 only. Old configs get an error naming the new key.
    with pytest.raises(ValueError, match="'discards_claimable' was replaced by 'chi_on_discard'"):
        get_rules("huaihua", discards_claimable=False)
    path = tmp_path / "old.yaml"
    path.write_text("preset: zipai\ndiscards_claimable: false\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"old\.yaml: .*replaced by 'chi_on_discard'"):
        load_rules(path)


def test_chou_rule_values_are_checked():
    assert get_rules("huaihua", chou_rule="chi").chou_rule == "chi"
    with pytest.raises(ValueError, match="chou_rule.*one of"):
        get_rules("huaihua", chou_rule="never")
