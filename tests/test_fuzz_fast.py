"""Generated-input tests of the compiled core's Python surface (hypothesis stateful tests).

Random sequences of ``fast.Game`` and ``fast.VectorGame`` calls: legal and illegal actions,
garbage action values, calls after the hand is over, ``clone``, and arrays of the wrong dtype,
shape, contiguity or writability passed to ``observation``/``observe``/``step``/``state``. Every
call must either behave as the Python reference does (``paohuzi_env.game.engine.Game``, stepped in
lockstep) or raise a Python exception of an expected type with a message — never crash the
process, never raise SystemError, never leave a half-applied step behind.

A short, derandomized run is in the default suite; ``-m slow`` runs many more examples; .ci/sanitize
runs the short one under AddressSanitizer/UBSan.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.stateful import (  # noqa: E402
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from paohuzi_env import fast  # noqa: E402
from paohuzi_env.encode.observation import encode  # noqa: E402
from paohuzi_env.game.actions import NUM_ACTIONS  # noqa: E402
from paohuzi_env.game.engine import Game, IllegalActionError  # noqa: E402

pytestmark = pytest.mark.skipif(not fast.available(), reason="paohuzi_env._fast is not built")

PRESETS = ("huaihua", "huaihua-468", "classic", "zipai", "hongshanzhang", "yongzhou")
# What a refused call may raise (IllegalActionError is a ValueError).
REFUSALS = (ValueError, TypeError, IndexError, OverflowError, AttributeError)

# Garbage and edge-case action values (a legal one is added by the rules below).
junk_actions = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(-3, NUM_ACTIONS + 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=3),
    st.sampled_from([np.int8(3), np.uint64(2**64 - 1), np.int64(-1), np.float32(2.0),
                     np.array(3), np.array([3]), (3,), [3], (), {}, b"3", object()]),
)

DTYPES = (np.float32, np.float64, np.int8, np.int32, np.int64, np.uint64, np.bool_, np.float16)


def refused(call: Any) -> BaseException | None:
    """Run ``call``; return the expected exception it raised (None if it returned)."""
    try:
        call()
    except REFUSALS as e:
        assert str(e), f"{type(e).__name__} without a message"
        return e
    return None


@st.composite
def arrays(draw: Any, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """Mostly-wrong arrays for an ``out=`` argument whose right form is (shape, dtype)."""
    kind = draw(st.sampled_from(["right", "dtype", "shape", "strided", "fortran", "readonly",
                                 "transposed", "list", "scalar", "empty"]))
    if kind == "right":
        return np.zeros(shape, dtype)
    if kind == "dtype":
        return np.zeros(shape, draw(st.sampled_from([d for d in DTYPES if d is not dtype])))
    if kind == "shape":
        bad = list(shape)
        i = draw(st.integers(0, len(bad) - 1))
        bad[i] = max(0, bad[i] + draw(st.sampled_from([-1, 1, 5])))
        if draw(st.booleans()):
            bad.append(1)
        return np.zeros(tuple(bad), dtype)
    if kind == "strided":
        big = np.zeros(tuple(2 * s for s in shape), dtype)
        return big[tuple(slice(None, None, 2) for _ in shape)]
    if kind == "fortran":
        return np.zeros(shape, dtype, order="F")
    if kind == "readonly":
        a = np.zeros(shape, dtype)
        a.flags.writeable = False
        return a
    if kind == "transposed":
        return np.zeros(shape[::-1], dtype).T
    if kind == "list":
        return np.zeros(shape, dtype).tolist()  # type: ignore[return-value]
    if kind == "scalar":
        return np.zeros((), dtype)
    return np.zeros((0,), dtype)


class GameMachine(RuleBasedStateMachine):
    """A ``fast.Game`` and the Python reference stepped in lockstep, with bad calls mixed in."""

    def __init__(self) -> None:
        super().__init__()
        self.f: fast.Game | None = None
        self.p: Game | None = None
        self.clones: list[tuple[fast.Game, Game]] = []

    @rule(preset=st.sampled_from(PRESETS), seed=st.integers(0, 2**32))
    def deal(self, preset: str, seed: int) -> None:
        self.f, self.p = fast.Game(preset, seed=seed), Game(preset, seed=seed)
        self.clones = []

    @precondition(lambda self: self.p is not None and not self.p.done)
    @rule(pick=st.integers(0, 10**6))
    def step_legal(self, pick: int) -> None:
        assert self.f is not None and self.p is not None
        legal = self.p.legal_actions()
        a = legal[pick % len(legal)]
        self.p.step(a)
        self.f.step(a)

    @precondition(lambda self: self.p is not None)
    @rule(action=junk_actions)
    def step_anything(self, action: Any) -> None:
        """Any value: the compiled core does exactly what the reference does (same message)."""
        assert self.f is not None and self.p is not None
        try:
            self.p.step(action)
        except IllegalActionError as pe:
            with pytest.raises(IllegalActionError) as fe:
                self.f.step(action)
            assert str(fe.value) == str(pe)
            return
        self.f.step(action)  # the reference took it (a legal numpy int, True for 1...)

    @precondition(lambda self: self.p is not None)
    @rule(keep=st.booleans())
    def clone(self, keep: bool) -> None:
        assert self.f is not None and self.p is not None
        fc, pc = self.f.clone(), copy.deepcopy(self.p)
        assert fc.record() == self.f.record()
        if keep:
            self.f, self.p = fc, pc  # go on with the copy; the original must stay as it was
        self.clones.append((fc if not keep else self.f, pc if not keep else self.p))
        self.clones = self.clones[-3:]

    @precondition(lambda self: self.f is not None)
    @rule(seat=st.one_of(st.integers(-2, 4), st.integers(-(2**65), 2**65), st.none(), st.just(1.0),
                         st.just("0")),
          data=st.data())
    def observation(self, seat: Any, data: Any) -> None:
        assert self.f is not None and self.p is not None
        out = data.draw(arrays((len(encode(self.p.view(0))),), np.float32)) if data.draw(st.booleans()) \
            else None
        err = refused(lambda: self.f.observation(seat, out=out))  # type: ignore[union-attr]
        good_seat = isinstance(seat, int) and 0 <= seat < 3
        good_out = out is None or (isinstance(out, np.ndarray) and out.dtype == np.float32
                                   and out.shape == (len(encode(self.p.view(0))),)
                                   and out.flags.c_contiguous and out.flags.writeable)
        if good_seat and good_out:
            assert err is None, err
            got = self.f.observation(seat)
            assert np.array_equal(got, encode(self.p.view(seat)))
            if out is not None:
                assert np.array_equal(out, got)
        else:
            assert err is not None, (seat, None if out is None else (out.dtype, out.shape))

    @precondition(lambda self: self.f is not None)
    @rule(seat=st.one_of(st.none(), st.integers(-1, 3)), data=st.data())
    def state(self, seat: Any, data: Any) -> None:
        assert self.f is not None
        n = len(self.f.state(0))
        out = data.draw(arrays((n,), np.float32)) if data.draw(st.booleans()) else None
        refused(lambda: self.f.state(seat, out=out))  # type: ignore[union-attr]

    @precondition(lambda self: self.f is not None)
    @rule(which=st.sampled_from(["expert", "greedy", "random", "playout", "view", "mask",
                                 "record", "replay", "events", "result"]),
          seat=st.integers(-1, 3))
    def other_calls(self, which: str, seat: int) -> None:
        """Bots, playout, views and records, also after the hand is over: a value or a refusal."""
        f, p = self.f, self.p
        assert f is not None and p is not None
        calls = {
            "expert": f.expert_action, "greedy": f.greedy_action,
            "random": lambda: f.random_action(seed=seat % 7),
            "playout": lambda: f.playout(policy=("random", "greedy", "expert", "nobody")[seat % 4]),
            "view": lambda: f.view(seat), "mask": lambda: f.action_mask(seat),
            "record": f.record, "replay": lambda: fast.Game.replay(f.record()),
            "events": lambda: f.events, "result": lambda: f.result,
        }
        got: list[Any] = []
        err = refused(lambda: got.append(calls[which]()))
        if which in ("expert", "greedy", "random") and err is None:
            assert not p.done and got[0] in p.legal_actions()
        if which in ("expert", "greedy", "random") and p.done:
            assert err is not None  # no action is legal in a finished hand
        if which in ("record", "events", "result"):
            assert err is None
        if which == "replay":
            assert err is None and got[0].record() == f.record()
        if which == "playout" and err is None:
            assert got[0].done and f.record() == p.record()  # the copy played on, not f

    @invariant()
    def agrees_with_the_reference(self) -> None:
        f, p = self.f, self.p
        if f is None or p is None:
            return
        assert (f.done, f.current_player, f.legal_actions()) == (p.done, p.current_player,
                                                                 p.legal_actions())
        if not p.done:
            assert f.decision == p.decision
        else:
            assert f.result == p.result
        for fc, pc in self.clones:
            assert fc.record() == pc.record()


class VectorMachine(RuleBasedStateMachine):
    """A ``fast.VectorGame`` fed right and wrong arrays; a refused call moves no hand."""

    def __init__(self) -> None:
        super().__init__()
        self.vg: fast.VectorGame | None = None

    def records(self) -> list[Any]:
        assert self.vg is not None
        return [self.vg.hand(i).record() for i in range(self.vg.num_hands)]

    @rule(n=st.integers(1, 4), preset=st.sampled_from(PRESETS), seed=st.integers(0, 2**64 - 1))
    def make(self, n: int, preset: str, seed: int) -> None:
        self.vg = fast.VectorGame(n, preset, seed=seed)

    @rule(n=st.one_of(st.integers(-2, 0), st.just(2**70), st.just(1.5), st.none(), st.just("3")),
          seed=st.one_of(st.integers(-(2**65), -1), st.just(2**64), st.just(0)),
          reward=st.sampled_from(["score", "points", "", None]))
    def make_bad(self, n: Any, seed: Any, reward: Any) -> None:
        assert refused(lambda: fast.VectorGame(n, "huaihua", seed=seed, reward=reward)) is not None

    @precondition(lambda self: self.vg is not None)
    @rule(data=st.data())
    def observe(self, data: Any) -> None:
        vg = self.vg
        assert vg is not None
        n = vg.num_hands
        forms = {"obs": ((n, vg.obs_size), np.float32), "mask": ((n, NUM_ACTIONS), np.int8),
                 "seat": ((n,), np.int64), "decision": ((n,), np.int64)}
        kw = {k: data.draw(arrays(*v)) for k, v in forms.items() if data.draw(st.booleans())}
        err = refused(lambda: vg.observe(**kw))
        ok = all(isinstance(a, np.ndarray) and a.shape == forms[k][0] and a.dtype == forms[k][1]
                 and a.flags.c_contiguous and a.flags.writeable for k, a in kw.items())
        if ok:
            assert err is None, err
            got = vg.observe()
            for k, a in kw.items():
                assert np.array_equal(a, got[list(forms).index(k)])
        else:
            assert err is not None, {k: (getattr(a, "dtype", None), getattr(a, "shape", None))
                                     for k, a in kw.items()}

    @precondition(lambda self: self.vg is not None)
    @rule(data=st.data())
    def step(self, data: Any) -> None:
        vg = self.vg
        assert vg is not None
        n = vg.num_hands
        before = self.records()
        acts: Any = vg.random_actions()
        how = data.draw(st.sampled_from(["legal", "one_illegal", "junk_value", "dtype", "shape",
                                         "list", "strided", "out_arrays"]))
        rewards = done = None
        if how == "one_illegal":
            i = data.draw(st.integers(0, n - 1))
            legal = vg.hand(i).legal_actions()
            acts[i] = data.draw(st.one_of(st.sampled_from([a for a in range(NUM_ACTIONS)
                                                           if a not in legal]),
                                          st.integers(-(2**63), -1), st.integers(NUM_ACTIONS, 2**63 - 1)))
        elif how == "junk_value":
            acts = data.draw(junk_actions)
        elif how == "dtype":
            acts = acts.astype(data.draw(st.sampled_from(DTYPES)))
        elif how == "shape":
            acts = data.draw(st.sampled_from([acts[:-1], np.append(acts, 0), acts.reshape(n, 1),
                                              acts.reshape(1, n)]))
        elif how == "list":
            acts = [int(a) for a in acts]
        elif how == "strided":
            big = np.zeros(2 * n, np.int64)
            big[::2] = acts
            acts = big[::2]
        elif how == "out_arrays":
            rewards = data.draw(arrays((n, 3), np.float32))
            done = data.draw(arrays((n,), np.bool_))
        err = refused(lambda: vg.step(acts, rewards=rewards, done=done))
        if err is not None:
            assert self.records() == before  # a refused step moves no hand
        elif how in ("one_illegal",):
            raise AssertionError("an illegal action was taken")

    @precondition(lambda self: self.vg is not None)
    @rule(i=st.one_of(st.integers(-2, 5), st.integers(-(2**65), 2**65), st.none(), st.just(1.0)),
          which=st.sampled_from(["hand", "last_hand", "deal_index", "set_hand", "set_hand_other"]))
    def slots(self, i: Any, which: str) -> None:
        vg = self.vg
        assert vg is not None
        g = fast.Game(vg.rules, seed=3)
        calls = {"hand": lambda: vg.hand(i), "last_hand": lambda: vg.last_hand(i),
                 "deal_index": lambda: vg.deal_index(i), "set_hand": lambda: vg.set_hand(i, g),
                 "set_hand_other": lambda: vg.set_hand(i, fast.Game(
                     "yongzhou" if vg.rules.name != "yongzhou" else "huaihua", seed=1))}
        err = refused(calls[which])
        in_range = isinstance(i, int) and 0 <= i < vg.num_hands
        if not in_range or which == "set_hand_other":
            assert err is not None, (which, i)
        elif which == "set_hand":
            assert err is None and vg.hand(i).record() == g.record()

    @precondition(lambda self: self.vg is not None)
    @rule(policy=st.sampled_from(["random", "greedy", "expert", "nobody", ""]), data=st.data())
    def policies_and_playouts(self, policy: str, data: Any) -> None:
        vg = self.vg
        assert vg is not None
        n = vg.num_hands
        before = self.records()
        out = data.draw(arrays((n,), np.int64)) if data.draw(st.booleans()) else None
        which = data.draw(arrays((n,), np.bool_)) if data.draw(st.booleans()) else None
        refused(lambda: vg.policy_actions(policy, out=out, which=which))
        refused(lambda: vg.playout(policy, seed=data.draw(st.integers(0, 2**64 - 1)),
                                   out=data.draw(arrays((n, 3), np.float32))))
        acts = vg.random_actions()
        refused(lambda: vg.playout_after(acts, data.draw(arrays((n,), np.bool_)), policy))
        refused(lambda: vg.state(out=data.draw(arrays((n, vg.state_size), np.float32))))
        assert self.records() == before  # none of these moves a hand

    @precondition(lambda self: self.vg is not None)
    @rule()
    def clone(self) -> None:
        vg = self.vg
        assert vg is not None
        c = vg.clone()
        assert [c.hand(i).record() for i in range(c.num_hands)] == self.records()
        c.step(c.random_actions())
        self.vg = c if c.num_hands % 2 else vg

    @invariant()
    def masks_match_the_hands(self) -> None:
        vg = self.vg
        if vg is None:
            return
        _, mask, seat, _ = vg.observe()
        for i in range(vg.num_hands):
            h = vg.hand(i)
            assert not h.done and h.current_player == seat[i]
            assert np.flatnonzero(mask[i]).tolist() == h.legal_actions()


def _run(machine: type[RuleBasedStateMachine], examples: int, steps: int) -> None:
    run_state_machine_as_test(machine, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None, derandomize=True,
        database=None, suppress_health_check=list(HealthCheck)))


@pytest.mark.parametrize("examples, steps", [
    (12, 40),
    pytest.param(400, 80, marks=pytest.mark.slow),
])
def test_fuzz_fast_game(examples, steps):
    _run(GameMachine, examples, steps)


@pytest.mark.parametrize("examples, steps", [
    (10, 30),
    pytest.param(300, 60, marks=pytest.mark.slow),
])
def test_fuzz_vector_game(examples, steps):
    _run(VectorMachine, examples, steps)
