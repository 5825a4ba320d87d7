"""Tests of precmp_lib.course."""
