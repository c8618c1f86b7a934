"""Schmier: a self-hostable server for the Schmier / Smear family of card games."""

__version__ = "0.2.0"
"""The one place the version is written: the package metadata (pyproject.toml reads it
from here), `GET /api/version`, `GET /healthz` and the `schmier_build_info` metric."""
