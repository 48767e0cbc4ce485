"""The local web app (``python -m fox_envs serve``): play, watch and replay every game in a browser.

Standard library only (``http.server``); the pages are plain HTML, CSS and JavaScript shipped in
``static/``. Modules: ``server`` (HTTP: routes, static files, pages), ``api`` (the JSON API),
``sessions`` (games and replays kept on the server by id), ``story`` (what each move set off, as
each viewer may see it), ``seats`` (reading a new game's settings from a request), ``views``
(a session as JSON for one viewer). Nothing here is imported by ``import fox_envs``.
"""
