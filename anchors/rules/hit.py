"""What a rule reports: a rule id, its category, a span of the original text, and why."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hit:
    rule: str  # stable id, "<family>.<name>"
    category: str  # injection | exfiltration | secret | ssh-backdoor | unicode
    start: int  # offsets into the original text, end exclusive
    end: int
    message: str
