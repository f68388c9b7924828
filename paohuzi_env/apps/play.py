"""``paohuzi play``: you against two bots in the terminal.

Each hand shows your hand grouped (坎, pairs, singles), every seat's table groups and discard
area, the wall count and huxi, and what the other seats did since your last move (draws, claims,
discards) as it happens. The legal moves are one numbered menu with readable names (each 吃
group and 比 step; 过 declines a claim — for a 碰 that is 忍碰 — and in a 比 chain 过 cancels the
吃). Type the number, or the move itself: a card name to discard it (``九`` or ``s9``), ``碰``,
``胡``, ``过``, or a group (``一二三``). After a hand it explains the end and the score with its
名堂, keeps a running total over hands with the preset's dealer rule, shows your rank title on
seed 002's ladder, saves the hand as a replayable record (``Game.replay``; ``paohuzi replay
FILE --html OUT`` makes a page of it) and waits for Enter before the next hand. Bad input asks
again; Ctrl-C or ``q`` leaves cleanly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..agents import decide, make_agent
from ..backends.select import game_class
from ..display.render import event_text, move_name, render_text, result_text, win_breakdown
from ..game.actions import GROUP_BASE, HU, PASS, PENG, action_name
from ..game.cards import format as fmt
from ..game.cards import parse
from ..game.engine import next_dealer
from ..game.groups import group_huxi
from ..game.rules import as_rules

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


_WORDS = {PENG: ("碰", "p", "peng"), HU: ("胡", "h", "hu"), PASS: ("过", "pass", "忍碰")}


def _match(text: str, legal: list[int], decision: str | None) -> int | None:
    """The legal action that ``text`` names: its menu number is handled by the caller; here a
    card name (discard), 碰/胡/过, or a 吃/比 group's cards (with or without the verb)."""
    t = text.replace(" ", "")
    for a in legal:
        names = (action_name(a, decision), move_name(a, decision, legal))
        if t in (n.replace(" ", "") for n in names) or t.lower() in _WORDS.get(a, ()):
            return a
    for verb in ("打", "吃", "比"):
        t = t.removeprefix(verb)
    try:
        cards = parse(t)
    except ValueError:
        return None
    if len(cards) == 1 and cards[0] in legal and decision == "discard":
        return cards[0]
    for a in legal:
        if GROUP_BASE <= a < PENG and action_name(a, decision).split()[-1] == fmt(sorted(cards)):
            return a
    return None


def _ask(game: Any, seat: int, read: Callable[[str], str], write: Callable[[str], None]) -> int:
    legal = game.legal_actions()
    decision = game.decision
    menu = "  ".join(f"[{i + 1}] {move_name(a, decision, legal)}" for i, a in enumerate(legal))
    hint = {
        "claim": "过 = 不要这张牌" + (" (不碰即忍碰)" if PENG in legal else ""),
        "bi": "比: 这张牌的每一张都要放进一个比组; 过 = 取消这次吃",
        "hu": "胡 or 过", "tianhu": "胡 or 过", "discard": "打一张: 数字或牌名 (九, s9)",
    }[decision]
    while True:
        write(menu)
        text = read(f"你的选择 ({hint}; q 退出): ").strip()
        if text.lower() in ("q", "quit", "exit"):
            raise Quit
        if text.isdigit() and 1 <= int(text) <= len(legal):
            return legal[int(text) - 1]
        a = _match(text, legal, decision)
        if a is not None:
            return a
        write(f"'{text}' is not one of the choices: type a number 1..{len(legal)} or a move "
              f"named in the menu; try again.")


def _news(game: Any, shown: int, write: Callable[[str], None]) -> int:
    """Write what the table did since event ``shown`` (draws, claims, discards, as they
    happened); returns the new count."""
    for ev in game.events[shown:]:
        line = event_text(ev)
        if line is not None:
            write(f"  · {line.strip()}")
    return len(game.events)


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
    ``backend``: ``auto`` | ``fast`` | ``python`` (:mod:`paohuzi_env.backends.select`).

    Raises:
        ValueError: for ``hands`` below 1.
    """
    if hands is not None and hands < 1:
        raise ValueError(f"hands must be at least 1 (or None to play until you quit), got {hands}")
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
            write(f"\n===== 第 {n + 1} 局  ({rules.name}, 庄家 座{game.dealer}; 你是 座{you}) =====")
            shown = 0
            while not game.done:
                s = game.current_player
                assert s is not None
                if s == you:
                    shown = _news(game, shown, write)
                    write("")
                    write(render_text(game, you, show_legal=False))
                    huxi = sum(group_huxi(t, c) for t, c in game.melds[you])
                    write(f"桌面胡息 {huxi}")
                    game.step(_ask(game, you, read, write))
                else:
                    game.step(decide(bots[s], game, s))
            shown = _news(game, shown, write)
            r = game.result
            assert r is not None
            write("")
            write(result_text(game))
            if r.win is not None:
                write("\n".join(f"  {line}" for line in win_breakdown(r.win)))
            total += r.scores[you]
            n += 1
            write(f"本局 {r.scores[you]:+d} 分, 累计 {total:+d} 分 — {rank_title(total)}")
            if record_dir:
                path = record_dir / f"hand-{seed}-{n:03d}.json"
                path.write_text(json.dumps(game.record(), ensure_ascii=False), encoding="utf-8")
                write(f"记录已保存: {path}  (paohuzi replay {path} --html hand.html)")
            dealer, streak = next_dealer(rules, game.dealer, r.winner, streak)
            if hands is None or n < hands:
                if read("按回车开始下一局 (q 退出): ").strip().lower() in ("q", "quit", "exit"):
                    raise Quit
    except (Quit, KeyboardInterrupt, EOFError):
        write(f"\n再见! 共 {n} 局, 累计 {total:+d} 分 — {rank_title(total)}")
    return total
