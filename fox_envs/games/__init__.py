"""One rules module per game; none of them knows PettingZoo."""
