"""Policies trained by the scripts in ``examples/``, as fox_envs agents. A saved policy file
names its factory here, so it loads wherever fox_envs is installed.

* ``xceter_o_q``: the tabular Q-learning policy for X-Ceter-O (numpy);
* ``bye_bye_mr_fox_td``: the afterstate value network for Bye Bye Mr. Fox! (numpy);
* ``sb3_policy``: a MaskablePPO model (the ``train`` extra), with ``outfox_board_policy`` (its
  point-by-point network for Outfox) and ``outfox_planes`` (its extra input planes).

``LEGACY_FACTORIES`` maps the factories that files saved by older versions of the examples
name (``examples.<script>:load_agent``) to these.
"""
LEGACY_FACTORIES = {
    "examples.train_xceter_o_qlearning:load_agent": "fox_envs.agents.trained.xceter_o_q:load_agent",
    "examples.train_bye_bye_mr_fox:load_agent": "fox_envs.agents.trained.bye_bye_mr_fox_td:load_agent",
    "examples.train_maskable_ppo:load_agent": "fox_envs.agents.trained.sb3_policy:load_agent",
}
