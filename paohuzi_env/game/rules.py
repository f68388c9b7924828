"""Rule presets (docs/rules.md section 9) as a frozen, validated :class:`Rules` dataclass.

``get_rules("huaihua", zimo_15=False)`` returns a preset with overrides; ``load_rules(path)``
reads the same from a YAML file (``preset: <name>`` plus override keys). Unknown presets,
unknown keys and values of the wrong kind raise ``ValueError`` naming what is allowed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# 名堂 and their fan numbers per scoring family (R-SCORE-2, section 9).
_HUAIHUA_FANS = {
    "天胡": 4, "地胡": 3, "点胡": 3, "红胡": 2, "乌胡": 5,
    "碰碰胡": 4, "十八大": 4, "十六小": 4, "海底胡": 2,
}
_HUAIHUA_468_FANS = {
    "天胡": 8, "地胡": 6, "点胡": 6, "红胡": 4, "乌胡": 8,
    "碰碰胡": 8, "十八大": 8, "十六小": 8, "海底胡": 6,
}
# classic: 天胡 carries no fan of its own; 乌胡 with 对对胡 is 10 together; 海底 with no other
# fan-bearing 名堂 is 1 (see scoring.py).
_CLASSIC_FANS = {"红胡": 2, "点胡": 3, "红乌": 4, "乌胡": 5, "对对胡": 4, "海底": 2}
# zipai: 天胡 multiplies huxi by 4; 耍猴 multiplies the fan total by 6; 海底 is 6 alone or +4;
# the growing fans are capped at 20.
_ZIPAI_FANS = {
    "乌胡": 6, "对对胡": 6, "大字胡": 9, "小字胡": 9, "红乌": 9, "红胡": 4,
    "假点胡": 4, "真点胡": 5, "天胡": 4, "耍猴": 6, "海底": 6, "海底加": 4, "封顶": 20,
}
# hongshanzhang (seed 002's 怀化 table "在红山掌的基础上翻"): 十三红 replaces 红胡; 十八大 and
# 十八小 grow by one per card past 18; no 天胡 or 地胡 (the table names none, D-16).
_HONGSHANZHANG_FANS = {
    "红胡": 2, "十三红": 4, "一点朱": 3, "黑胡": 5,
    "十八大": 3, "十八小": 4, "碰碰胡": 4, "海底": 2,
}
# yongzhou (seed 002's 永州 game with two 王, R-WANG-7): score = tun × colour × way; colour is
# one of 红胡/点朱胡/黑胡 (else 1), way one of 双王吊/单王吊/自摸 (else 1); no other 名堂.
_YONGZHOU_FANS = {"红胡": 2, "点朱胡": 3, "黑胡": 4, "双王吊": 8, "单王吊": 4, "自摸": 2}
FAN_TABLES = {
    "huaihua": _HUAIHUA_FANS, "classic": _CLASSIC_FANS, "zipai": _ZIPAI_FANS,
    "hongshanzhang": _HONGSHANZHANG_FANS, "yongzhou": _YONGZHOU_FANS,
}

SCORING_FAMILIES = ("huaihua", "classic", "zipai", "hongshanzhang", "yongzhou")
FAN_LEVELS = ("none", "basic", "half")
FAN_COMBINES = ("sum", "multiply")
DEALER_RULES = ("winner", "classic")
WANG_COUNTS = (0, 2)
"""Allowed numbers of 王 in the deck (R-WANG-1: none, or the two 王霸 of ``yongzhou``)."""
CHOU_RULES = ("any", "chi")
RENAMED_KEYS = {"discards_claimable": "chi_on_discard"}
"""Rule keys of earlier versions and the key that replaced each (R-FLOW-4 was corrected: in
``zipai`` 碰 and 跑 do take discards; only 吃 does not)."""


@dataclass(frozen=True)
class Rules:
    """One rule set. Every field is a switch or number of docs/rules.md; presets fill them in.

    Attributes:
        name: the preset this was built from.
        scoring: 名堂 family, ``huaihua`` | ``classic`` | ``zipai`` | ``hongshanzhang``
            (section 9) | ``yongzhou`` (section 10, R-WANG-7; needs ``wang=2``).
        fans: fan numbers of the family's 名堂, as sorted ``(name, fan)`` pairs.
        fan_level: ``classic`` only: ``none`` | ``basic`` | ``half``.
        fan_combine: ``sum`` of the fans, or their product (``multiply``, seed 002 番上番;
            ``yongzhou`` multiplies colour by way, R-WANG-7).
        min_huxi: the least huxi of any win (R-WIN-3).
        pinghu_min_huxi: the least huxi of a win with no 名堂 and no 自摸 exception.
        zimo_15: a 自摸 with ``min_huxi`` wins even without a 名堂 (huaihua option).
        zimo_tun: 自摸 adds one tun (R-WIN-4, R-SCORE-1).
        tianhu_is_zimo: a 天胡 counts as 自摸 (classic; seed 000 "天胡为自摸").
        win_on_own_ti_wei: a player may win on a card it 提'd or 偎'd itself (R-FLOW-2).
        hu_on_discard: players may win on a discard (R-FLOW-4.1; 捉炮).
        chi_on_discard: 吃 may take a discard (R-FLOW-4.3; off in zipai, whose 吃 takes only
            drawn cards; 碰 and 跑 take discards in every preset).
        chou_rule: what makes a kind 臭 (R-CHOU-1): ``any`` (one's own discard, or passing a
            claim that offered 吃 or 碰) or ``chi`` (zipai: only passing a claim that offered 吃).
        chou_blocks_peng: 臭 blocks 碰 as well as 吃 (R-CHOU-2).
        chou_when_chi_blocked: R-CHOU-4 (seed 001).
        dealer_rule: ``winner`` (winner deals, after 荒庄 the next player) or ``classic``
            (winner deals, after 荒庄 the dealer stays; after three in a row the next deals).
        wang: number of 王 in the deck, 0 or 2 (R-WANG-1); 2 exactly with the ``yongzhou``
            family.
    """

    name: str = "huaihua"
    scoring: str = "huaihua"
    fans: tuple[tuple[str, int], ...] = field(
        default_factory=lambda: tuple(sorted(_HUAIHUA_FANS.items()))
    )
    fan_level: str = "half"
    fan_combine: str = "sum"
    min_huxi: int = 15
    pinghu_min_huxi: int = 18
    zimo_15: bool = True
    zimo_tun: bool = True
    tianhu_is_zimo: bool = False
    win_on_own_ti_wei: bool = False
    hu_on_discard: bool = False
    chi_on_discard: bool = True
    chou_rule: str = "any"
    chou_blocks_peng: bool = True
    chou_when_chi_blocked: bool = True
    dealer_rule: str = "winner"
    wang: int = 0

    def __post_init__(self) -> None:
        _validate(self)

    def fan(self, name: str) -> int:
        """The fan number of one 名堂 of this rule set's family."""
        for n, f in self.fans:
            if n == name:
                return f
        raise KeyError(f"{name} is not a 名堂 of the {self.scoring} family")

    def overrides(self) -> dict[str, Any]:
        """The fields that differ from the named preset (JSON-friendly)."""
        base = PRESETS[self.name]
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "name":
                continue
            mine, theirs = getattr(self, f.name), getattr(base, f.name)
            if mine != theirs:
                out[f.name] = dict(mine) if f.name == "fans" else mine
        return out

    def to_record(self) -> dict[str, Any]:
        """The rules record every file of this project stores (hand records, checkpoints and
        their sidecars, labels): ``{"name": preset, "overrides": {field: value}}``, the fields
        that differ from the preset (JSON-friendly). :func:`rules_from_record` reads it back."""
        return {"name": self.name, "overrides": self.overrides()}


