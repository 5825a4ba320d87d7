"""Tests of precmp_lib.fitting."""
