"""Old module paths that still import: a module that moved answers to its old name too.

Code and saved files (policy files naming a factory, Stable-Baselines3 models naming a policy
class, pickles) refer to modules by path. When a module moves, its old path is declared here
(shared modules) or in its game's spec (``GameSpec.moved_modules``), and importing the old
path gives the module at the new one: the same module object, under both names.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import Callable, Mapping

SHARED_MOVES: dict[str, str] = {
    "fox_envs.cli": "fox_envs.ui.cli",
    "fox_envs.play": "fox_envs.ui.play",
    "fox_envs.move_steps": "fox_envs.core.move_steps",
    "fox_envs.ui.move_steps": "fox_envs.core.move_steps",
    "fox_envs.vectors": "fox_envs.vector.routing",
    "fox_envs.core.vector": "fox_envs.vector.process",
    "fox_envs.batch.vector": "fox_envs.vector.batched",
}


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the module at its new path."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.own_spec = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.own_spec  # it ran under its new name already; keep that name's spec


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths of moved modules: ``moves()`` maps each old path to its new one."""

    def __init__(self, moves: Callable[[], Mapping[str, str]]) -> None:
        self.moves = moves

    def find_spec(self, fullname: str, path=None, target=None):
        if not fullname.startswith("fox_envs."):
            return None
        target_name = self.moves().get(fullname)
        if target_name is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target_name))


def install(moves: Callable[[], Mapping[str, str]]) -> None:
    """Put a ``MovedModuleFinder`` at the end of ``sys.meta_path`` (once): it is asked only for
    names no real module has."""
    if not any(isinstance(finder, MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder(moves))
