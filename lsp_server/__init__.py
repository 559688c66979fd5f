"""The Tether language server (`tether lsp`): learnings as hovers, code lenses and diagnostics."""

__version__ = "0.1.0"
