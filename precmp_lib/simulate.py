"""Simulation of correlated paired predictions and power curves."""

__all__: list[str] = []
