"""Per-class precision comparison: GS, weighted GS, GEE Wald, multinomial Wald, RP, multi-classifier GEE."""

__all__: list[str] = []
