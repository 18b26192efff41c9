"""Platforms: the thin JSON-in/JSON-out layers between the harness and each implementation."""
