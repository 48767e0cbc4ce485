"""The user interfaces: the command line, terminal play and move building, and the web app
(``fox_envs.ui.web``, imported only by ``python -m fox_envs serve``)."""
