"""Tests of precmp_lib.engine."""
