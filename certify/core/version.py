"""The package version, at the bottom of the layers so that certificate writers can stamp it."""

__all__ = ["__version__"]

#: The package version, stamped into every certificate.
__version__ = "0.1.0"
