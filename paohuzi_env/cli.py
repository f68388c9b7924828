"""The ``paohuzi`` command: ``paohuzi score`` (evaluate a holding) and ``paohuzi play-random``.

Example::

    paohuzi score "一二三 四五六 ..." --melds "ti:s1s1s1s1,peng:b3b3b3" --win s4 --self-drawn
"""

from __future__ import annotations

import argparse
import sys

from .cards import format as fmt
from .groups import GROUP_NAMES, group_huxi
from .rules import get_rules, preset_names
from .scoring import evaluate_win


def _parse_melds(text: str | None) -> list[tuple[str, str]]:
    if not text:
        return []
    melds = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if ":" not in part:
            raise ValueError(f"meld {part!r} must look like type:cards, e.g. peng:b3b3b3")
        gtype, cards = part.split(":", 1)
        melds.append((gtype.strip(), cards.strip()))
    return melds


def cmd_score(args: argparse.Namespace) -> int:
    rules = get_rules(args.rules)
    win = evaluate_win(
        args.hand, _parse_melds(args.melds), args.win, rules=rules,
        self_drawn=args.self_drawn, haidi=args.haidi, tianhu=args.tianhu, dihu=args.dihu,
    )
    if win is None:
        print(f"不能胡 (no legal win under {rules.name})")
        return 1
    print(f"胡牌 ({rules.name})")
    for gtype, cards in win.groups:
        print(f"  {GROUP_NAMES.get(gtype, gtype):<3} {fmt(cards):<6} {group_huxi(gtype, cards):>2} 息")
    print(f"胡息 {win.huxi}  红 {win.red}  大 {win.big}  小 {win.small}")
    print(f"名堂 {'、'.join(win.names) if win.names else '平胡'}")
    print(f"{win.tun} 囤 × {win.fan} 番 = {win.score} 分 (each loser pays)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="paohuzi", description="跑胡子 (Paohuzi) tools")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("score", help="evaluate a winning holding")
    s.add_argument("hand", help='concealed cards before the winning card, e.g. "一二三 s4s5s6"')
    s.add_argument("--melds", help="table groups: type:cards,... (chi peng wei chou_wei pao ti)")
    s.add_argument("--win", help="the winning card (omit when the holding is complete)")
    s.add_argument("--self-drawn", action="store_true", help="自摸")
    s.add_argument("--haidi", action="store_true", help="the last wall card (海底)")
    s.add_argument("--tianhu", action="store_true", help="天胡")
    s.add_argument("--dihu", action="store_true", help="地胡")
    s.add_argument("--rules", default="huaihua", help=f"preset: {', '.join(preset_names())}")
    s.set_defaults(func=cmd_score)
    pl = sub.add_parser("play", help="play against two bots in the terminal")
    pl.add_argument("--opponents", nargs=2, default=["expert", "expert"],
                    metavar=("NEXT", "PREV"), help="bot specs (random, greedy, expert, checkpoint:PATH)")
    pl.add_argument("--rules", default="huaihua", help=f"preset: {', '.join(preset_names())}")
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    pl.add_argument("--records", default="paohuzi-records", help="folder for hand records")
    pl.add_argument("--backend", choices=("auto", "fast", "python"), default=None,
                    help="engine: auto (default, or $PAOHUZI_BACKEND), fast or python")
    pl.set_defaults(func=cmd_play)
    r = sub.add_parser("play-random", help="play one hand with random legal moves and print it")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--rules", default="huaihua", help=f"preset: {', '.join(preset_names())}")
    r.set_defaults(func=cmd_play_random)
    return p


def cmd_play(args: argparse.Namespace) -> int:
    from .agents import make_agent
    from .play import play

    rules = get_rules(args.rules)
    for spec in args.opponents:
        make_agent(spec, seed=0, rules=rules)  # a bad spec fails before the first hand
    play(tuple(args.opponents), rules, seed=args.seed, hands=args.hands, records=args.records,
         backend=args.backend)
    return 0


def cmd_play_random(args: argparse.Namespace) -> int:
    from .engine import play_random_hand
    from .render import describe_events

    game = play_random_hand(args.rules, seed=args.seed)
    print(describe_events(game))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as e:
        print(f"paohuzi: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
