"""The package version, at the bottom of the layers so that certificate writers can stamp it."""

__version__ = "0.1.0"
