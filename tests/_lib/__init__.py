"""Tests of precmp_lib._lib."""
