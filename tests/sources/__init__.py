"""Tests of precmp_lib.sources."""
