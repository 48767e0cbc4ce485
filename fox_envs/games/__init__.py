"""The package's own games: one package each, whose ``SPEC`` declares everything about it.

``fox_envs`` registers these specs when it is imported; a user's game registers its own spec
with ``fox_envs.register_game`` (see docs/adding_a_game.md).
"""
from fox_envs.games import bye_bye_mr_fox, outfox, outfoxed, outwit, xceter_o

BUILT_IN_SPECS = (xceter_o.SPEC, outwit.SPEC, outfox.SPEC, bye_bye_mr_fox.SPEC, outfoxed.SPEC)
