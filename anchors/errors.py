"""Errors that reach the user: each carries the exit code the CLI contract gives it."""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms of every command's start-up
if TYPE_CHECKING:
    from anchors.scanner import Finding

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_REJECTED = 3
EXIT_NOT_A_REPO = 4


class TetherError(Exception):
    """An error with a one-line message for the user and an exit code."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(TetherError):
    """Bad input: an unknown category, empty text, a bad anchor spec, ..."""


class UnknownRecord(UsageError):
    """No record has that id (or the prefix is ambiguous)."""


class NotInRepository(TetherError):
    exit_code = EXIT_NOT_A_REPO


class Rejected(TetherError):
    """The scanner rejected a write; nothing was written."""

    exit_code = EXIT_REJECTED

    def __init__(self, findings: list[Finding], field: str = "text") -> None:
        first = findings[0]
        more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(
            f"rejected by the scanner: {first.rule} in {field} at {first.start}-{first.end}: "
            f"{first.message}{more}"
        )
        self.findings = findings


class SyncError(TetherError):
    """Sharing through git failed (no such remote, push refused, ...)."""

    exit_code = EXIT_FINDINGS
