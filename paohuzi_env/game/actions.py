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
"比 with this group" (R-CHI-1, R-CHI-2). Their order is that of the one group table,
:data:`paohuzi_env.game.groups.CHI_GROUPS`.
"""

from __future__ import annotations

from functools import lru_cache

from .cards import NUM_KINDS
from .cards import format as fmt
from .groups import CHI_GROUPS

DISCARD_BASE = 0
GROUP_BASE = DISCARD_BASE + NUM_KINDS  # 20
GROUPS = CHI_GROUPS
"""GROUPS[a - GROUP_BASE]: the sorted kinds of group action a (the one table is
:data:`paohuzi_env.game.groups.CHI_GROUPS`)."""
NUM_GROUPS = len(GROUPS)  # 38
PENG = GROUP_BASE + NUM_GROUPS  # 58
HU = PENG + 1  # 59
PASS = HU + 1  # 60
NUM_ACTIONS = PASS + 1  # 61

GROUP_ID: dict[tuple[int, ...], int] = {g: GROUP_BASE + i for i, g in enumerate(GROUPS)}
"""Sorted kind triple -> action id."""

GROUPS_WITH = tuple(
    tuple(GROUP_BASE + i for i, g in enumerate(GROUPS) if k in g) for k in range(NUM_KINDS)
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
