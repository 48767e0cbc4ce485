"""Policies trained by the scripts in ``examples/``, as fox_envs agents. A saved policy file
names its factory (here, or in the game's package), so it loads wherever fox_envs is installed.

* ``sb3_policy``: a MaskablePPO model (the ``train`` extra); a game's own trained policies
  (tabular Q-learning, afterstate value networks, board networks) live in its package.

``LEGACY_FACTORIES`` maps the factories that files saved by older versions of the examples
name (``examples.<script>:load_agent``) to these.
"""
LEGACY_FACTORIES = {
    "examples.train_xceter_o_qlearning:load_agent": "fox_envs.games.xceter_o.trained_q:load_agent",
    "examples.train_bye_bye_mr_fox:load_agent": "fox_envs.games.bye_bye_mr_fox.trained_td:load_agent",
    "examples.train_maskable_ppo:load_agent": "fox_envs.agents.trained.sb3_policy:load_agent",
}
