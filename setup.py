"""Build the optional C module; everything else about the package is in pyproject.toml.

``precmp_lib.engine._native`` holds the label-coding loops of ``precmp_lib/engine/_native.c``. It is built
where a C compiler is found and skipped where not (``optional=True``): the numpy kernels in
``precmp_lib/engine/factorize.py`` then give the same codes, more slowly.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("precmp_lib.engine._native", ["precmp_lib/engine/_native.c"], optional=True)])
