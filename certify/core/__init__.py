"""The bottom layer: errors, the exact network model, exact numbers, hypotheses and the certificate envelope."""

__all__: list[str] = []
