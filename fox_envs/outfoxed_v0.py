"""Outfoxed as a PettingZoo AEC env: ``env()`` (wrapped) and ``raw_env``."""
from fox_envs.core.aec import FoxEnv, wrap


class raw_env(FoxEnv):
    game_id = "outfoxed_v0"


def env(**kwargs):
    return wrap(raw_env(**kwargs))
