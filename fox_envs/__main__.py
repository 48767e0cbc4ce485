"""``python -m fox_envs ...``: the command line (see ``fox_envs.ui.cli``)."""
import sys

from fox_envs.ui.cli import main

if __name__ == "__main__":
    sys.exit(main())
