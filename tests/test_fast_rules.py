"""Every field of :class:`paohuzi_env.game.rules.Rules` reaches the compiled core.

The core converts a Rules in one place (``_core/rules.hpp`` PHZ_RULE_FIELDS, read by
``bind_scoring.cpp`` convert_rules); equality and the memo keys are derived from the same list.
Here, for each field of ``dataclasses.fields(Rules)``:

* the field is in the core's list (``_fast.rule_fields()``), in the same order;
* changing it alone changes the core's fingerprint of the converted struct (``_fast.rules_key``);
* changing it to another legal value changes one of the core's answers: the evaluator's result
  on some holding, or the course of some hand (legal actions, result), or for ``name`` the
  evaluator's error message. The Python reference must change the same way on that holding or
  hand. A field the core does not use is listed in ``NOT_USED_BY_CORE`` with the reason.

A Rules field added without its binding fails the first two checks; one without a probe here
fails the third (add its change to ``CHANGES``).
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
import random

import numpy as np
import pytest

from paohuzi_env.game import engine, scoring
from paohuzi_env.game.cards import counts_of
from paohuzi_env.game.rules import PRESETS, YONGZHOU, Rules, get_rules
from paohuzi_env.game.testing import random_winning_holding

fast = pytest.importorskip("paohuzi_env._fast")
fast_py = pytest.importorskip("paohuzi_env.backends.fast")

FIELDS = tuple(f.name for f in dataclasses.fields(Rules))

HUAIHUA = PRESETS["huaihua"]
CHANGES: dict[str, tuple[Rules, Rules]] = {
    # (base, changed): two legal rule sets that differ in the field (and, where validation
    # couples fields, in the fans of the new family only).
    "name": (HUAIHUA, dataclasses.replace(HUAIHUA, name="hongshanzhang")),
    "scoring": (HUAIHUA, get_rules("huaihua", scoring="hongshanzhang")),
    "fans": (HUAIHUA, get_rules("huaihua", fans={"红胡": 3})),
    "fan_level": (PRESETS["classic"], get_rules("classic", fan_level="none")),
    "fan_combine": (HUAIHUA, get_rules("huaihua", fan_combine="multiply")),
    "min_huxi": (HUAIHUA, get_rules("huaihua", min_huxi=10)),
    "pinghu_min_huxi": (HUAIHUA, get_rules("huaihua", pinghu_min_huxi=15)),
    "zimo_15": (HUAIHUA, get_rules("huaihua", zimo_15=False)),
    "zimo_tun": (HUAIHUA, get_rules("huaihua", zimo_tun=False)),
    "tianhu_is_zimo": (HUAIHUA, get_rules("huaihua", tianhu_is_zimo=True)),
    "win_on_own_ti_wei": (HUAIHUA, get_rules("huaihua", win_on_own_ti_wei=True)),
    "hu_on_discard": (HUAIHUA, get_rules("huaihua", hu_on_discard=True)),
    "chi_on_discard": (HUAIHUA, get_rules("huaihua", chi_on_discard=False)),
    "chou_rule": (HUAIHUA, get_rules("huaihua", chou_rule="chi")),
    "chou_blocks_peng": (HUAIHUA, get_rules("huaihua", chou_blocks_peng=False)),
    "chou_when_chi_blocked": (HUAIHUA, get_rules("huaihua", chou_when_chi_blocked=False)),
    "dealer_rule": (HUAIHUA, get_rules("huaihua", dealer_rule="classic")),
    # wang and the yongzhou family go together (R-WANG-1); see test_wang_reaches_the_core for
    # the field alone.
    "wang": (HUAIHUA, YONGZHOU),
}
NOT_USED_BY_CORE = {
    "dealer_rule": "the core plays one hand; the next hand's dealer is engine.next_dealer's "
                   "(Python: play.py, serve.py), which the core never calls",
}


def _unchecked(r: Rules, **changes) -> Rules:
    """``r`` with fields replaced without validation (to change one of two coupled fields)."""
    out = copy.copy(r)
    for k, v in changes.items():
        object.__setattr__(out, k, v)
    return out


def _other_value(r: Rules, name: str):
    """Another legal value of one field (ignoring the coupling between fields)."""
    value = getattr(r, name)
    if name == "fans":
        (n, f), *rest = value
        return ((n, f + 1), *rest)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return 2 if name == "wang" and value == 0 else value + 1
    return {"name": "classic", "scoring": "classic", "fan_level": "none", "fan_combine": "multiply",
            "chou_rule": "chi", "dealer_rule": "classic"}[name]


def test_core_converts_exactly_the_rules_fields():
    assert fast.rule_fields() == FIELDS


@pytest.mark.parametrize("name", FIELDS)
def test_each_field_changes_the_core_key(name):
    # the field alone, even where validation couples it to another (the key reads every field)
    base = HUAIHUA
    other = _unchecked(base, **{name: _other_value(base, name)})
    assert fast.rules_key(other) != fast.rules_key(base), name
    assert fast.rules_key(copy.copy(base)) == fast.rules_key(base)


# ---- the core's answers -------------------------------------------------------------------

FLAG_NAMES = ("self_drawn", "haidi", "tianhu", "dihu", "from_discard")
FLAGS = tuple(dict(zip(FLAG_NAMES, f)) for f in itertools.product((False, True), repeat=5))


def _holdings(n: int, seed: int):
    """``n`` canonical winning holdings (counts, melds, win card) from the shared generator."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        h = random_winning_holding(rng)
        if h is None:
            continue
        hand, melds, win = h
        out.append((tuple(counts_of(hand)), tuple(sorted((t, tuple(sorted(c))) for t, c in melds)),
                    win))
    return out


