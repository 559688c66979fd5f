"""The repository's Tether settings: `.tether/config.toml`, reviewed like code.

```toml
[learnings]
cap_per_category = 100      # a write past it archives the least salient learning

[context]
budget = 2000               # characters in a context pack
```
A missing file or key means the default; a malformed file is a usage error naming the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anchors.errors import UsageError

CONFIG_PATH = Path(".tether") / "config.toml"

DEFAULT_CAP_PER_CATEGORY = 100
DEFAULT_CONTEXT_BUDGET = 2000


@dataclass(frozen=True)
class Config:
    cap_per_category: int = DEFAULT_CAP_PER_CATEGORY
    context_budget: int = DEFAULT_CONTEXT_BUDGET


def _load_toml(path: Path) -> dict[str, Any]:
    from anchors import toml as tomllib

    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None


def _positive_int(data: dict[str, Any], section: str, key: str, default: int, path: Path) -> int:
    value = (
        data.get(section, {}).get(key, default) if isinstance(data.get(section), dict) else default
    )
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise UsageError(f"{path}: [{section}] {key} must be a positive integer, not {value!r}")
    return value


def load_config(root: Path) -> Config:
    """Read `<root>/.tether/config.toml` (defaults for whatever it does not say)."""
    path = root / CONFIG_PATH
    if not path.is_file():
        return Config()
    data = _load_toml(path)
    return Config(
        cap_per_category=_positive_int(
            data, "learnings", "cap_per_category", DEFAULT_CAP_PER_CATEGORY, path
        ),
        context_budget=_positive_int(data, "context", "budget", DEFAULT_CONTEXT_BUDGET, path),
    )
