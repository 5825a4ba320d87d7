"""Tests on resampled scores: Nadeau-Bengio corrected t, 5x2cv t and F, k-fold and resampled t."""

__all__: list[str] = []