def _evaluator_difference(a: Rules, b: Rules):
    """The first (holding, flags) whose evaluation differs between ``a`` and ``b`` in the core;
    None if none of the sample does."""
    for hand, melds, win in _holdings(300, 11):
        for kw in FLAGS:
            x = fast.evaluate_counts(hand, melds, win, a, **kw)
            y = fast.evaluate_counts(hand, melds, win, b, **kw)
            if x != y:
                return (hand, melds, win), kw, x, y
    return None


def _course(rules: Rules, deck, dealer: int, seed: int, actions=None):
    """Play a hand on the core: the legal actions of every decision, and the result. Actions
    come from ``actions`` (a list to follow) while it lasts, else half expert, half random."""
    g = fast_py.Game(rules, deck=deck, dealer=dealer)
    rng = np.random.default_rng(seed)
    legal_seen, taken = [], []
    while not g.done:
        legal = g.legal_actions()
        legal_seen.append(legal)
        if actions is not None and len(taken) < len(actions):
            a = actions[len(taken)]
            if a not in legal:
                break
        else:
            a = g.expert_action() if rng.random() < 0.5 else legal[int(rng.integers(len(legal)))]
        taken.append(a)
        g.step(a)
    return legal_seen, taken, g.result if g.done else None


def _game_difference(a: Rules, b: Rules, hands: int = 150):
    """The first hand (same deal, same actions while both allow them) whose course differs
    between ``a`` and ``b`` on the core: (seed, actions under a); None if none does."""
    for seed in range(hands):
        p = engine.Game(a, seed=seed)
        la, ta, ra = _course(a, p.deck, p.dealer, seed)
        lb, tb, rb = _course(b, p.deck, p.dealer, seed, actions=ta)
        if (la, ra) != (lb, rb):
            return seed, p.deck, p.dealer, ta, (la, ra)
    return None


@pytest.mark.parametrize("name", FIELDS)
def test_each_field_changes_an_answer_of_the_core(name):
    if name not in CHANGES:
        pytest.fail(f"Rules.{name} has no probe: add a change of it to CHANGES (or the reason the "
                    "core does not use it to NOT_USED_BY_CORE)")
    base, changed = CHANGES[name]
    assert getattr(base, name) != getattr(changed, name)
    if name in NOT_USED_BY_CORE:
        assert fast.rules_key(base) != fast.rules_key(changed)  # converted all the same
        return
    if name == "name":
        # the name is the core's only in messages: a 王 with a rule set of none (R-WANG-1)
        msgs = []
        for r in (base, changed):
            with pytest.raises(ValueError) as err:
                fast.evaluate_counts(tuple([1] * 20), (), 0, r, self_drawn=True, wang=1)
            msgs.append(str(err.value))
            with pytest.raises(ValueError, match=r.name):
                scoring.evaluate_counts(tuple([1] * 20), (), 0, r, self_drawn=True, wang=1)
        assert msgs[0] != msgs[1] and changed.name in msgs[1]
        return
    found = _evaluator_difference(base, changed)
    if found is not None:
        (hand, melds, win), kw, x, y = found
        # the reference changes the same way on that holding
        assert scoring.evaluate_counts(hand, melds, win, base, **kw) == x
        assert scoring.evaluate_counts(hand, melds, win, changed, **kw) == y
        return
    found_game = _game_difference(base, changed)
    assert found_game is not None, f"changing Rules.{name} changed no answer of the core"
    seed, deck, dealer, actions, (legal_a, result_a) = found_game
    # the reference under the changed rules plays that hand as the core does
    legal_b, _, result_b = _course(changed, deck, dealer, seed, actions=actions)
    p = engine.Game(changed, deck=deck, dealer=dealer)
    for j, legal in enumerate(legal_b):
        assert p.legal_actions() == legal, (name, seed, j)
        if j < len(actions) and actions[j] in legal and not p.done:
            p.step(actions[j])
        else:
            break
    if p.done:
        assert p.result == result_b


def test_wang_reaches_the_core():
    # wang alone (the yongzhou family kept): the deal has no 王 and a 王 in a holding is refused
    no_wang = _unchecked(YONGZHOU, wang=0)
    assert fast.rules_key(no_wang) != fast.rules_key(YONGZHOU)
    hand = tuple([1] * 20)
    fast.evaluate_counts(hand, (), 0, YONGZHOU, self_drawn=True, wang=1)  # no error: 2 王
    with pytest.raises(ValueError, match="have 0 in the deck"):
        fast.evaluate_counts(hand, (), 0, no_wang, self_drawn=True, wang=1)
    a, b = fast_py.Game(YONGZHOU, seed=1), fast_py.Game(no_wang, seed=1)
    assert (len(a.deck), len(b.deck)) == (82, 80)
    assert a.observation(0).shape != b.observation(0).shape
