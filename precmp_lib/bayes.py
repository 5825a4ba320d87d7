"""Prevalence (Bayes) update of precision with bootstrap intervals."""

__all__: list[str] = []
