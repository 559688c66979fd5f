"""TOML reading for Python 3.10 and later: the standard library's `tomllib` from 3.11, `tomli` (the
same parser, a dependency on 3.10) before."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10
    import tomli as tomllib

loads = tomllib.loads
load = tomllib.load
TOMLDecodeError = tomllib.TOMLDecodeError

__all__ = ["TOMLDecodeError", "load", "loads"]
