"""The file stores beside the op-log: the personal notebook, team profiles and the blueprint.

Each is a markdown file people read and edit. What they share lives here: every write passes the
scanner first, replaces the file atomically (a reader sees the old or the new file, never half),
and serialises with other writers on a lock file.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from anchors.errors import Rejected, UsageError
from anchors.scanner import scan_text


class StoreFull(UsageError):
    """A write would take a store past its cap; nothing was written."""


class UnknownEntry(UsageError):
    """No profile, section or entry by that name or number."""


def check_text(text: str, what: str, root: Path | None = None) -> str:
    """Refuse empty or all-whitespace text and anything the scanner rejects; return it stripped.

    A rejection is recorded in the repository's audit log (the rule and a hash, never the text)."""
    if not isinstance(text, str) or not text.strip():
        raise UsageError(f"{what} is empty (all whitespace)")
    findings = scan_text(text)
    if findings:
        if root is not None:
            _audit(root, findings, text)
        raise Rejected(findings, field=what)
    return text.strip()


def _audit(root: Path, findings: list, text: str) -> None:  # type: ignore[type-arg]
    from anchors import git
    from anchors.audit import record_rejection

    with contextlib.suppress(git.GitError, OSError):
        record_rejection(git.find_repo(root).git_dir / "tether", findings, text, "store")


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `<path>.lock` so two writers cannot interleave."""
    from anchors.oplog import exclusive

    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(Path(str(path) + ".lock")):
        yield


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` (fsynced temp file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_text(path: Path) -> str:
    """The file's text, "" when it does not exist; a non-UTF-8 file is a clear usage error."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None
