"""Readable Chinese text of a hand: the table from one seat's view, and the event log."""

from __future__ import annotations

from ..game.actions import PASS, PENG, action_name
from ..game.cards import WANG_CHAR, kinds_of
from ..game.cards import format as fmt
from ..game.groups import GROUP_NAMES, group_huxi

_SOURCE_WORDS = {"draw": "翻出", "discard": "打出", "liang": "亮张"}
_DECISION_WORDS = {"tianhu": "天胡?", "hu": "胡?", "claim": "吃/碰?", "bi": "比", "discard": "出牌"}


def move_name(action: int, decision: str | None, legal) -> str:
    """``action_name``, with 过 said in full where it means more than "no": 忍碰 when a 碰 is
    declined (R-CHOU-3), and in a 比 chain the 吃 is cancelled (R-CHI-2)."""
    if action == PASS and decision == "claim" and PENG in legal:
        return "过 (忍碰)"
    if action == PASS and decision == "bi":
        return "过 (取消这次吃)"
    return action_name(action, decision)


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


def render_text(game, seat: int, *, show_legal: bool = True) -> str:
    """The table as ``seat`` sees it (other hands hidden). ``show_legal=False`` leaves out the
    legal action ids (the terminal game offers them as a numbered menu instead)."""
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
        what = _DECISION_WORDS[v.decision]
        if v.decision == "bi" and v.offer is not None:  # R-CHI-2: every copy goes into a group
            what += (f": 已选 {' '.join(fmt(g) for g in v.bi_groups)}, 手中还有 {v.bi_left} 张"
                     f"{fmt([v.offer[0]])}要放进比组 (过 = 取消这次吃)")
        lines.append(f"轮到你 {what}" + (f"  [{names}]" if show_legal else ""))
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
            return f"荒庄: 墩上的牌摸完, 无人胡牌; 手中有王者赔付 (每张王 5 分): 得分 {_scores(r.scores)}"
        return "荒庄: 墩上的牌摸完, 无人胡牌 (0 分)"
    w = r.win
    names = "、".join(w.names) if w.names else "平胡"
    how = "天胡" if r.reason == "tianhu" else "胡牌"
    return (f"座{r.winner} {how}: {w.huxi} 胡息, {w.tun} 囤 × {w.fan} 番 = {w.score} 分 ({names});"
            f" 得分 {_scores(r.scores)}")


def _scores(scores) -> str:
    return " ".join(f"座{s} {p:+d}" for s, p in enumerate(scores))


def event_text(event) -> str | None:
    """One public event as a line of text (None for an event that says nothing new)."""
    ev, seat, data = event
    if ev == "liang":
        return f"座{seat} 坐庄, 亮张 {fmt([data])}"
    if ev == "reveal":
        return f"座{seat} 翻出 {fmt([data])}"
    if ev == "wang":
        return f"座{seat} 摸到 {WANG_CHAR}, 明示后收入手中"
    if ev == "discard":
        return f"座{seat} 打出 {fmt([data])}"
    if ev == "to_discards":
        return f"  {fmt([data])} 无人要, 放入座{seat}出牌区"
    if ev in ("chi", "bi"):
        return f"座{seat} {'吃' if ev == 'chi' else '比'} {fmt(data)}"
    if ev in ("peng", "pao", "ti", "chou_wei"):
        return f"座{seat} {GROUP_NAMES[ev]} {fmt([data] * (4 if ev in ('pao', 'ti') else 3))}"
    if ev == "wei":
        return f"座{seat} 偎 (暗)"
    if ev == "hu":
        return f"座{seat} 胡"
    if ev == "huangzhuang":
        return "荒庄"
    return None


def describe_events(game) -> str:
    """The public event log of a hand, one line each."""
    out = [t for t in map(event_text, game.events) if t is not None]
    out.append(result_text(game))
    return "\n".join(out)


def win_breakdown(win) -> list[str]:
    """A scored win line by line: each group with its huxi, the huxi total, the 名堂 and the
    score (R-SCORE-1..3), as ``paohuzi score`` and the browser table print it."""
    lines = [f"{GROUP_NAMES.get(t, t):<3} {fmt(c):<6} {group_huxi(t, c):>2} 息" for t, c in win.groups]
    lines.append(f"胡息 {win.huxi}  红 {win.red}  大 {win.big}  小 {win.small}")
    lines.append(f"名堂 {'、'.join(win.names) if win.names else '平胡'}")
    lines.append(f"{win.tun} 囤 × {win.fan} 番 = {win.score} 分 (each loser pays)")
    return lines