_FIELD_TYPES: dict[str, type] = {
    "name": str, "scoring": str, "fan_level": str, "fan_combine": str, "dealer_rule": str,
    "min_huxi": int, "pinghu_min_huxi": int, "wang": int,
    "zimo_15": bool, "zimo_tun": bool, "tianhu_is_zimo": bool, "win_on_own_ti_wei": bool,
    "hu_on_discard": bool, "chi_on_discard": bool, "chou_rule": str, "chou_blocks_peng": bool,
    "chou_when_chi_blocked": bool,
}


def _validate(r: Rules) -> None:
    for key, typ in _FIELD_TYPES.items():
        value = getattr(r, key)
        if typ is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"rule {key!r} must be an int, got {value!r}")
        if typ is not int and not isinstance(value, typ):
            raise ValueError(f"rule {key!r} must be a {typ.__name__}, got {value!r}")
    for key, allowed in (
        ("scoring", SCORING_FAMILIES), ("fan_level", FAN_LEVELS),
        ("fan_combine", FAN_COMBINES), ("dealer_rule", DEALER_RULES),
        ("chou_rule", CHOU_RULES),
    ):
        if getattr(r, key) not in allowed:
            raise ValueError(f"rule {key!r} must be one of {allowed}, got {getattr(r, key)!r}")
    if r.wang not in WANG_COUNTS:
        raise ValueError(f"rule 'wang' (王 in the deck) must be one of {WANG_COUNTS}, got {r.wang!r}")
    if (r.scoring == "yongzhou") != (r.wang == 2):
        raise ValueError(
            "the yongzhou scoring family and a deck with two 王 go together (R-WANG-1, R-WANG-7): "
            f"got scoring={r.scoring!r} with wang={r.wang}; set both scoring='yongzhou' and wang=2, "
            "or neither"
        )
    if not 0 <= r.min_huxi <= r.pinghu_min_huxi:
        raise ValueError(
            f"need 0 <= min_huxi <= pinghu_min_huxi, got {r.min_huxi} and {r.pinghu_min_huxi}"
        )
    names = FAN_TABLES[r.scoring]
    got = dict(r.fans)
    if set(got) != set(names):
        raise ValueError(
            f"fans of the {r.scoring} family must name exactly {sorted(names)}, got {sorted(got)}"
        )
    for n, f in got.items():
        if isinstance(f, bool) or not isinstance(f, int) or f < 0:
            raise ValueError(f"fan of {n} must be a non-negative int, got {f!r}")


