"""Agents: the protocol, the random baseline, the heuristic base class, MCTS, and lookup by name."""
from typing import Any

from fox_envs.agents.base import Agent, HeuristicAgent, PolicyAgent, RandomAgent, SeededAgent, reset_agent
from fox_envs.agents.mcts import MCTSAgent, SearchSettings
from fox_envs.agents.registry import agent_names, load_policy, make_agent, save_policy, trusted

__all__ = [
    "AGENT_NAMES", "Agent", "HeuristicAgent", "MCTSAgent", "PolicyAgent", "RandomAgent", "SearchSettings", "SeededAgent",
    "agent_names", "load_policy", "make_agent", "reset_agent", "save_policy", "trusted",
]


def __getattr__(name: str) -> Any:
    if name == "AGENT_NAMES":  # read when asked, so that it includes games registered later
        return agent_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
