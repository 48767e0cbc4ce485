"""``python -m fox_envs ...``: the command line (see ``fox_envs.cli``)."""
import sys

from fox_envs.cli import main

if __name__ == "__main__":
    sys.exit(main())
