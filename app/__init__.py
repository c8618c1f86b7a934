"""Schmier: a self-hostable server for the Schmier / Smear family of card games."""

__version__ = "0.1.0"
