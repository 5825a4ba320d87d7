"""Tests of precmp_lib.compare."""
