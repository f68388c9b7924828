"""The ``paohuzi`` command: ``score`` (evaluate a holding, or say why it cannot win), ``play``
(the terminal game), ``replay`` (a record as text or as an HTML page), ``review`` (the value of
every legal action at every decision of a seat: :mod:`paohuzi_env.apps.review`), ``serve`` (the
browser table), ``zoo`` (the trained networks shipped with the package: :mod:`paohuzi_env.agents.zoo`)
and ``play-random``.

Examples::

    paohuzi score "一二三 四五六 ..." --melds "ti:s1s1s1s1,peng:b3b3b3" --win s4 --self-drawn
    paohuzi replay paohuzi-records/hand-0-001.json --html hand.html
    paohuzi review paohuzi-records/hand-0-001.json --seat 0 --html review.html
    paohuzi serve --port 8000 --opponents expert expert
    paohuzi zoo huaihua
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..display.render import win_breakdown
from ..game.cards import WANG, parse
from ..game.cards import format as fmt
from ..game.groups import CHI_GROUPS, normalise_meld
from ..game.rules import Rules, get_rules, preset_names
from ..game.scoring import evaluate_win

_NOTATION = "s1..s10, b1..b10, 一二三四五六七八九十, 壹贰叁肆伍陆柒捌玖拾 (or w / 王)"


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


def _win_card(text: str | None) -> str | None:
    """``--win``: exactly one card in the notation (``10`` is no card: s10 is 十, b10 is 拾)."""
    if text is None:
        return None
    if text.strip().isdigit():
        raise ValueError(f"--win {text!r} is no card: a card is written {_NOTATION}; "
                         f"ten is s10 (十) or b10 (拾)")
    cards = parse(text)
    if len(cards) != 1:
        raise ValueError(f"--win takes one card, got {len(cards)} in {text!r} (cards: {_NOTATION})")
    return text


def _splits(counts: list[int], locked: set[int], pair: bool) -> bool:
    """Whether ``counts`` split into 句/绞/三张 groups plus exactly one pair (``pair``) or none,
    keeping each kind in ``locked`` (a 坎, R-GROUP-1) as one three-card group."""
    k = next((i for i, n in enumerate(counts) if n), None)
    if k is None:
        return not pair
    if k in locked:
        if counts[k] < 3:
            return False
        counts[k] -= 3
        ok = _splits(counts, locked - {k}, pair)
        counts[k] += 3
        return ok
    if counts[k] >= 3:
        counts[k] -= 3
        ok = _splits(counts, locked, pair)
        counts[k] += 3
        if ok:
            return True
    if pair and counts[k] >= 2:
        counts[k] -= 2
        ok = _splits(counts, locked, False)
        counts[k] += 2
        if ok:
            return True
    for g in CHI_GROUPS:  # sorted triples: a group using the lowest kind k starts with it
        if g[0] != k or any(counts[x] < g.count(x) for x in set(g)):
            continue
        for x in g:
            counts[x] -= 1
        ok = _splits(counts, locked, pair)
        for x in g:
            counts[x] += 1
        if ok:
            return True
    return False


def why_no_win(hand: str, melds: list[tuple[str, str]], win: str | None, rules: Rules, *,
               self_drawn: bool, haidi: bool, tianhu: bool, dihu: bool) -> str:
    """Why ``evaluate_win`` found no win for this holding, in words, citing the rule."""
    kinds = parse(hand)
    win_kinds = parse(win) if win else []
    table = [normalise_meld(m) for m in melds]
    n_wang = kinds.count(WANG) + win_kinds.count(WANG)
    if n_wang and not self_drawn and win_kinds and win_kinds[0] != WANG:
        return "R-WANG-5: a holding with a 王 wins only on a card it drew itself (add --self-drawn)"
    if win_kinds == [WANG] and not self_drawn:
        return "R-WANG-3: nobody but its drawer can win on a 王 (add --self-drawn)"
    relaxed = get_rules(rules.name, **{**rules.overrides(), "min_huxi": 0, "pinghu_min_huxi": 0})
    best = evaluate_win(hand, melds, win, rules=relaxed, self_drawn=self_drawn, haidi=haidi,
                        tianhu=tianhu, dihu=dihu)
    if best is not None:
        if best.huxi < rules.min_huxi:
            return (f"R-WIN-3: the best reading has {best.huxi} huxi; {rules.name} needs at least "
                    f"{rules.min_huxi}")
        names = "、".join(best.names) if best.names else "no 名堂"
        return (f"R-WIN-3: the best reading has {best.huxi} huxi and {names}; a win without a 名堂 "
                f"(平胡) needs {rules.pinghu_min_huxi} huxi under {rules.name}"
                + ("" if self_drawn or not rules.zimo_15 else
                   f" ({rules.min_huxi} when 自摸: --self-drawn)"))
    concealed = [k for k in kinds + win_kinds if k != WANG]
    n = len(concealed) + n_wang
    paoti = any(t in ("pao", "ti") for t, _ in table)
    groups_in_hand = 7 - len(table)
    if n_wang:
        return (f"R-WIN-1/R-WANG-4: the {n} concealed cards with their {n_wang} 王 do not make "
                f"{groups_in_hand} more 门子 (7 in all, {len(table)} on the table)")
    if n % 3 == 1:
        return (f"R-WIN-1: the hand and the winning card are {n} cards; groups of three plus at most "
                f"one 将 pair need 3k or 3k+2 cards")
    pair = n % 3 == 2
    if len(table) + (n - 2 * pair) // 3 != 7:
        return (f"R-WIN-1: a win is exactly 7 门子; {len(table)} table groups and {n} concealed cards "
                f"make {len(table) + (n - 2 * pair) // 3}")
    if pair != paoti:
        return ("R-WIN-1: with a 跑/提 the hand needs exactly one 将 pair, without one no pair: "
                f"{'a pair' if pair else 'no pair'} here, {'a' if paoti else 'no'} 跑/提 on the table")
    counts = [0] * 20
    for k in concealed:
        counts[k] += 1
    hand_counts = [kinds.count(k) for k in range(20)]
    kan = {k for k in range(20) if hand_counts[k] >= 3}
    if _splits(counts, kan, pair):
        return ("the cards make no winning reading here (R-WIN-1/R-WIN-2; e.g. a 碰 of the "
                "winning card on another player's discard)")
    if _splits(counts, set(), pair):
        return (f"R-GROUP-1: the cards split into groups only by breaking the 坎 "
                f"{' '.join(fmt([k] * 3) for k in sorted(kan))}; a 坎 stays whole")
    return ("R-WIN-1: the concealed cards do not split into 句, 绞 and 坎"
            + (" plus one 将 pair" if pair else "") + f" ({fmt(sorted(concealed))})")


def cmd_score(args: argparse.Namespace) -> int:
    """``paohuzi score``: print the scoring of a winning holding, or why it is no win.

    Returns:
        The exit status: 0 for a win, 1 when the holding is no legal win.
    """
    rules = get_rules(args.rules)
    win_card = _win_card(args.win)
    melds = _parse_melds(args.melds)
    win = evaluate_win(
        args.hand, melds, win_card, rules=rules,
        self_drawn=args.self_drawn, haidi=args.haidi, tianhu=args.tianhu, dihu=args.dihu,
    )
    if win is None:
        why = why_no_win(args.hand, melds, win_card, rules, self_drawn=args.self_drawn,
                         haidi=args.haidi, tianhu=args.tianhu, dihu=args.dihu)
        print(f"不能胡 (no legal win under {rules.name}): {why}")
        return 1
    print(f"胡牌 ({rules.name})")
    for line in win_breakdown(win):
        print(f"  {line}" if "息" in line and not line.startswith("胡息") else line)
    return 0


TRUST_HELP = ("load checkpoint:PATH files even if they need arbitrary pickled objects (can run code: "
              "only for files you made)")


def _trust_checkpoints(args: argparse.Namespace) -> None:
    """--trust-checkpoint: paohuzi_training.nets.checkpoint reads PAOHUZI_TRUST_CHECKPOINT (this package does
    not import paohuzi_training)."""
    if args.trust_checkpoint:
        os.environ["PAOHUZI_TRUST_CHECKPOINT"] = "1"


def build_parser() -> argparse.ArgumentParser:
    """The ``paohuzi`` argument parser, with one subcommand per ``cmd_*`` function."""
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
                    metavar=("NEXT", "PREV"),
                    help="agent specs (random, greedy, expert, search, zoo:NAME, network:PATH, "
                         "checkpoint:PATH)")
    pl.add_argument("--rules", default="huaihua", help=f"preset: {', '.join(preset_names())}")
    pl.add_argument("--trust-checkpoint", action="store_true", help=TRUST_HELP)
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("--hands", type=int, default=None,
                    help="stop after this many hands (at least 1; default: until you quit)")
    pl.add_argument("--records", default="paohuzi-records", help="folder for hand records")
    pl.add_argument("--backend", choices=("auto", "fast", "python"), default=None,
                    help="engine: auto (default, or $PAOHUZI_BACKEND), fast or python")
    pl.set_defaults(func=cmd_play)
    rp = sub.add_parser("replay", help="show a hand record (Game.record()) as text or an HTML page")
    rp.add_argument("record", help="a record file (JSON), e.g. from paohuzi play or paohuzi-eval "
                                   "--save-records")
    rp.add_argument("--html", metavar="OUT", help="write a self-contained HTML replay viewer here")
    rp.add_argument("--view", choices=("0", "1", "2", "full"), default="full",
                    help="the view the page opens with (a seat, or full information)")
    rp.set_defaults(func=cmd_replay)
    rv = sub.add_parser("review", help="the value of every legal action at every decision of a seat "
                                       "in a hand record (docs/review.md)")
    rv.add_argument("record", help="a record file (JSON) from paohuzi play, paohuzi serve or "
                                   "paohuzi-eval --save-records")
    rv.add_argument("--seat", type=int, required=True, help="the reviewed seat: 0, 1 or 2")
    rv.add_argument("--agent", metavar="SPEC", default=None,
                    help="network:PATH, zoo:NAME or checkpoint:PATH: its probabilities beside the "
                         "values")
    rv.add_argument("--analyser", metavar="SPEC", default=None,
                    help="the search that values the actions (default: a setting stronger than the "
                         "default search; docs/review.md)")
    rv.add_argument("--seed", type=int, default=0, help="seeds the analyser's worlds")
    rv.add_argument("--json", metavar="OUT", help="write the review as JSON here")
    rv.add_argument("--html", metavar="OUT", help="write the replay page with the analysis panel here")
    rv.add_argument("--trust-checkpoint", action="store_true", help=TRUST_HELP)
    rv.set_defaults(func=cmd_review)
    sv = sub.add_parser("serve", help="play two bots in the browser (needs the serve extra)")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--host", default="127.0.0.1",
                    help="address to bind (default 127.0.0.1: this machine only)")
    sv.add_argument("--opponents", nargs=2, default=["expert", "expert"], metavar=("NEXT", "PREV"),
                    help="agent specs (random, greedy, expert, search, zoo:NAME, network:PATH, "
                         "checkpoint:PATH)")
    sv.add_argument("--rules", default="huaihua", help=f"preset: {', '.join(preset_names())}")
    sv.add_argument("--trust-checkpoint", action="store_true", help=TRUST_HELP)
    sv.add_argument("--max-tables", type=int, default=64, metavar="N",
                    help="tables held at most; a new one drops the least recently used (default 64)")
    sv.add_argument("--idle-timeout", type=float, default=3600.0, metavar="SECONDS",
                    help="drop a table after this long without a request (default 3600)")
    sv.add_argument("--max-body", type=int, default=4096, metavar="BYTES",
                    help="largest request body accepted; larger ones get 413 (default 4096)")
    sv.set_defaults(func=cmd_serve)
    z = sub.add_parser("zoo", help="the trained networks shipped with the package, with their cards "
                                   "(docs/zoo.md)")
    z.add_argument("name", nargs="?", default=None,
                   help="an entry: a preset (its strongest network) or PRESET/ENTRY; "
                        "default: list them all")
    z.add_argument("--json", action="store_true",
                   help="print as JSON: the card, or every entry with its card")
    z.add_argument("--markdown", action="store_true",
                   help="print as Markdown: the card's section, or the whole of docs/zoo.md")
    z.set_defaults(func=cmd_zoo)
    r = sub.add_parser("play-random", help="play one hand with random legal moves and print it")
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--rules", default="huaihua", help=f"preset: {', '.join(preset_names())}")
    r.set_defaults(func=cmd_play_random)
    return p


def cmd_play(args: argparse.Namespace) -> int:
    """``paohuzi play``: play hands against two bots in the terminal, saving hand records.

    Raises:
        ValueError: ``--hands`` is below 1, or an opponent spec is bad.
    """
    from ..agents import make_agent
    from .play import play

    rules = get_rules(args.rules)
    _trust_checkpoints(args)
    if args.hands is not None and args.hands < 1:
        raise ValueError(f"--hands must be at least 1 (or left out to play until you quit), "
                         f"got {args.hands}")
    for spec in args.opponents:
        make_agent(spec, seed=0, rules=rules)  # a bad spec fails before the first hand
    play(tuple(args.opponents), rules, seed=args.seed, hands=args.hands, records=args.records,
         backend=args.backend)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """``paohuzi replay``: print a hand record decision by decision, or write it as an HTML page."""
    from .replay_html import frames_of, load_record, write_replay

    record = load_record(args.record)
    if args.html:
        path = write_replay(record, args.html, start_view=args.view)
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB): open it in a browser; "
              "← → step, 0 1 2 F switch the view")
        return 0
    for i, f in enumerate(frames_of(record)):
        for line in f["log"]:
            print(line)
        if "result" in f:
            print("\n".join(f["result"]))
        else:
            chosen = next(name for a, name in f["legal"] if a == f["chosen"])
            what = {"tianhu": "天胡?", "hu": "胡?", "claim": "吃/碰?", "bi": "比",
                    "discard": "出牌"}[f["decision"]]
            print(f"[{i + 1}] 座{f['actor']} {what}: {chosen}  "
                  f"(legal: {', '.join(name for _, name in f['legal'])})")
    return 0


def cmd_review(args: argparse.Namespace) -> int:
    """``paohuzi review``: the review of one seat's decisions, as a table, JSON or an HTML page."""
    from .replay_html import load_record, write_replay
    from .review import ANALYSER, jsonable, review, review_table

    _trust_checkpoints(args)
    record = load_record(args.record)
    rev = review(record, args.seat, agent=args.agent, analyser=args.analyser or ANALYSER,
                 seed=args.seed)
    print(review_table(rev))
    if args.json:
        Path(args.json).write_text(json.dumps(jsonable(rev), indent=1, ensure_ascii=False, allow_nan=False)
                                   + "\n", encoding="utf-8")
        print(f"wrote {args.json}")
    if args.html:
        path = write_replay(record, args.html, start_view=str(args.seat), review=rev)
        print(f"wrote {path}: open it in a browser")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """``paohuzi serve``: run the browser table until stopped.

    Raises:
        ValueError: the serve extra is not installed, or ``--port`` is out of range.
    """
    try:
        from .serve import run
    except ImportError as e:
        raise ValueError(f"paohuzi serve needs the serve extra (pip install -e '.[serve]' in a clone): "
                         f"{e}") from None
    if not 0 < args.port < 65536:
        raise ValueError(f"--port must be 1..65535, got {args.port}")
    _trust_checkpoints(args)
    run(host=args.host, port=args.port, opponents=tuple(args.opponents), rules=args.rules,
        max_tables=args.max_tables, idle_timeout=args.idle_timeout, max_body=args.max_body)
    return 0


