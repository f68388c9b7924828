"""The table as an SVG picture, from one seat's view or with full information.

:func:`table_svg` draws what a seat may see (``Game.view(seat)``: its own hand face up, the other
hands as card backs, another seat's 偎 as three backs, a 提 or 臭偎 with one card face up and the
rest face down, as docs/rules.md's group table says) or, with ``seat=None``, everything (every hand
face up; cards that lie face down at the table get a dashed frame). Once the hand is over
every view shows everything, as the players lay their cards open. It also shows each seat's
discard area (出牌区), the card on offer and who offers it, the wall count, the 亮张, the dealer
(庄), the pending decision, optional running totals and, once the hand is over, the result.

Red cards (二七十 / 贰柒拾, R-CARD-2) are drawn red, the 王 (R-WANG-1) on a gold card. Cards are
``<symbol>`` definitions (:func:`card_defs`) used by reference, so a page that shows many
pictures (the replay viewer) carries the card faces once: ``table_svg(..., defs=False)``.

The picture reads the game's public surface only (``view``, and for full information ``hands``,
``wang``, ``melds``), so it works with ``engine.Game`` and ``fast.Game`` alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from ..game.cards import NUM_KINDS, WANG, is_red
from ..game.cards import format as fmt
from ..game.cards import name as card_name
from ..game.groups import group_huxi

WIDTH, HEIGHT = 1000, 700
CARD_W, CARD_H = 30, 40  # the symbols' own size; every use scales it
_RED, _BLACK, _GOLD = "#c0392b", "#1d1d1d", "#f4c542"
_FONT = "'Noto Serif CJK SC','Noto Sans CJK SC','Source Han Serif SC','SimSun','Songti SC',serif"
_SOURCE = {"draw": "翻出", "discard": "打出", "liang": "亮张"}
_DECISION = {"tianhu": "天胡?", "hu": "胡?", "claim": "吃/碰?", "bi": "比", "discard": "出牌"}
# How many cards of a group lie face up at the table for the other seats (docs/rules.md §3).
_FACE_UP_FOR_OTHERS = {"wei": 0, "chou_wei": 1, "ti": 1}


def display_name(name: str, limit: int = 24) -> str:
    """A seat's name short enough for a label: ``checkpoint:PATH`` keeps the file name only, and
    anything longer than ``limit`` characters is cut with an ellipsis."""
    if name.startswith("checkpoint:"):
        name = "checkpoint:" + name.rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
    return name if len(name) <= limit else name[: limit - 1] + "…"


def card_defs() -> str:
    """The ``<defs>`` with one symbol per card face (``pk-0`` .. ``pk-19``, ``pk-20`` the 王)
    and the back (``pk-back``)."""
    out = ["<defs>"]
    frame = (f'<rect x="0.75" y="0.75" width="{CARD_W - 1.5}" height="{CARD_H - 1.5}" rx="3.5" '
             'fill="{fill}" stroke="#555" stroke-width="1.2"/>')
    for k in range(NUM_KINDS + 1):
        if k == WANG:
            body = (frame.format(fill=_GOLD)
                    + f'<text x="15" y="25" font-size="20" text-anchor="middle" fill="#6b1f8a" '
                      f'font-weight="bold">{card_name(k)}</text>')
        else:
            colour = _RED if is_red(k) else _BLACK
            weight = ' font-weight="bold"' if k >= 10 else ""
            body = (frame.format(fill="#fdf8ea")
                    + f'<text x="15" y="25" font-size="20" text-anchor="middle" fill="{colour}"'
                      f'{weight}>{card_name(k)}</text>')
        out.append(f'<symbol id="pk-{k}" viewBox="0 0 {CARD_W} {CARD_H}">{body}</symbol>')
    out.append(
        f'<symbol id="pk-back" viewBox="0 0 {CARD_W} {CARD_H}">'
        f'<rect x="0.75" y="0.75" width="{CARD_W - 1.5}" height="{CARD_H - 1.5}" rx="3.5" '
        'fill="#2e6b4f" stroke="#1b3d2d" stroke-width="1.2"/>'
        f'<rect x="4" y="4" width="{CARD_W - 8}" height="{CARD_H - 8}" rx="2" fill="none" '
        'stroke="#9cc9b0" stroke-width="1"/></symbol>'
    )
    out.append("</defs>")
    return "".join(out)


def _card(x: float, y: float, k: int | None, w: float, *, hidden_mark: bool = False) -> str:
    """One card at (x, y), ``w`` wide; ``k`` None draws a back. ``hidden_mark`` frames a card
    that lies face down at the table but is shown (its owner's view, or full information)."""
    h = w * CARD_H / CARD_W
    ref = "pk-back" if k is None else f"pk-{k}"
    kind = "" if k is None else f' data-kind="{k}"'
    s = (f'<use xlink:href="#{ref}" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}"'
         f'{kind}/>')
    if hidden_mark:
        s += (f'<rect x="{x + 1:.1f}" y="{y + 1:.1f}" width="{w - 2:.1f}" height="{h - 2:.1f}" '
              'rx="3" fill="none" stroke="#2e6b4f" stroke-width="1.5" stroke-dasharray="3 2"/>')
    return s


def _text(x: float, y: float, s: str, size: int = 14, *, anchor: str = "start",
          fill: str = "#f3efe0", weight: str = "normal", cls: str = "") -> str:
    c = f' class="{cls}"' if cls else ""
    return (f'<text{c} x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'fill="{fill}" font-weight="{weight}">{escape(s)}</text>')


def _columns(x: float, y: float, width: float, columns: Sequence[Sequence[tuple[int | None, bool]]],
             w: float, step: float, gap: float) -> tuple[list[str], float]:
    """Columns of cards (each ``(kind or None for a back, face-down mark)``), bottom card
    first, left to right, wrapping at ``width``; returns the SVG parts and the height used."""
    h = w * CARD_H / CARD_W
    parts: list[str] = []
    cx, cy = x, y
    tallest = 0.0
    for col in columns:
        if cx + w > x + width and cx > x:
            cx, cy = x, cy + tallest + gap
            tallest = 0.0
        # top to bottom, each card covering the lower part of the one above it
        for i, (k, mark) in enumerate(col):
            parts.append(_card(cx, cy + i * step, k, w, hidden_mark=mark))
        tallest = max(tallest, h + (len(col) - 1) * step)
        cx += w + gap
    return parts, (cy - y) + tallest


def _row(x: float, y: float, width: float, cards: Sequence[int | None], w: float,
         gap: float = 2) -> tuple[list[str], float]:
    """A wrapped row of single cards; returns the parts and the height used."""
    return _columns(x, y, width, [[(k, False)] for k in cards], w, 0, gap)


def _hand_columns(counts: Sequence[int], wang: int) -> list[list[tuple[int | None, bool]]]:
    """A hand as a player arranges it: the 王, then each 坎, each pair, the single cards by point
    (small and big of one point together), in kind order."""
    cols: list[list[tuple[int | None, bool]]] = []
    if wang:
        cols.append([(WANG, False)] * wang)
    left = list(counts)
    for k, n in enumerate(counts):
        if n >= 3:
            cols.append([(k, False)] * n)
            left[k] = 0
    for k, n in enumerate(left):
        if n == 2:
            cols.append([(k, False)] * 2)
            left[k] = 0
    for p in range(10):  # a single small and big card of one point share a column
        col: list[tuple[int | None, bool]] = [(k, False) for k in (p, p + 10) if left[k] == 1]
        if col:
            cols.append(col)
    return cols


def _group_column(gtype: str, cards: tuple[int, ...] | None, *, own: bool,
                  full: bool) -> list[tuple[int | None, bool]]:
    """A table group as a column of cards, face down where the viewer may not see them."""
    if cards is None:  # another seat's 偎: the viewer knows a 偎 is there, not its kind
        return [(None, False)] * 3
    up = _FACE_UP_FOR_OTHERS.get(gtype)
    if up is None:
        return [(k, False) for k in cards]
    if own or full:  # the owner (or the full view) knows them; mark the face-down ones
        return [(k, i >= up) for i, k in enumerate(cards)]
    return [(k if i < up else None, False) for i, k in enumerate(cards)]


def _seat_panel(parts: list[str], game: Any, s: int, viewer: int | None, view: Any,
                box: tuple[float, float, float, float], *, big_hand: bool,
                totals: Sequence[int] | None, names: Sequence[str] | None) -> None:
    x, y, w, h = box
    full = viewer is None or view.done  # once the hand is over every hand is laid open
    own = viewer == s
    acting = view.to_act == s and not view.done
    parts.append(f'<rect class="seat{" acting" if acting else ""}" x="{x}" y="{y}" width="{w}" '
                 f'height="{h}" rx="10" fill="{"#2f5d46" if acting else "#234a37"}" '
                 f'stroke="{"#f4c542" if acting else "#3d6b55"}" stroke-width="{3 if acting else 1.5}"/>')
    if full:
        table = [(t, tuple(c)) for t, c in game.melds[s]]
    else:
        table = list(view.table[s])
    huxi = sum(group_huxi(t, c) for t, c in table if c is not None)
    label = f"座{s}"
    if names is not None:
        label += f" {display_name(names[s])}"
    if s == view.dealer:
        label += " (庄)"
    if own and names is None:
        label += " (你)"
    parts.append(_text(x + 10, y + 20, label, 16, weight="bold"))
    info = f"手牌 {view.hand_sizes[s]} 张  桌面胡息 {huxi}"
    if any(c is None for _, c in table):
        info += "+暗"
    if totals is not None:
        info += f"  累计 {totals[s]:+d}"
    if view.wang_shown[s]:
        info += f"  亮王 {view.wang_shown[s]}"
    parts.append(_text(x + w - 10, y + 20, info, 13, anchor="end", fill="#d9e8dc"))
    cy = y + 30
    # the hand
    if own or full:
        counts = view.hand if own else game.hands[s]
        wang = view.wang if own else game.wang[s]
        cw = 40 if big_hand else 22
        p, used = _columns(x + 10, cy, w - 20, _hand_columns(counts, wang), cw, cw * 0.95, 3)
    else:
        cw = 40 if big_hand else 18
        p, used = _row(x + 10, cy, w - 20, [None] * view.hand_sizes[s], cw, -cw * 0.45)
    parts.append(f'<g class="hand" data-seat="{s}">' + "".join(p) + "</g>")
    cy += used + 8
    # the table groups and the discard area, side by side in a wide panel, stacked in a narrow one
    cols = [_group_column(t, c, own=own, full=full) for t, c in table]
    gw = 22
    wide = w > 500
    table_w = (w - 20) * 0.58 if wide else w - 20
    parts.append(_text(x + 10, cy + 11, "桌面", 11, fill="#a8c7b4"))
    p, used = _columns(x + 10, cy + 15, table_w, cols, gw, gw * 0.9, 3)
    parts.append(f'<g class="melds" data-seat="{s}">' + "".join(p) + "</g>")
    if wide:
        dx, dy, dwid = x + 20 + table_w, cy, w - 30 - table_w
    else:
        dx, dy, dwid = x + 10, cy + 15 + max(used, 30) + 6, w - 20
    parts.append(_text(dx, dy + 11, "出牌区", 11, fill="#a8c7b4"))
    p, _ = _row(dx, dy + 15, dwid, list(view.discards[s]), 20)
    parts.append(f'<g class="discards" data-seat="{s}">' + "".join(p) + "</g>")


def table_svg(game: Any, seat: int | None = None, *, totals: Sequence[int] | None = None,
              names: Sequence[str] | None = None, defs: bool = True, caption: str | None = None) -> str:
    """The table as an SVG document.

    Args:
        game: an ``engine.Game`` or ``fast.Game``.
        seat: whose view (0, 1, 2); None for full information (every hand face up).
        totals: running totals per seat to show (e.g. over several hands), or None.
        names: a short name per seat (e.g. the agents), or None.
        defs: include the card symbols (:func:`card_defs`); a page that holds several pictures
            includes them once and passes False.
        caption: a line to show under the centre (e.g. the last move).

    Raises:
        ValueError: for a seat other than None, 0, 1, 2.
    """
    if seat not in (None, 0, 1, 2):
        raise ValueError(f"seat must be 0, 1, 2 or None (full information), got {seat!r}")
    bottom = 0 if seat is None else seat
    view = game.view(bottom)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'class="paohuzi-table" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'font-family="{_FONT}" data-view="{"full" if seat is None else seat}">'
    ]
    if defs:
        parts.append(card_defs())
    parts.append(f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#1a3a2b"/>')
    nxt, prv = (bottom + 1) % 3, (bottom + 2) % 3
    # 上家 (the previous seat) on the left, 下家 (the next seat) on the right, the viewer below
    panels = {prv: (8, 8, 322, 420, False), nxt: (670, 8, 322, 420, False),
              bottom: (8, 436, 984, 256, True)}
    for s, (x, y, w, h, big) in panels.items():
        _seat_panel(parts, game, s, seat, view, (x, y, w, h), big_hand=big, totals=totals,
                    names=names)
    _centre(parts, game, view, seat, caption)
    parts.append("</svg>")
    return "".join(parts)


def _centre(parts: list[str], game: Any, view: Any, seat: int | None, caption: str | None) -> None:
    cx = WIDTH / 2
    parts.append('<rect x="340" y="8" width="320" height="420" rx="10" fill="#153024"/>')
    parts.append(_text(cx, 34, f"墩 {view.wall} 张", 20, anchor="middle", weight="bold",
                       cls="wall"))
    parts.append(_text(360, 62, "亮张", 13, fill="#a8c7b4"))
    parts.append(_card(360, 68, view.liang, 26))
    parts.append(_text(640, 62, "全部信息" if seat is None else f"座{seat} 的视角", 13,
                       anchor="end", fill="#a8c7b4", cls="viewer"))
    offer = game.offer if seat is None else view.offer
    if offer is not None:
        k, src, who = offer
        parts.append(_card(cx - 30, 120, k, 60))
        parts.append(_text(cx, 224, f"座{who} {_SOURCE[src]} {card_name(k)}", 16, anchor="middle",
                           cls="offer"))
    elif not view.done and game.offer is not None:  # R-FLOW-2: the card is not shown yet
        parts.append(_card(cx - 30, 120, None, 60))
        parts.append(_text(cx, 224, "(未亮出)", 14, anchor="middle", cls="offer"))
    y = 256
    if view.done:
        for line in _result_lines(game):
            parts.append(_text(cx, y, line, 15, anchor="middle", weight="bold", fill="#f4c542",
                               cls="result"))
            y += 22
        win = game.result.win
        if win is not None:  # the winning hand as the evaluator read it (R-SCORE-1)
            # a forced 天胡's loose rest (R-START-1) can be long: columns of at most four
            cols = [[(k, False) for k in cards[i:i + 4]] for _, cards in win.groups
                    for i in range(0, len(cards), 4)]
            p, _ = _columns(352, y - 6, 296, cols, 20, 18, 3)
            parts.append('<g class="win-groups">' + "".join(p) + "</g>")
    elif view.to_act is not None:
        decision = game.decision
        parts.append(_text(cx, y, f"轮到 座{view.to_act}: {_DECISION.get(decision, decision)}", 16,
                           anchor="middle", fill="#f4c542", cls="turn"))
        y += 22
        if view.bi_groups:
            parts.append(_text(cx, y, f"比: {' '.join(fmt(g) for g in view.bi_groups)} (还需 "
                                      f"{view.bi_left} 张)", 14, anchor="middle"))
            y += 22
    if caption:
        parts.append(_text(cx, 414, caption, 13, anchor="middle", fill="#d9e8dc", cls="caption"))


def _result_lines(game: Any) -> list[str]:
    r = game.result
    if r is None:
        return []
    if r.winner is None:
        return ["荒庄", "得分 " + " ".join(f"座{s} {p:+d}" for s, p in enumerate(r.scores))]
    w = r.win
    names = "、".join(w.names) if w.names else "平胡"
    return [f"座{r.winner} {'天胡' if r.reason == 'tianhu' else '胡牌'}",
            f"{w.huxi} 胡息  {w.tun} 囤 × {w.fan} 番 = {w.score} 分",
            names,
            "得分 " + " ".join(f"座{s} {p:+d}" for s, p in enumerate(r.scores))]
