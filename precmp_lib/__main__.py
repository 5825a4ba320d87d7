"""``python -m precmp_lib``: the ``precmp`` command (defined in :mod:`precmp_lib.cli`)."""

from __future__ import annotations

import sys

from .cli import main, report_parameters

__all__ = ["main", "report_parameters"]

if __name__ == "__main__":
    sys.exit(main())
