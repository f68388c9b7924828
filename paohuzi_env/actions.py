"""The action catalogue: 61 fixed action ids shared by the engine, the env and the agents.

====== ==========================================================================
ids    meaning
====== ==========================================================================
0–19   DISCARD card kind k (0–9 一..十, 10–19 壹..拾)
20–27  group: small sequence starting at point 1..8 (一二三 … 八九十)
28–35  group: big sequence starting at point 1..8 (壹贰叁 … 捌玖拾)
36     group: small 二七十
37     group: big 贰柒拾
38–47  group: 绞, two small + one big, point 1..10 (一一壹 … 十十拾)
48–57  group: 绞, one small + two big, point 1..10 (一壹壹 … 十拾拾)
58     PENG (碰)
59     HU (胡)
60     PASS (过): declines an HU offer (臭胡), a claim (臭, 忍碰), or cancels a 比 chain
====== ==========================================================================

Ids 20–57 name a group: in a ``claim`` decision "吃 with this group", in a ``bi`` decision
"比 with this group" (R-CHI-1, R-CHI-2).
"""

from __future__ import annotations

from functools import lru_cache

from .cards import format as fmt

NUM_ACTIONS = 61
DISCARD_BASE = 0
GROUP_BASE = 20
NUM_GROUPS = 38
PENG = 58
HU = 59
PASS = 60


def _build_groups() -> tuple[tuple[int, int, int], ...]:
    groups: list[tuple[int, int, int]] = []
    for base in (0, 10):
        for start in range(8):
            groups.append((base + start, base + start + 1, base + start + 2))
    groups.append((1, 6, 9))
    groups.append((11, 16, 19))
    groups.extend((p, p, p + 10) for p in range(10))
    groups.extend((p, p + 10, p + 10) for p in range(10))
    return tuple(groups)


GROUPS = _build_groups()
"""GROUPS[a - GROUP_BASE]: the sorted kinds of group action a."""
GROUP_ID = {g: GROUP_BASE + i for i, g in enumerate(GROUPS)}
"""Sorted kind triple -> action id."""

GROUPS_WITH = tuple(
    tuple(GROUP_BASE + i for i, g in enumerate(GROUPS) if k in g) for k in range(20)
)
"""GROUPS_WITH[k]: the group action ids that contain kind k."""


def is_group(action: int) -> bool:
    """True for the group ids 20–57."""
    return GROUP_BASE <= action < GROUP_BASE + NUM_GROUPS


def group_cards(action: int) -> tuple[int, int, int]:
    """The kinds of a group action."""
    return GROUPS[action - GROUP_BASE]


@lru_cache(maxsize=512)
def action_name(action: int, decision: str | None = None) -> str:
    """A readable name, e.g. ``打 三``, ``吃 一二三``, ``比 二二贰``, ``碰``, ``胡``, ``过``."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be 0..{NUM_ACTIONS - 1}, got {action}")
    if action < GROUP_BASE:
        return f"打 {fmt([action])}"
    if action < PENG:
        verb = "比" if decision == "bi" else "吃"
        return f"{verb} {fmt(group_cards(action))}"
    return {PENG: "碰", HU: "胡", PASS: "过"}[action]
