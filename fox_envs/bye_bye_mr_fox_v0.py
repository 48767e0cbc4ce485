"""Bye Bye Mr. Fox! as a PettingZoo AEC env: ``env()`` (wrapped) and ``raw_env``."""
from fox_envs.core.aec import FoxEnv, wrap


class raw_env(FoxEnv):
    game_id = "bye_bye_mr_fox_v0"


def env(**kwargs):
    return wrap(raw_env(**kwargs))