def _preset(name: str, scoring: str, fans: Mapping[str, int], **kw: Any) -> Rules:
    return Rules(name=name, scoring=scoring, fans=tuple(sorted(fans.items())), **kw)


PRESETS: dict[str, Rules] = {
    # 怀化 (seed 000) scored as 红拐弯 "234" (seed 001).
    "huaihua": _preset("huaihua", "huaihua", _HUAIHUA_FANS),
    # 红拐弯 "468" (seed 001).
    "huaihua-468": _preset("huaihua-468", "huaihua", _HUAIHUA_468_FANS),
    # seeds 000, 002, 004; seed 000's dealer rule; no 地胡; 天胡 counts as 自摸.
    "classic": _preset(
        "classic", "classic", _CLASSIC_FANS, pinghu_min_huxi=15, tianhu_is_zimo=True,
        chou_when_chi_blocked=False, dealer_rule="classic",
    ),
    # seed 003: 吃 only on drawn cards (碰 and 跑 take discards too); 臭 only from a passed 吃,
    # and it blocks only 吃; the rest as huaihua, except that 15 huxi suffice for any win (the
    # seed names no 平胡 minimum of its own).
    "zipai": _preset(
        "zipai", "zipai", _ZIPAI_FANS, pinghu_min_huxi=15, chi_on_discard=False,
        chou_rule="chi", chou_blocks_peng=False,
    ),
    # seed 002's other 怀化 table (红山掌): everything as huaihua but the 名堂 and their fans.
    "hongshanzhang": _preset("hongshanzhang", "hongshanzhang", _HONGSHANZHANG_FANS),
    # seed 002's 永州 game with two 王 (docs/rules.md section 10): as huaihua except 82 cards, min 15
    # huxi with no 平胡 threshold, the 自摸 tun replaced by the way factor, colour × way
    # multiplied, and 天胡 counting as 自摸 (R-WANG-7, seed 002 "天胡为自摸").
    "yongzhou": _preset(
        "yongzhou", "yongzhou", _YONGZHOU_FANS, wang=2, min_huxi=15, pinghu_min_huxi=15,
        zimo_tun=False, tianhu_is_zimo=True, fan_combine="multiply",
    ),
}
YONGZHOU = PRESETS["yongzhou"]


def preset_names() -> tuple[str, ...]:
    """Names of the shipped presets."""
    return tuple(PRESETS)


