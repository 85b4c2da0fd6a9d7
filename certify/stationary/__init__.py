"""Exact stationary analysis of finite and truncated networks (:mod:`.analysis`)."""
