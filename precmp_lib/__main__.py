"""The ``precmp`` command (also ``python -m precmp_lib``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: ``precmp build-site`` renders the course notebooks (``make report``)."""
    from .report import _main

    return _main(argv)


if __name__ == "__main__":
    sys.exit(main())
