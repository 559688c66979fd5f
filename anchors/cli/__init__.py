"""The `tether` command line: a thin adapter over the library."""
