"""Tether's core: learnings anchored to code, the op-log, its projection, recall, the CLI."""

__version__ = "0.1.0"
