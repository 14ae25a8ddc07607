"""``python -m uqval``: the command line (:mod:`uqval.cli`)."""

from uqval.cli import main

raise SystemExit(main())
