"""A trained sb3-contrib ``MaskablePPO`` model as a fox_envs agent (needs the ``train`` extra to
load a model; this module itself imports neither torch nor SB3).

``save_maskable_ppo(model, path, env_id, features, policy)`` writes the SB3 model (``.zip``) and
beside it a ``fox_envs.policy/1`` ``.json`` file naming ``FACTORY`` with the model's absolute
path, so ``python -m fox_envs arena outfox_v0 model.json heuristic --trust-code`` loads it from any
working directory (loading an SB3 model unpickles parts of it, so its policy file needs
``trust_code``). ``MaskedPolicyAgent`` plays the model's most probable legal action.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

FACTORY = "fox_envs.agents.trained.sb3_policy:load_agent"
POLICIES = ("board", "mlp", "cnn")
MISSING_TRAIN = ("loading a MaskablePPO policy needs the 'train' extra: install a CPU build of torch first "
                 "(pip install torch==2.13.0), then pip install 'fox_envs[train]' (missing: {name})")


class MaskedPolicyAgent:
    """The greedy (most probable) legal action of a MaskablePPO model for the player's
    observation (``observe(state, player)``: by default the observation tensor; with feature
    planes, the same function the training wrapper uses) and legal-action mask."""

    name = "ppo"

    def __init__(self, model, observe: Callable[[Any, int], Any] | None = None) -> None:
        self.model = model
        self.observe = observe or (lambda state, player: state.observation_tensor(player))

    def act(self, state, player: int) -> int:
        action, _ = self.model.predict(self.observe(state, player), deterministic=True,
                                       action_masks=state.legal_actions_mask().astype(bool))
        return int(action)


def observe_function(features: str) -> Callable[[Any, int], Any] | None:
    """What the policy sees of a state: the observation tensor (``"none"``), or Outfox's tensor
    with the completion planes appended (``"lines"``)."""
    if features == "lines":
        from fox_envs.games.outfox.planes import with_completion_planes

        return with_completion_planes
    if features != "none":
        from fox_envs.core.errors import InvalidParameterError

        raise InvalidParameterError(f"features must be 'lines' or 'none', got {features!r}")
    return None


def save_maskable_ppo(model, path: str | Path, env_id: str, features: str, policy: str) -> Path:
    """Save the SB3 model at ``path`` (``.zip``) and the policy file ``<stem>.json`` beside it;
    returns the policy file's path."""
    from fox_envs.agents.registry import save_policy

    path = Path(path)
    model.save(path)
    zip_path = path if path.suffix == ".zip" else path.with_name(path.name + ".zip")  # SB3 appends .zip
    return save_policy(zip_path.with_suffix(".json"), FACTORY, env_id, model=str(zip_path.resolve()),
                       features=features, policy=policy)


def load_agent(env_id: str, seed: int | None = None, model: str = "", features: str = "none",
               policy: str | None = None, **_: Any) -> MaskedPolicyAgent:
    """Factory of a saved policy file (``fox_envs.agents.load_policy`` calls it). ``policy``
    ``"board"`` (or a file from before it was recorded, whose model names the board policy by an
    old module path) loads with ``BoardPolicy`` from this package."""
    from fox_envs.core.errors import InvalidParameterError

    try:
        from sb3_contrib import MaskablePPO
    except ImportError as error:
        raise ImportError(MISSING_TRAIN.format(name=error.name or error)) from error
    if not Path(model).exists():
        raise InvalidParameterError(f"the SB3 model {model!r} named by the policy file does not exist")
    if policy == "board":
        return MaskedPolicyAgent(_load_board(MaskablePPO, model), observe_function(features))
    try:
        loaded = MaskablePPO.load(model, device="cpu")
    except ModuleNotFoundError:  # the board policy class under its old module path (examples._board_policy)
        loaded = _load_board(MaskablePPO, model)
    return MaskedPolicyAgent(loaded, observe_function(features))


def _load_board(MaskablePPO, model: str):
    from fox_envs.games.outfox.board_policy import BoardPolicy

    return MaskablePPO.load(model, device="cpu", custom_objects={"policy_class": BoardPolicy})
