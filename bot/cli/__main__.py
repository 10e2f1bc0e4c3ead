"""`python -m bot.cli`: the `refbot` command without its console script."""

from bot.cli import main

raise SystemExit(main())
