"""Tests of precmp_lib.core."""
