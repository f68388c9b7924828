"""``paohuzi play``: you against two bots in the terminal.

Each hand shows your hand grouped (坎, pairs, singles), every seat's table groups and discard
area, the wall count and huxi, and offers the legal moves as numbered choices with readable
names (each 吃 group and 比 step; 过 declines a claim — for a 碰 that is 忍碰). After a hand it
explains the end and the score with its 名堂, keeps a running total over hands with the preset's
dealer rule, shows your rank title on seed 002's ladder, and saves the hand as a replayable
record (``Game.replay``). Bad input asks again; Ctrl-C or ``q`` leaves cleanly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .actions import action_name
from .agents import make_agent
from .backend import game_class
from .engine import next_dealer
from .groups import group_huxi
from .render import describe_events, render_text
from .rules import as_rules

# Seed 002's ladder (积分 → 等级). Its last two rungs have no number there; Decision: they
# continue the ladder's last ratio (×1.5): 丞相 from 103,500, 帝王 from 155,250.
RANKS = (
    (155250, "帝王"), (103500, "丞相"), (69000, "巡抚"), (46000, "总督"), (32200, "知府"),
    (23000, "通判"), (17700, "知县"), (12600, "大地主"), (9200, "小地主"), (6900, "大财主"),
    (5000, "小财主"), (3450, "衙役"), (2300, "商人"), (1600, "掌柜"), (1150, "富农"),
    (840, "中农"), (530, "猎人"), (320, "渔夫"), (180, "贫农"), (90, "佃户"), (60, "长工"),
    (30, "短工"),
)


def rank_title(points: int) -> str:
    """The ladder title of a running total (包身工 below 30)."""
    for floor, title in RANKS:
        if points >= floor:
            return title
    return "包身工"


class Quit(Exception):
    """The player asked to stop."""


def _ask(game: Any, seat: int, read: Callable[[str], str], write: Callable[[str], None]) -> int:
    legal = game.legal_actions()
    choices = {str(i + 1): a for i, a in enumerate(legal)}
    menu = "  ".join(f"[{i}] {action_name(a, game.decision)}" for i, a in
                     ((k, choices[k]) for k in choices))
    while True:
        write(menu)
        text = read("你的选择 (number, q to quit): ").strip()
        if text.lower() in ("q", "quit", "exit"):
            raise Quit
        if text in choices:
            return choices[text]
        write(f"'{text}' is not one of the choices 1..{len(choices)}; try again.")


def play(
    opponents: tuple[str, str] = ("expert", "expert"),
    rules="huaihua",
    seed: int = 0,
    hands: int | None = None,
    records: str | Path | None = "paohuzi-records",
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    backend: str | None = None,
) -> int:
    """Play hands until ``hands`` are done or the player quits; returns the running total.
    ``backend``: ``auto`` | ``fast`` | ``python`` (:mod:`paohuzi_env.backend`)."""
    rules = as_rules(rules)
    game_cls = game_class(backend)
    ss = np.random.SeedSequence(seed)
    you = 0
    total = 0
    dealer = int(np.random.default_rng(ss.spawn(1)[0]).integers(3))
    streak = 0
    record_dir = Path(records) if records else None
    if record_dir:
        record_dir.mkdir(parents=True, exist_ok=True)
    n = 0
    try:
        while hands is None or n < hands:
            deal_ss, bot_ss = ss.spawn(2)
            game = game_cls(rules, dealer=dealer, seed=deal_ss)
            bots = {s: make_agent(opponents[i], seed=b, rules=rules)
                    for i, (s, b) in enumerate(zip((1, 2), bot_ss.spawn(2)))}
            write(f"\n===== 第 {n + 1} 局  ({rules.name}, 庄家 座{game.dealer}) =====")
            while not game.done:
                s = game.current_player
                assert s is not None
                if s == you:
                    write("")
                    write(render_text(game, you))
                    huxi = sum(group_huxi(t, c) for t, c in game.melds[you])
                    write(f"桌面胡息 {huxi}")
                    game.step(_ask(game, you, read, write))
                else:
                    game.step(bots[s](game.view(s)))
            write("")
            write(describe_events(game))
            r = game.result
            assert r is not None
            total += r.scores[you]
            n += 1
            write(f"本局 {r.scores[you]:+d} 分, 累计 {total:+d} 分 — {rank_title(total)}")
            if record_dir:
                path = record_dir / f"hand-{seed}-{n:03d}.json"
                path.write_text(json.dumps(game.record(), ensure_ascii=False), encoding="utf-8")
                write(f"记录已保存: {path}")
            dealer, streak = next_dealer(rules, game.dealer, r.winner, streak)
    except (Quit, KeyboardInterrupt, EOFError):
        write(f"\n再见! 共 {n} 局, 累计 {total:+d} 分 — {rank_title(total)}")
    return total
