"""Views of a comparison: the report page, its figures, and rendering.

:mod:`.html` (escaping, tables, the one colour palette), :mod:`.prediction_figures` (the
predictions page's figures), :mod:`.prediction_sections` and :mod:`.item_sections` (the sections
the report templates display), :mod:`.render` (``render_report``: the template run in this
process) and :mod:`.notebooks` (a notebook run in a kernel). The templates are in
``precmp_lib/_resources``; the notebooks' plots are the course's (:mod:`precmp_lib.course.plots`).

May import: :mod:`precmp_lib.compare` and everything below it; never the command or the course.
"""

from .._lib.lazy import submodule_access

__getattr__, __dir__ = submodule_access(__name__, ['html', 'item_sections', 'notebooks', 'prediction_figures', 'prediction_sections', 'render'])
