"""Tests of the precmp command (precmp_lib.cli)."""
