"""The repository's tracked files, as bootstrap reads them: listed by git, read with a size cap."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from anchors import git

MAX_FILE_BYTES = 256 * 1024


class Repo:
    """Read-only access to the tracked files of the repository at HEAD's work tree."""

    def __init__(self, root: Path) -> None:
        self.root = root
        listed = git.run(["ls-files", "-z"], root, check=False).stdout.decode("utf-8", "replace")
        self.files = sorted(f for f in listed.split("\0") if f)
        self._set = set(self.files)

    def glob(self, pattern: str) -> list[str]:
        """Tracked paths matching `pattern` at exactly its depth."""
        return [f for f in self.files if PurePosixPath(f).match(pattern) and _depth_ok(f, pattern)]

    def has(self, path: str) -> bool:
        """Whether `path` is tracked."""
        return path in self._set

    def present(self, names: tuple[str, ...]) -> list[str]:
        """Those of `names` that are tracked, in the given order."""
        return [n for n in names if n in self._set]

    def read(self, path: str) -> str:
        """The file's text, or "" when it is too large, unreadable or not UTF-8."""
        full = self.root / path
        try:
            if full.stat().st_size > MAX_FILE_BYTES:
                return ""
            return full.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""


def _depth_ok(path: str, pattern: str) -> bool:
    # PurePosixPath.match anchors at the right: keep `Dockerfile` from matching a/b/c/Dockerfile.
    return path.count("/") == pattern.count("/")
