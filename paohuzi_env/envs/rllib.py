"""Ray RLlib adapter (the ``rllib`` extra: ``pip install -e '.[rllib]'``, RLlib's new API stack).

* :class:`PaohuziMultiAgentEnv`: a ``ray.rllib.env.MultiAgentEnv`` for one hand per episode,
  turn-based (each step's observation dict holds the seat to act only), with the key names and
  dtypes RLlib's action-masking modules expect: ``{"observations": float32 (OBS,),
  "action_mask": float32 (61,)}``. When the hand ends every seat that acted gets its reward
  (:mod:`paohuzi_env.encode.rewards` modes: zero-sum under ``score`` when all three acted; nearly so
  under ``normalized``, which clips), so read RLlib's ``agent_episode_returns_mean`` (per seat),
  not ``episode_return_mean`` (their sum, about 0 whatever the play).
  ``action_space.sample()`` draws a *legal* action of the position (as a masked sample would),
  so RLlib's environment pre-check, which steps one sampled action, plays a legal move.
* :func:`load_rllib_agent` (``make_agent("rllib:PATH")``, so ``paohuzi-eval rllib:PATH``): the
  greedy (argmax of masked logits) policy of a checkpoint saved by
  ``paohuzi_training/baselines/rllib_ppo.py``.

The trainer's side (the PPO config: one shared action-masking module for the three seats) is
:mod:`paohuzi_training.baselines.rllib_ppo`; this module is the runtime's only.

Versions: ``ray[rllib]`` 2.60 pins ``gymnasium==1.2.2``; this package accepts any gymnasium
``>=1.0,<2`` (PettingZoo itself needs 1.0), so installing the extra moves gymnasium to 1.2.2 and
everything else keeps working.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

try:
    import gymnasium as gym
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"paohuzi_env.envs.rllib needs Ray RLlib ({e}); install it with: pip install -e '.[rllib]' "
        "(or pip install 'ray[rllib]')"
    ) from e

from ..backends.reference import legal_mask
from ..backends.select import game_class, resolve_backend
from ..bots.base import Agent
from ..encode.observation import encode, obs_size
from ..encode.rewards import REWARD_MODES, reward_of
from ..game.actions import NUM_ACTIONS
from ..game.engine import PlayerView
from ..game.protocol import GameProtocol
from ..game.rules import Rules, as_rules

__all__ = [
    "PaohuziMultiAgentEnv",
    "LegalDiscrete",
    "MODULE_ID",
    "load_rllib_agent",
    "RLlibAgent",
]

AGENTS = ("player_0", "player_1", "player_2")
MODULE_ID = "shared"
"""The one RLModule all three seats share (self-play)."""
META_FILE = "paohuzi.json"
"""Written beside an RLlib checkpoint by paohuzi_training/baselines/rllib_ppo.py: the rules it was
trained under."""


class LegalDiscrete(gym.spaces.Discrete):
    """``Discrete(61)`` whose ``sample()`` (no mask given) draws uniformly among the legal actions
    of the position its environment is at, for the agent to act; any other agent, or a space
    detached from its environment (a pickled copy), samples as ``Discrete`` does."""

    def __init__(self, n: int, env: PaohuziMultiAgentEnv | None = None, agent: str = "") -> None:
        super().__init__(n)
        self._env = env
        self._agent = agent

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        """A uniform legal action for the agent to act (no ``mask``/``probability`` given), else
        :meth:`gymnasium.spaces.Discrete.sample`."""
        env = self._env
        if mask is None and probability is None and env is not None and env.game is not None:
            g = env.game
            if not g.done and AGENTS[g.current_player] == self._agent:
                legal = g.legal_actions()
                return np.int64(legal[int(self.np_random.integers(len(legal)))])
        if probability is not None:
            return super().sample(mask=mask, probability=probability)
        return super().sample(mask=mask)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_env"] = None  # spaces travel to learners in module specs: never the env
        return state


class PaohuziMultiAgentEnv(MultiAgentEnv):
    """One hand of 跑胡子 per episode, for RLlib (see the module docstring).

    Args:
        config: RLlib's env config, a dict with the optional keys ``rules`` (preset name or
            :class:`~paohuzi_env.game.rules.Rules`, default ``huaihua``), ``reward`` (``score``,
            ``win`` or ``normalized``; default ``normalized``: points / 64 clipped to [-1, 1],
            which PPO's value head learns more easily), ``backend`` (``auto``/``fast``/``python``)
            and ``seed`` (seeds the deals when ``reset`` gets none; RLlib passes each env
            runner's own seed to ``reset``).

    Raises:
        ValueError: for an unknown config key or a bad value, naming what is allowed.
    """

    KEYS = ("rules", "reward", "backend", "seed")

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(self.KEYS))
        if unknown:
            raise ValueError(f"unknown PaohuziMultiAgentEnv config keys {unknown}; valid: {list(self.KEYS)}")
        self.rules: Rules = as_rules(config.get("rules", "huaihua"))
        self.reward_mode = config.get("reward", "normalized")
        if self.reward_mode not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {self.reward_mode!r}")
        self.backend = resolve_backend(config.get("backend"))
        self._game_cls = game_class(self.backend)
        self._rng = np.random.default_rng(config.get("seed"))
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        obs_space = gym.spaces.Dict({
            "observations": gym.spaces.Box(0.0, 1.0, (obs_size(self.rules),), np.float32),
            "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
        })
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self._action_space_of = {a: LegalDiscrete(NUM_ACTIONS, self, a) for a in AGENTS}
        self.action_spaces = {a: s for a, s in self._action_space_of.items()}
        self.game: Any = None  # a GameProtocol (either backend)
        self._acted: set[str] = set()

    def _obs(self, seat: int) -> dict[str, np.ndarray]:
        g = self.game
        assert g is not None
        return {"observations": g.observation(seat), "action_mask": g.action_mask(seat).astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new hand (``seed``: the same seed, the same deal) and observe its first seat."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for i, a in enumerate(AGENTS):  # sample() reproducible too
                self._action_space_of[a].seed(int(np.random.SeedSequence([seed, i]).generate_state(1)[0]))
        self.game = self._game_cls(self.rules, seed=int(self._rng.integers(2**63)))
        self._acted = set()
        if self.game.done:  # a forced 天胡 at the deal (R-START-1): nobody decides; deal again
            return self.reset(options=options)
        agent = AGENTS[self.game.current_player]
        self._acted.add(agent)
        return {agent: self._obs(self.game.current_player)}, {}

    def step(self, action_dict: dict[Any, Any]) -> Any:  # (obs, rewards, terms, truncs, infos)
        """Apply the acting seat's action; at the hand's end every seat that acted gets its
        reward and last observation, and ``terminateds["__all__"]`` is True.

        Raises:
            ValueError: when ``action_dict`` lacks the acting seat or names another seat.
            paohuzi_env.game.engine.IllegalActionError: for an illegal action (naming the legal ones).
        """
        g = self.game
        if g is None or g.done:
            raise ValueError("the hand is over (or was never dealt): call reset()")
        agent = AGENTS[g.current_player]
        if set(action_dict) != {agent}:
            raise ValueError(f"{agent} is to act alone; got actions for {sorted(action_dict)}")
        g.step(int(action_dict[agent]))
        if g.done:
            seats = [i for i, a in enumerate(AGENTS) if a in self._acted]
            obs = {AGENTS[i]: self._obs(i) for i in seats}
            rewards = {AGENTS[i]: float(reward_of(g.result, i, self.reward_mode)) for i in seats}
            done = dict.fromkeys(obs, True)
            return obs, rewards, {**done, "__all__": True}, {"__all__": False}, {}
        nxt = AGENTS[g.current_player]
        self._acted.add(nxt)
        return ({nxt: self._obs(g.current_player)}, {agent: 0.0}, {"__all__": False},
                {"__all__": False}, {})


# ---------------------------------------------------------------------- evaluation agent


def module_path(checkpoint: str) -> str:
    """The shared module's folder inside an algorithm checkpoint (or the path itself when it
    is already a module checkpoint)."""
    inner = os.path.join(checkpoint, "learner_group", "learner", "rl_module", MODULE_ID)
    return inner if os.path.isdir(inner) else checkpoint


class RLlibAgent(Agent):
    """The greedy policy of an RLlib action-masking module: argmax of the masked logits."""

    name = "rllib"

    def __init__(self, module: Any, rules: str | Rules = "huaihua", seed: Any = None) -> None:
        super().__init__(seed)
        import torch

        self._torch = torch
        self.module = module
        self.rules = as_rules(rules)

    def _choose(self, obs: np.ndarray, legal: list[int]) -> int:
        torch = self._torch
        mask = legal_mask(legal, dtype=np.float32)
        batch = {"obs": {"observations": torch.from_numpy(np.asarray(obs, np.float32))[None],
                         "action_mask": torch.from_numpy(mask)[None]}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].numpy()
        return int(legal[int(np.argmax(logits[legal]))])

    def act(self, view: PlayerView) -> int:
        """The legal action with the highest masked logit on ``view``."""
        return self._choose(encode(view), list(view.legal))

    def act_game(self, game: GameProtocol, seat: int) -> int:
        """As :meth:`act`, on the observation the game encodes for ``seat``."""
        return self._choose(game.observation(seat), game.legal_actions())


def load_rllib_agent(path: str, seed: Any = None, rules: str | Rules = "huaihua") -> RLlibAgent:
    """``make_agent("rllib:PATH", seed, rules)``: the agent of an RLlib checkpoint made by
    ``paohuzi_training/baselines/rllib_ppo.py`` (the algorithm's folder, or its shared module's).

    Raises:
        ValueError: if the path holds no checkpoint, or one trained under other rules.
    """
    if not os.path.isdir(path):
        raise ValueError(f"rllib:{path}: no such checkpoint folder")
    rules = as_rules(rules)
    meta_file = os.path.join(path, META_FILE)
    if os.path.exists(meta_file):
        with open(meta_file, encoding="utf-8") as f:
            meta = json.load(f)
        if meta.get("rules") != rules.name or meta.get("obs_size") != obs_size(rules):
            raise ValueError(
                f"rllib:{path} was trained under rules {meta.get('rules')!r} "
                f"(observation size {meta.get('obs_size')}); evaluating under {rules.name!r} "
                f"needs a checkpoint trained for it"
            )
    from ray.rllib.core.rl_module.rl_module import RLModule

    try:
        module: Any = RLModule.from_checkpoint(os.path.abspath(module_path(path)))
    except Exception as e:  # RLlib raises several kinds for a folder that is no checkpoint
        raise ValueError(f"rllib:{path} is no RLlib module checkpoint ({type(e).__name__}: {e})") from e
    space = getattr(module, "observation_space", None)
    if isinstance(space, gym.spaces.Dict) and "observations" in space.spaces:
        space = space["observations"]
    shape = getattr(space, "shape", None)
    if shape is not None and tuple(shape) != (obs_size(rules),):
        raise ValueError(
            f"rllib:{path} reads {shape[0]} observation floats; rules {rules.name!r} give "
            f"{obs_size(rules)}: evaluate it under the rules it was trained for"
        )
    module.eval()
    return RLlibAgent(module, rules=rules, seed=seed)
