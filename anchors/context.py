"""The context pack: the memory an agent loads at session start, within a character budget.

Order (each part only if something of it fits): L1 learnings (always loaded), learnings anchored
nearest the files in play, then preferences, security, architecture, patterns and known errors by
salience, and last a one-line team summary from the profiles. Only active learnings appear:
quarantined, stale and retired ones never do. The pack never exceeds the budget; when nothing fits
it is empty (no header either).

With a session id the first pack is frozen under `.git/tether/sessions/` and returned byte for byte
for the rest of the session, so a prompt cache keyed on it keeps hitting; writes made during the
session are durable at once and appear in the next session's pack.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from anchors.errors import UsageError
from anchors.recall import path_proximity
from anchors.record import Anchor, Learning
from anchors.salience import salience

if TYPE_CHECKING:
    from anchors.memory import Memory

DEFAULT_BUDGET = 2000
MAX_BUDGET = 200_000
SESSIONS_DIR = "sessions"
HEADER = "# Project memory\n"
ENTRY_CHARS = 320  # one learning at most, so a long one cannot crowd out the rest
NEAR_LIMIT = 12
CATEGORY_ORDER = (
    ("preference", "Preferences"),
    ("security", "Security"),
    ("architecture", "Architecture"),
    ("pattern", "Patterns"),
    ("error", "Known errors"),
    ("general", "General"),
)
_SESSION_OK = re.compile(r"^[A-Za-z0-9._-]{1,80}$")


@dataclass
class Section:
    title: str
    records: list[Learning]


def entry_line(record: Learning) -> str:
    """One learning as one markdown bullet, clipped, with its short id for follow-up."""
    text = " ".join(record.text.split())
    where = f" ({record.anchors[0].label()})" if record.anchors else ""
    tail = f"{where} [{record.id[-8:]}]"
    room = ENTRY_CHARS - len(tail) - 2
    if len(text) > room:
        text = text[: max(room - 1, 10)].rstrip() + "…"
    return f"- {text}{tail}\n"


SECTION_LIMIT = 40  # learnings read in full per section: more never fit in a sane budget

_SIGNAL = (
    "SELECT id, category, layer, kind, stability, importance, hits, recorded_at, updated_at, "
    "last_used_at FROM records WHERE status='active' AND store='learning'"
)


def _signals(memory: Memory, with_paths: bool) -> list[Learning]:
    """Active learnings with only what ranking needs (ids, signal, times, anchor paths): building
    full records for every active learning would cost more than everything else in the pack."""
    db = memory.projection.db
    paths: dict[str, list[Anchor]] = {}
    if with_paths:
        for rid, path in db.execute("SELECT record_id, path FROM anchors"):
            paths.setdefault(str(rid), []).append(Anchor(path=str(path)))
    out = []
    for row in db.execute(_SIGNAL):
        rid = str(row[0])
        out.append(
            Learning(
                id=rid,
                text="",
                category=str(row[1]),
                layer=str(row[2]),
                kind=str(row[3]),
                stability=str(row[4]),
                importance=float(row[5] or 0),
                hits=int(row[6] or 0),
                recorded_at=str(row[7] or ""),
                updated_at=str(row[8] or ""),
                last_used_at=str(row[9] or ""),
                anchors=paths.get(rid, []),
            )  # fmt: skip
        )
    return out


def sections(memory: Memory, files: Sequence[str] = ()) -> list[Section]:
    """The pack's sections in order, each with its learnings best first (unclipped, unbudgeted)."""
    now = datetime.now(timezone.utc)
    active = _signals(memory, bool(files))
    by_salience = sorted(active, key=lambda r: (-salience(r, now), r.id))
    shown: set[str] = set()
    out: list[Section] = []

    l1 = [r for r in by_salience if r.layer == "L1"]
    out.append(Section("Always", l1))
    shown.update(r.id for r in l1)

    if files:
        scored = []
        for record in by_salience:
            if record.id in shown:
                continue
            closeness = max(path_proximity(f, record) for f in files)
            if closeness > 0:
                scored.append((closeness, record))
        scored.sort(key=lambda pair: -pair[0])  # stable: salience order within equal closeness
        near = [r for _, r in scored[:NEAR_LIMIT]]
        out.append(Section("Near the files in play", near))
        shown.update(r.id for r in near)

    for category, title in CATEGORY_ORDER:
        records = [r for r in by_salience if r.category == category and r.id not in shown]
        out.append(Section(title, records))
    full = [
        Section(
            s.title,
            [r for r in map(memory.projection.get, (x.id for x in s.records[:SECTION_LIMIT])) if r],
        )
        for s in out
    ]
    return full


def build_pack(memory: Memory, budget: int = DEFAULT_BUDGET, files: Sequence[str] = ()) -> str:
    """The pack as markdown, at most `budget` characters."""
    from anchors.stores.profiles import Profiles

    team = Profiles(memory.root).summary() if not memory.repo.bare else ""
    team_line = f"\n{team}\n" if team else ""
    reserve = len(team_line) if len(HEADER) + len(team_line) <= budget else 0
    body: list[str] = []
    used = len(HEADER) + reserve
    for section in sections(memory, files):
        heading = f"\n## {section.title}\n"
        lines: list[str] = []
        for record in section.records:
            line = entry_line(record)
            extra = len(line) + (0 if lines else len(heading))
            if used + extra <= budget:
                lines.append(line)
                used += extra
        if lines:
            body.append(heading + "".join(lines))
    if not body and not reserve:
        return ""
    return HEADER + "".join(body) + (team_line if reserve else "")


def session_path(memory: Memory, session: str) -> Path:
    """Where a session's frozen pack lives; odd ids are hashed into a safe file name."""
    if not session.strip():
        raise UsageError("a session id cannot be empty")
    name = (
        session
        if _SESSION_OK.match(session) and not session.startswith(".")
        else ("h-" + hashlib.sha256(session.encode()).hexdigest()[:32])
    )
    return memory.tether_dir / SESSIONS_DIR / f"{name}.md"


def context_pack(
    memory: Memory,
    budget: int = DEFAULT_BUDGET,
    session: str = "",
    files: Sequence[str] = (),
) -> str:
    """The pack; frozen per session when `session` is given (the first call's pack wins)."""
    if not isinstance(budget, int) or isinstance(budget, bool) or not 0 < budget <= MAX_BUDGET:
        raise UsageError(f"budget must be between 1 and {MAX_BUDGET} characters")
    rel_files = [_relative(memory, f) for f in files]
    if not session:
        return build_pack(memory, budget, rel_files)
    path = session_path(memory, session)
    with contextlib.suppress(FileNotFoundError):
        return path.read_bytes().decode("utf-8")
    pack = build_pack(memory, budget, rel_files)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    tmp.write_bytes(pack.encode("utf-8"))
    try:
        os.link(tmp, path)  # the first process to freeze the session wins, atomically
    except FileExistsError:
        pack = path.read_bytes().decode("utf-8")
    finally:
        tmp.unlink()
    return pack


def _relative(memory: Memory, path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            return p.resolve().relative_to(memory.root).as_posix()
        except ValueError:
            raise UsageError(f"{path} is outside the repository") from None
    rel = p.as_posix().strip("/")
    if rel == ".." or rel.startswith("../"):
        raise UsageError(f"{path} is outside the repository")
    return rel
