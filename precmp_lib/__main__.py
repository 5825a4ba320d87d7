"""``python -m precmp_lib``: the ``precmp`` command (defined in :mod:`precmp_lib.cli`).

``python -m`` puts the working folder first on ``sys.path``; it is taken off before the
command imports anything more, so that a module there (a ``mistune.py`` beside the data) is
not imported in place of the library's own. The ``precmp`` command never had it there.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and sys.path and os.path.abspath(sys.path[0] or ".") == os.getcwd():
    del sys.path[0]

from .cli import main, report_parameters

__all__ = ["main", "report_parameters"]

if __name__ == "__main__":
    sys.exit(main())
