"""Sufficient statistics: joint confusion counts and per-observation pattern counts."""

__all__: list[str] = []
