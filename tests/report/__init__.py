"""Tests of precmp_lib.report."""
