"""Build the optional C module; everything else about the package is in pyproject.toml.

``precmp_lib.core._native`` holds the label-coding loops of ``precmp_lib/core/_native.c``. It is built
where a C compiler is found and skipped where not (``optional=True``): the numpy kernels in
``precmp_lib/core/factorize.py`` then give the same codes, more slowly.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("precmp_lib.core._native", ["precmp_lib/core/_native.c"], optional=True)])
