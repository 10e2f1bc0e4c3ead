"""refbot's review service under Toolforge's python webservice: ``webservice python3.11 start`` runs uWSGI on
``$HOME/www/python/src/app.py`` (this file, through the link docs/service.md makes) with the virtual environment
``$HOME/www/python/venv`` (a link to refbot's), and serves its ``app``. The settings are ``$HOME/refbot.ini``
(``REFBOT_CONFIG`` names another), the secrets the tool's environment variables (``toolforge envvars``):
REFBOT_SERVICE_CLIENT_SECRET, REFBOT_SERVICE_SECRET_KEY and the ledger's password."""

import os
from pathlib import Path

from bot.options import load_options
from bot.review.service import wsgi_app

app = wsgi_app(load_options(Path(os.environ.get("REFBOT_CONFIG") or Path.home() / "refbot.ini")))
