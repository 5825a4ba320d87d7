"""Views of a comparison: the report page, its figures, the plots, and rendering.

:mod:`.html` (escaping, tables, colours), :mod:`.prediction_figures` (the predictions page's
figures), :mod:`.prediction_sections` and :mod:`.item_sections` (the sections the report
templates display),
:mod:`.render` (``render_report``: the template run in this process), :mod:`.notebooks` (a
notebook run in a kernel) and :mod:`.plots` (matplotlib figures of the tests). The templates
are in ``precmp_lib/_resources``.

May import: :mod:`precmp_lib.compare` and everything below it; never the command or the course.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['html', 'item_sections', 'notebooks', 'plots', 'prediction_figures', 'prediction_sections', 'render'])
