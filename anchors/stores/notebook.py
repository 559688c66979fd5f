"""The personal notebook (MEMORY.md): an agent's own notes about one repository.

Plain markdown entries separated by `§` lines, at most 2,200 characters in all. It lives under the
user's data directory (`$XDG_DATA_HOME/tether/<repo-id>/MEMORY.md`), never in the repository, so it
is neither committed nor shared. A write that would pass the cap is refused with the current size
and the entries whose removal would make room: the cap forces a choice, it never drops a note.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

from anchors import git
from anchors.stores import StoreFull, UnknownEntry, check_text, locked, read_text, write_atomic

CAP_CHARS = 2200
SEPARATOR = "\n§\n"
FILE_NAME = "MEMORY.md"


def data_home() -> Path:
    """`$XDG_DATA_HOME`, or `~/.local/share` as the XDG spec says."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".local" / "share"


def repo_id(root: Path) -> str:
    """A stable, readable key for a repository: its directory name and a hash of its first commit.

    Clones of one project share a notebook; a repository with no commit yet is keyed by its path.
    """
    roots = git.run(["rev-list", "--max-parents=0", "HEAD"], root, check=False)
    first = roots.stdout.decode().split()
    seed = min(first) if roots.returncode == 0 and first else str(root.resolve())
    name = re.sub(r"[^A-Za-z0-9._-]", "_", root.resolve().name)[:40] or "repo"
    return f"{name}-{hashlib.sha256(seed.encode()).hexdigest()[:12]}"


def notebook_path(root: Path) -> Path:
    return data_home() / "tether" / repo_id(root) / FILE_NAME


def split_entries(text: str) -> list[str]:
    """Entries of a notebook file: blocks between `§` lines, stripped, empty ones dropped."""
    parts = re.split(r"(?m)^[ \t]*§[ \t]*$", text)
    return [p.strip() for p in parts if p.strip()]


def join_entries(entries: list[str]) -> str:
    return SEPARATOR.join(entries) + ("\n" if entries else "")


def preview(text: str, width: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


@dataclass
class Notebook:
    path: Path
    root: Path | None = None  # the repository, for the audit log of rejected writes

    @classmethod
    def for_repo(cls, root: Path) -> Notebook:
        return cls(notebook_path(root), root)

    def read(self) -> str:
        return read_text(self.path)

    def entries(self) -> list[str]:
        return split_entries(self.read())

    def size(self) -> int:
        return len(join_entries(self.entries()))

    def add(self, text: str) -> list[str]:
        """Append one entry (scanned, capped). Returns the entries after the write."""
        entry = check_text(text, "notebook entry", self.root)
        if "§" in entry:
            raise StoreFull("a notebook entry cannot contain the § separator")
        with locked(self.path):
            entries = self.entries()
            after = join_entries([*entries, entry])
            if len(after) > CAP_CHARS:
                raise StoreFull(self._over_cap_message(entries, len(after)))
            write_atomic(self.path, after)
            return [*entries, entry]

    def _over_cap_message(self, entries: list[str], size_after: int) -> str:
        current = len(join_entries(entries))
        need = size_after - CAP_CHARS
        # Entries that alone would free enough, else the oldest ones that together would.
        single = [i for i, e in enumerate(entries) if len(e) + len(SEPARATOR) >= need]
        chosen = single[:3]
        if not chosen:
            freed = 0
            for i, entry in enumerate(entries):
                chosen.append(i)
                freed += len(entry) + len(SEPARATOR)
                if freed >= need:
                    break
        listed = "; ".join(
            f"#{i + 1} ({len(entries[i])} chars) {preview(entries[i], 40)!r}" for i in chosen
        )
        return (
            f"notebook is full: {current}/{CAP_CHARS} characters, this entry needs {need} more; "
            f"remove one first (tether notebook remove N): {listed}"
        )

    def remove(self, number: int) -> str:
        """Remove entry `number` (1-based). Returns the removed entry."""
        with locked(self.path):
            entries = self.entries()
            if not 1 <= number <= len(entries):
                raise UnknownEntry(f"no notebook entry #{number} (there are {len(entries)})")
            removed = entries.pop(number - 1)
            write_atomic(self.path, join_entries(entries))
            return removed
