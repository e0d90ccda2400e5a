"""``python -m emq_dive`` runs the ``emq-dive`` command."""

import sys

from .cli import main

sys.exit(main())
