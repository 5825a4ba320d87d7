"""Tests of precmp_lib.stats."""
