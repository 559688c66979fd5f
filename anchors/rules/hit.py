"""What a rule reports: a rule id, its category, a span of the original text, and why."""

from __future__ import annotations


class Hit(tuple[str, str, int, int, str]):
    """(rule, category, start, end, message): a tuple, so hits compare, hash and sort as values.

    Not a dataclass: defining one at import costs ~0.5 ms, paid by every `tether add`.
    """

    __slots__ = ()

    def __new__(cls, rule: str, category: str, start: int, end: int, message: str) -> Hit:
        return tuple.__new__(cls, (rule, category, start, end, message))

    @property
    def rule(self) -> str:
        """Stable id, "<family>.<name>"."""
        return self[0]

    @property
    def category(self) -> str:
        """injection | exfiltration | secret | ssh-backdoor | unicode."""
        return self[1]

    @property
    def start(self) -> int:
        """Offset into the original text."""
        return self[2]

    @property
    def end(self) -> int:
        """Offset into the original text, exclusive."""
        return self[3]

    @property
    def message(self) -> str:
        """Why the rule fired."""
        return self[4]
