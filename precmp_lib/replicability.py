"""Bouckaert's replicability R(e) and the replicability experiment."""

__all__: list[str] = []