def cmd_zoo(args: argparse.Namespace) -> int:
    """``paohuzi zoo [NAME] [--json | --markdown]``: list the zoo's entries, or print one card.

    Raises:
        ValueError: an unknown name (listing the known ones), or both --json and --markdown.
    """
    from ..agents import zoo

    if args.json and args.markdown:
        raise ValueError("--json and --markdown are two formats: give one")
    if args.name is not None:
        if args.json:
            print(json.dumps(zoo.card(args.name), indent=1, ensure_ascii=False))
        else:
            print(zoo.card_markdown(args.name), end="")
        return 0
    if args.json:
        rows = [{**r, "card": zoo.card(r["name"])} for r in zoo.entries()]
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    elif args.markdown:
        print(zoo.page(), end="")
    else:
        print(zoo.listing(), end="")
    return 0


def cmd_play_random(args: argparse.Namespace) -> int:
    """``paohuzi play-random``: play one hand with random legal moves and print its events."""
    from ..display.render import describe_events
    from ..game.engine import play_random_hand

    game = play_random_hand(args.rules, seed=args.seed)
    print(describe_events(game))
    return 0


def main(argv: list[str] | None = None) -> int:
    """The ``paohuzi`` command: parse ``argv`` (default: ``sys.argv[1:]``) and run the subcommand.

    Returns:
        The subcommand's exit status, or 2 when it raised ValueError (printed to stderr).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as e:
        print(f"paohuzi: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