def get_rules(name: str | Rules = "huaihua", **overrides: Any) -> Rules:
    """A preset, optionally with overrides.

    Args:
        name: a preset name (``huaihua``, ``huaihua-468``, ``classic``, ``zipai``,
            ``hongshanzhang``) or a :class:`Rules` to start from.
        **overrides: field values to replace; ``fans`` may be a mapping of only the fans to
            change.

    Raises:
        ValueError: on an unknown preset or key, or an invalid value.
    """
    if isinstance(name, Rules):
        base = name
    else:
        if name not in PRESETS:
            raise ValueError(f"unknown rules preset {name!r}; valid presets: {preset_names()}")
        base = PRESETS[name]
    if not overrides:
        return base
    valid = [f.name for f in dataclasses.fields(Rules) if f.name != "name"]
    renamed = sorted(set(overrides) & set(RENAMED_KEYS))
    if renamed:
        raise ValueError(
            "; ".join(f"rule key {k!r} was replaced by {RENAMED_KEYS[k]!r}" for k in renamed)
            + " (R-FLOW-4: 碰 and 跑 take discards in every preset; chi_on_discard: false closes "
            "discards to 吃 only)"
        )
    unknown = sorted(set(overrides) - set(valid))
    if unknown:
        raise ValueError(f"unknown rule key(s) {unknown}; valid keys: {valid}")
    if "fans" in overrides:
        fans = overrides["fans"]
        if not isinstance(fans, Mapping):
            fans = dict(fans)
        family = overrides.get("scoring", base.scoring)
        merged = dict(FAN_TABLES[family]) if family != base.scoring else dict(base.fans)
        bad = sorted(set(fans) - set(merged))
        if bad:
            raise ValueError(
                f"unknown 名堂 {bad} in fans; the {family} family has {sorted(merged)}"
            )
        merged.update(fans)
        overrides = {**overrides, "fans": tuple(sorted(merged.items()))}
    elif "scoring" in overrides and overrides["scoring"] != base.scoring:
        if overrides["scoring"] not in FAN_TABLES:
            raise ValueError(
                f"rule 'scoring' must be one of {SCORING_FAMILIES}, got {overrides['scoring']!r}"
            )
        overrides = {**overrides, "fans": tuple(sorted(FAN_TABLES[overrides["scoring"]].items()))}
    return dataclasses.replace(base, **overrides)


def rules_from_record(record: Any) -> Rules:
    """The :class:`Rules` of a rules record (:meth:`Rules.to_record`): the preset ``name`` with
    its ``overrides`` (absent or null: none).

    Raises:
        ValueError: for something that is not a rules record, an unknown preset or a bad
            override (naming what is allowed).
    """
    if not isinstance(record, Mapping) or not isinstance(record.get("name"), str):
        raise ValueError(f"a rules record is {{'name': <preset>, 'overrides': {{...}}}}, got {record!r}")
    overrides = record.get("overrides") or {}
    if not isinstance(overrides, Mapping):
        raise ValueError(f"a rules record's overrides are a mapping of field -> value, got {overrides!r}")
    return get_rules(record["name"], **overrides)


def rules_of_file(data: Mapping[str, Any]) -> Rules:
    """The rules a stored file (a checkpoint, a sidecar, a label run's meta) was made under:
    its ``rules`` record, else its ``config``'s ``rules`` preset with ``rules_overrides`` (files
    written before the record), else the default preset.

    Raises:
        ValueError: if those rules are unknown to this version of paohuzi_env.
    """
    if isinstance(data.get("rules"), Mapping) and "name" in data["rules"]:
        return rules_from_record(data["rules"])
    config = data.get("config")
    if isinstance(config, Mapping) and isinstance(config.get("rules"), str):
        return rules_from_record({"name": config["rules"], "overrides": config.get("rules_overrides")})
    return get_rules()


def as_rules(rules: str | Rules) -> Rules:
    """Accept a preset name or a Rules."""
    return rules if isinstance(rules, Rules) else get_rules(rules)


def load_rules(path: str | Path) -> Rules:
    """Read a YAML rules file: ``preset: <name>`` (default huaihua) plus override keys.

    Raises:
        ValueError: for a file that is not a mapping, or any error :func:`get_rules` raises.
    """
    import yaml

    text = Path(path).read_text(encoding="utf-8")
    data = yaml.safe_load(text) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a rules file must be a YAML mapping, got {type(data).__name__}")
    data = dict(data)
    preset = data.pop("preset", "huaihua")
    try:
        # 'name' (get_rules' own parameter) and non-string keys would be TypeErrors.
        bad = [k for k in data if not isinstance(k, str) or k == "name"]
        if bad:
            raise ValueError(
                f"unknown rule key(s) {bad} (choose the preset with 'preset'); valid keys: "
                f"{[f.name for f in dataclasses.fields(Rules) if f.name != 'name']}"
            )
        return get_rules(preset, **data)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
