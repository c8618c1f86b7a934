"""Fixtures: filled in by the module that owns them."""
