"""Bridges to other libraries, each behind an optional extra.

Import the submodule you need, e.g. ``fox_envs.integrations.sb3`` (``pip install 'fox_envs[sb3]'``).
Importing ``fox_envs`` or this package never imports any of those libraries; a submodule whose
library is missing raises an ``ImportError`` that names the extra to install.
"""
