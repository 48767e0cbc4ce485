"""Agents: the protocol, the random baseline, heuristics by game, MCTS, and lookup by name."""
from fox_envs.agents.base import Agent, PolicyAgent, RandomAgent, SeededAgent, reset_agent
from fox_envs.agents.mcts import MCTSAgent
from fox_envs.agents.registry import AGENT_NAMES, load_policy, make_agent, save_policy

__all__ = [
    "AGENT_NAMES", "Agent", "MCTSAgent", "PolicyAgent", "RandomAgent", "SeededAgent", "load_policy",
    "make_agent", "reset_agent", "save_policy",
]
