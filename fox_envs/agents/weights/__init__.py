"""Weights of the learned agents (``fox_envs.agents.learned``), one ``<env id>.npz`` per game."""
