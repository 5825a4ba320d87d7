"""Comparing classifiers over many data sets: Wilcoxon, Friedman, Iman-Davenport, Nemenyi, tests against a control."""

__all__: list[str] = []
