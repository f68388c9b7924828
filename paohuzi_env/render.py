"""Readable Chinese text of a hand: the table from one seat's view, and the event log."""

from __future__ import annotations

from .actions import action_name
from .cards import WANG_CHAR, kinds_of
from .cards import format as fmt
from .groups import GROUP_NAMES

_SOURCE_WORDS = {"draw": "翻出", "discard": "打出", "liang": "亮张"}
_DECISION_WORDS = {"tianhu": "天胡?", "hu": "胡?", "claim": "吃/碰?", "bi": "比", "discard": "出牌"}


def hand_text(counts, wang: int = 0) -> str:
    """A hand grouped sensibly: 王 first (R-WANG-3), then 坎, pairs and single cards, in kind
    order."""
    kan = [k for k, n in enumerate(counts) if n >= 3]
    pairs = [k for k, n in enumerate(counts) if n == 2]
    singles = [k for k, n in enumerate(counts) if n == 1]
    parts = [WANG_CHAR * wang] if wang else []
    parts += [fmt([k] * counts[k]) for k in kan] + [fmt([k, k]) for k in pairs]
    if singles:
        parts.append(fmt(singles))
    return " ".join(parts) if parts else "(空)"


def render_text(game, seat: int) -> str:
    """The table as ``seat`` sees it (other hands hidden)."""
    v = game.view(seat)
    lines = [f"墩 {v.wall} 张  亮张 {fmt([v.liang])}  庄家 座{v.dealer}"]
    for s in range(3):
        who = "你" if s == seat else f"座{s}"
        groups = " ".join(
            f"{GROUP_NAMES[t]}{'(暗)' if c is None else fmt(c)}" for t, c in v.table[s]
        ) or "-"
        shown = f" | 亮王 {v.wang_shown[s]}" if v.wang_shown[s] else ""
        lines.append(
            f"{who}{'(庄)' if s == v.dealer else ''}: 手牌 {v.hand_sizes[s]} 张 | 桌面 {groups}"
            f" | 出牌区 {fmt(v.discards[s]) or '-'}{shown}"
        )
    lines.append(f"你的手牌: {hand_text(v.hand, v.wang)}  "
                 f"({WANG_CHAR * v.wang}{fmt(kinds_of(v.hand))})")
    if v.offer is not None:
        k, src, who = v.offer
        lines.append(f"当前牌: {fmt([k])} (座{who}{_SOURCE_WORDS[src]})")
    if game.done:
        lines.append(result_text(game))
    elif v.decision is not None:
        names = ", ".join(f"{a}:{action_name(a, v.decision)}" for a in v.legal)
        lines.append(f"轮到你 {_DECISION_WORDS[v.decision]}  [{names}]")
    else:
        lines.append(f"轮到 座{v.to_act}")
    return "\n".join(lines)


def result_text(game) -> str:
    """Why the hand ended, with 名堂 and score."""
    r = game.result
    if r is None:
        return "未结束"
    if r.winner is None:
        if any(r.scores):  # R-WANG-8: 王 left in hands pay
            return f"荒庄: 墩上的牌摸完, 无人胡牌; 手中有王者赔付 (每张王 5 分): 得分 {list(r.scores)}"
        return "荒庄: 墩上的牌摸完, 无人胡牌 (0 分)"
    w = r.win
    names = "、".join(w.names) if w.names else "平胡"
    how = "天胡" if r.reason == "tianhu" else "胡牌"
    return (f"座{r.winner} {how}: {w.huxi} 胡息, {w.tun} 囤 × {w.fan} 番 = {w.score} 分 ({names});"
            f" 得分 {list(r.scores)}")


def describe_events(game) -> str:
    """The public event log of a hand, one line each."""
    out = []
    for ev, seat, data in game.events:
        if ev == "liang":
            out.append(f"座{seat} 坐庄, 亮张 {fmt([data])}")
        elif ev == "reveal":
            out.append(f"座{seat} 翻出 {fmt([data])}")
        elif ev == "wang":
            out.append(f"座{seat} 摸到 {WANG_CHAR}, 明示后收入手中")
        elif ev == "discard":
            out.append(f"座{seat} 打出 {fmt([data])}")
        elif ev == "to_discards":
            out.append(f"  {fmt([data])} 无人要, 放入座{seat}出牌区")
        elif ev in ("chi", "bi"):
            out.append(f"座{seat} {'吃' if ev == 'chi' else '比'} {fmt(data)}")
        elif ev in ("peng", "pao", "ti", "chou_wei"):
            out.append(f"座{seat} {GROUP_NAMES[ev]} {fmt([data] * (4 if ev in ('pao', 'ti') else 3))}")
        elif ev == "wei":
            out.append(f"座{seat} 偎 (暗)")
        elif ev == "hu":
            out.append(f"座{seat} 胡")
        elif ev == "huangzhuang":
            out.append("荒庄")
    out.append(result_text(game))
    return "\n".join(out)
