"""USER.md profiles drafted from history: one per recent author, by path ownership and activity.
A profile a person edited (it no longer carries the bootstrap source line) is theirs and is kept."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from anchors.bootstrap.history import HISTORY_DAYS, Activity

if TYPE_CHECKING:
    from anchors.memory import Memory

SOURCE_LINE = "- Source: tether bootstrap"
MAX_PROFILES = 20


def profile_text(person: Activity, repository: str) -> str:
    """The drafted profile body of one author."""
    owns = ", ".join(person.owned(4))
    style = (
        "Conventional Commits"
        if person.conventional * 2 >= person.commits
        else "free-form commit subjects"
    )
    return "\n".join([
        f"- Email: {person.email}",
        f"- Role: contributor ({person.commits} commit(s) in the last {HISTORY_DAYS} days)",
        f"- Repositories: {repository}",
        f"- Ownership: {owns or '-'}",
        f"- Communication: {style}",
        "- Escalation: -",
        f"- Last active: {person.last[:10]}",
        SOURCE_LINE,
    ])  # fmt: skip


def write_profiles(
    memory: Memory, root: Path, people: list[Activity], skipped: list[str] | None = None
) -> list[str]:
    """Write the drafted profiles that are new or changed; returns the names written. A profile
    the scanner refuses is left out (named in `skipped`), never fatal to the others."""
    from anchors.errors import TetherError
    from anchors.stores import content_hash
    from anchors.stores.profiles import Profiles

    profiles = Profiles(root)
    written = []
    for person in people[:MAX_PROFILES]:
        existing = profiles.find(person.email) or profiles.find(person.name)
        if existing is not None and SOURCE_LINE not in existing.text:
            continue  # a person wrote this profile: keep it
        text = profile_text(person, root.name)
        name = existing.name if existing is not None else person.name
        if existing is None or existing.text.strip() != text:
            try:
                profiles.update(name, text)
            except TetherError as exc:
                if skipped is not None:
                    skipped.append(f"profile {name} ({exc})")
                continue
            memory.record_store_write("profile", name, content_hash(text), source="bootstrap")
            written.append(name)
    return written
