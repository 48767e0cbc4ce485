"""Agents: the protocol, the random baseline, heuristics by game, and lookup by name."""
from fox_envs.agents.base import Agent, PolicyAgent, RandomAgent, SeededAgent, reset_agent
from fox_envs.agents.registry import AGENT_NAMES, make_agent

__all__ = ["AGENT_NAMES", "Agent", "PolicyAgent", "RandomAgent", "SeededAgent", "make_agent", "reset_agent"]
