"""Facts: what bootstrap learned, before it becomes a quarantined learning."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass


@dataclass
class Fact:
    key: str  # stable identity across runs, e.g. "test-command"
    text: str
    category: str
    path: str  # the file it came from (its anchor)


def fact_tag(key: str) -> str:
    """A tag-safe (no spaces, <= 30 chars) stable key for a fact."""
    slug = re.sub(r"[^A-Za-z0-9._-]", "-", key)[:18]
    return f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"
