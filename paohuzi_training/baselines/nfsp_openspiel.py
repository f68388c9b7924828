"""OpenSpiel's NFSP (PyTorch) on ``python_paohuzi`` — a short, complete example of training an
OpenSpiel algorithm on the game, then evaluating it against the project's bots.

    python -m paohuzi_training.baselines.nfsp_openspiel --steps 20000

Three NFSP agents (``open_spiel.python.pytorch.nfsp``: a DQN best response and a supervised
average policy each) play one another through OpenSpiel's ``rl_environment`` on the game's
information-state tensors (the AEC env's observation, 763 floats), under the ``normalized``
reward (points / 64), for ``--steps`` decisions. Then seat 0's average policy plays
``--deals`` deals against ``random``, ``greedy`` and ``expert`` in the other two seats (those
agents as pyspiel bots, :func:`paohuzi_env.envs.openspiel.make_bot`), each deal three times with
the policy in each seat in turn, and its mean points per deal are printed. Randomness: the
chance nodes from a ``ChanceEventSampler`` seeded with ``--seed``; OpenSpiel's NFSP and DQN draw
from numpy's and torch's global generators, which NFSP itself seeds from the seed it is given
(``--seed`` + seat).

A few minutes of training gives a policy far below ``greedy``: NFSP needs millions of hands on a
game of this size. The example shows the plumbing, not a strong agent.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from . import run

OPPONENTS = ("random", "greedy", "expert")


def make_agents(game: Any, seed: int, hidden: int = 128, min_buffer: int = 1000,
                buffer: int = 100_000, batch: int = 128) -> list[Any]:
    """Three NFSP agents, one a seat, for ``game``."""
    from open_spiel.python.pytorch import nfsp

    size = game.information_state_tensor_size()
    return [
        nfsp.NFSP(seat, size, game.num_distinct_actions(), [hidden],
                  reservoir_buffer_capacity=buffer, anticipatory_param=0.1,
                  batch_size=batch, rl_learning_rate=0.01, sl_learning_rate=0.01,
                  min_buffer_size_to_learn=min_buffer, learn_every=64, optimizer_str="sgd",
                  replay_buffer_capacity=buffer, epsilon_start=0.06, epsilon_end=0.001,
                  seed=seed + seat)
        for seat in range(3)
    ]


def self_play_hand(env: Any, agents: list[Any]) -> int:
    """One hand of NFSP self-play through OpenSpiel's ``rl_environment``; returns its decisions.

    A hand can be over at the deal: R-START-1's forced 天胡 (about one hand in 10,000 under
    huaihua). ``rl_environment`` still hands it back as a FIRST time step, not a LAST one, with
    no seat to act (``current_player`` is ``TERMINAL``). It has no decision, so nothing for the
    agents to learn from: it is skipped."""
    ts = env.reset()
    if env.get_state.is_terminal():
        return 0
    n = 0
    while not ts.last():
        p = ts.observations["current_player"]
        ts = env.step([agents[p].step(ts).action])
        n += 1
    for a in agents:  # every agent sees the end of the hand
        a.step(ts)
    return n


def evaluate(game: Any, agent: Any, opponent: str, deals: int, seed: int) -> float:
    """Mean points per deal of ``agent``'s average policy against two ``opponent`` bots: each
    deal (its chance outcomes drawn from ``seed``) is played three times, the policy in each
    seat in turn."""
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    from paohuzi_env.envs.openspiel import make_bot

    rules = game.get_parameters()["rules"]
    totals = []
    for deal in range(deals):
        got = 0.0
        for seat in range(3):
            env = rl_environment.Environment(
                game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed + deal))
            bots = {s: make_bot(opponent, s, seed=[seed, deal, s], rules=rules)
                    for s in range(3) if s != seat}
            agent.player_id = seat
            ts = env.reset()
            with agent.temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
                while not env.get_state.is_terminal():  # a hand can end at the deal (天胡)
                    p = ts.observations["current_player"]
                    if p == seat:
                        action = agent.step(ts, is_evaluation=True).action
                    else:
                        action = bots[p].step(env.get_state)
                    ts = env.step([action])
            result = env.get_state.hand.result  # the points, not the clipped normalized reward
            got += float(result.scores[seat])
        totals.append(got / 3)
    agent.player_id = 0
    return float(np.mean(totals))


def train(steps: int = 20000, seed: int = 0, log=print, deals: int = 20, min_buffer: int = 1000,
          batch: int = 128, rules: str = "huaihua") -> dict:
    """NFSP self-play for ``steps`` decisions, then seat 0's average policy against the bots;
    returns the counts, each agent's last (average-policy, best-response) losses and each
    opponent's mean points per deal. ``min_buffer`` and ``batch`` size the learning (small
    values let a miniature run learn)."""
    import pyspiel
    from open_spiel.python import rl_environment

    import paohuzi_env.envs.openspiel  # noqa: F401  (registers python_paohuzi)

    game = pyspiel.load_game("python_paohuzi", {"rules": rules, "reward": "normalized"})
    env = rl_environment.Environment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
    agents = make_agents(game, seed, min_buffer=min_buffer, batch=batch)
    done_steps = hands = 0
    while done_steps < steps:
        done_steps += self_play_hand(env, agents)
        hands += 1
        if hands % 100 == 0:
            log(f"{hands} hands, {done_steps} decisions, losses {agents[0].loss}")
    seen: dict[str, Any] = {"steps": done_steps, "hands": hands, "deals": deals,
                            "losses": [a.loss for a in agents]}
    for opponent in OPPONENTS:
        seen[f"vs_{opponent}"] = evaluate(game, agents[0], opponent, deals, seed + 1)
        log(f"NFSP average policy vs two {opponent}: {seen[f'vs_{opponent}']:+.2f} points a deal "
            f"({deals} deals x 3 seats)")
    return seen


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--steps`` (decisions of self-play) and ``--seed``."""
    return run("python -m paohuzi_training.baselines.nfsp_openspiel", __doc__, "OpenSpiel",
               "open_spiel", train, argv)


if __name__ == "__main__":
    sys.exit(main())
