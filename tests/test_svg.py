"""The SVG table (paohuzi_env.display.svg) and the env's render_mode="svg"."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import paohuzi_env
from paohuzi_env.agents import make_agent
from paohuzi_env.backends.select import game_class
from paohuzi_env.display.svg import card_defs, table_svg
from paohuzi_env.game.cards import RED_KINDS, WANG
from paohuzi_env.game.engine import Game

NS = {"s": "http://www.w3.org/2000/svg"}
XLINK = "{http://www.w3.org/1999/xlink}href"


def _play(game, steps: int | None = None):
    bots = [make_agent("expert", seed=i, rules=game.rules) for i in range(3)]
    n = 0
    while not game.done and (steps is None or n < steps):
        s = game.current_player
        game.step(bots[s](game.view(s)))
        n += 1
    return game


def _group(root, cls: str, seat: int):
    return root.find(f".//s:g[@class='{cls}'][@data-seat='{seat}']", NS)


def _faces(g) -> list[int | None]:
    """Kinds of the cards in a group element (None for a back)."""
    out: list[int | None] = []
    for use in g.iter("{http://www.w3.org/2000/svg}use"):
        ref = use.get(XLINK)
        out.append(None if ref == "#pk-back" else int(ref.removeprefix("#pk-")))
    return out


def _find_hand(pred, rules="huaihua", seeds=range(200)):
    for seed in seeds:
        g = Game(rules, seed=seed)
        bots = [make_agent("expert", seed=i, rules=rules) for i in range(3)]
        while not g.done:
            if pred(g):
                return g
            s = g.current_player
            g.step(bots[s](g.view(s)))
    raise AssertionError("no such position in the seeds tried")


def test_own_hand_face_up_others_face_down_and_full_information():
    g = _play(Game("huaihua", seed=11), steps=6)
    assert not g.done
    root = ET.fromstring(table_svg(g, 1))
    assert root.get("data-view") == "1"
    own = _faces(_group(root, "hand", 1))
    assert sorted(own) == sorted(k for k, n in enumerate(g.hands[1]) for _ in range(n))
    for other in (0, 2):  # only backs, as many as the seat holds
        assert _faces(_group(root, "hand", other)) == [None] * g.view(1).hand_sizes[other]
    full = ET.fromstring(table_svg(g, None))
    assert full.get("data-view") == "full"
    for s in range(3):
        assert sorted(_faces(_group(full, "hand", s))) == sorted(
            k for k, n in enumerate(g.hands[s]) for _ in range(n))
        assert sorted(_faces(_group(full, "discards", s))) == sorted(g.discards[s])


def test_hidden_wei_is_three_backs_for_others_and_ti_shows_one_card():
    # docs/rules.md §3: others see that a 偎 exists, not its kind; a 提 shows one card face up.
    g = _find_hand(lambda g: any(t == "wei" for t, _ in g.melds[0]))
    view_other = ET.fromstring(table_svg(g, 1))
    faces = _faces(_group(view_other, "melds", 0))
    n_wei = sum(t == "wei" for t, _ in g.melds[0])
    assert faces.count(None) >= 3 * n_wei
    own = _faces(_group(ET.fromstring(table_svg(g, 0)), "melds", 0))
    assert None not in own  # the owner sees its 偎
    g = _find_hand(lambda g: any(t == "ti" for t, _ in g.melds[0]))
    faces = _faces(_group(ET.fromstring(table_svg(g, 2)), "melds", 0))
    for t, cards in g.melds[0]:
        if t == "ti":
            assert faces.count(cards[0]) >= 1 and faces.count(None) >= 3


def test_red_cards_red_and_wang_distinct():
    defs = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{card_defs()}</svg>')
    colours = {int(s.get("id").removeprefix("pk-")): s.find("s:text", NS).get("fill")
               for s in defs.iter("{http://www.w3.org/2000/svg}symbol") if s.get("id") != "pk-back"}
    assert {k for k, c in colours.items() if c == "#c0392b"} == set(RED_KINDS)  # R-CARD-2
    wang = defs.find(".//s:symbol[@id='pk-20']", NS)
    assert wang.find("s:text", NS).text == "王" and colours[WANG] not in ("#c0392b", "#1d1d1d")
    assert wang.find("s:rect", NS).get("fill") != defs.find(".//s:symbol[@id='pk-0']/s:rect", NS).get("fill")


def test_yongzhou_hand_shows_wang_in_full_information():
    g = _find_hand(lambda g: sum(g.wang) > 0, rules="yongzhou")
    seat = next(s for s in range(3) if g.wang[s])
    assert _faces(_group(ET.fromstring(table_svg(g, None)), "hand", seat)).count(WANG) == g.wang[seat]
    other = (seat + 1) % 3
    assert WANG not in _faces(_group(ET.fromstring(table_svg(g, other)), "hand", seat))


def test_wall_dealer_offer_totals_and_result_are_drawn():
    g = _find_hand(lambda g: g.decision == "claim")
    svg = table_svg(g, g.current_player, totals=[5, -2, -3], names=["a", "b", "c"])
    root = ET.fromstring(svg)
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert f"墩 {g.wall_left} 张" in texts and "(庄)" in texts and "累计 +5" in texts
    k, src, who = g.offer
    assert root.find(".//s:text[@class='offer']", NS).text.startswith(f"座{who}")
    _play(g)
    texts = " ".join(t.text or "" for t in ET.fromstring(table_svg(g, 0)).iter(
        "{http://www.w3.org/2000/svg}text"))
    assert "得分" in texts


def test_defs_false_leaves_the_symbols_out_and_bad_seat_is_refused():
    g = Game("huaihua", seed=1)
    assert "<symbol" in table_svg(g, 0) and "<symbol" not in table_svg(g, 0, defs=False)
    with pytest.raises(ValueError, match="seat must be 0, 1, 2 or None"):
        table_svg(g, 3)


def test_both_backends_draw_the_same_picture():
    from paohuzi_env import fast as fast_module

    if not fast_module.available():
        pytest.skip(f"the compiled core is not built: {fast_module.unavailable_reason()}")
    fast = game_class("fast")
    a = _play(Game("huaihua", seed=21), steps=15)
    b = fast("huaihua", deck=a.deck, dealer=a.dealer)
    for x in a.actions:
        b.step(x)
    for seat in (0, 1, 2, None):
        assert table_svg(a, seat) == table_svg(b, seat)


def test_env_render_mode_svg_returns_the_acting_seats_view():
    env = paohuzi_env.env(render_mode="svg")
    env.reset(seed=3)
    svg = env.render()
    root = ET.fromstring(svg)
    seat = env.possible_agents.index(env.agent_selection)
    assert root.get("data-view") == str(seat)
    assert "svg" in env.unwrapped.metadata["render_modes"]
    with pytest.raises(ValueError, match="'svg'"):
        paohuzi_env.raw_env(render_mode="rgb_array")


def test_long_agent_names_are_shortened_for_labels():
    from paohuzi_env.display.svg import display_name

    assert display_name("checkpoint:/a/b/checkpoints/policy.pt") == "checkpoint:policy.pt"
    assert display_name("expert") == "expert"
    assert display_name("x" * 40) == "x" * 23 + "…"
    g = Game("huaihua", seed=1)
    assert "/a/b" not in table_svg(g, 0, names=["你", "checkpoint:/a/b/p.pt", "expert"])
