"""The lifecycle rules of learnings: what a write may do, what fades, what gets promoted or reviewed.

`Memory.add` calls two hooks from here:
- `initial_status`: writes from bootstrap and from an agent's first session start quarantined
  (kept, searchable, never in a context pack) until someone reinforces them;
- `before_add`: refuses a near-duplicate of a live learning (pointing at it: reinforce or
  supersede it instead) and names the least salient learnings to archive so that the category
  stays under its cap.

Reads: `promotion_candidates`, `review_items` (due reviews and change conditions) and `as_of`,
which replays the op-log up to a moment to answer what was believed then.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING

from anchors.config import load_config
from anchors.errors import UsageError
from anchors.record import Learning
from anchors.salience import PROMOTION_HITS, last_touched, parse_time, salience

if TYPE_CHECKING:
    from anchors.memory import Memory

# Statuses that are still believed, and so count toward a category's cap and block duplicates.
LIVE = ("active", "stale", "quarantined")
DUPLICATE_SIMILARITY = 0.8
_WORD = re.compile(r"[A-Za-z0-9_]+")


class NearDuplicate(UsageError):
    """An add would repeat a live learning; the message names it."""

    def __init__(self, existing: Learning, similarity: float) -> None:
        super().__init__(
            f"nearly duplicates learning {existing.id} ({similarity:.0%} similar: "
            f"{_clip(existing.text, 60)!r}); reinforce or supersede it instead "
            f"(tether reinforce {existing.id} | tether supersede {existing.id} TEXT)"
        )
        self.existing = existing
        self.similarity = similarity


def _clip(text: str, width: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def initial_status(memory: Memory, source: str, session: str) -> str:
    """ "quarantined" for bootstrap writes and for writes of the first agent session, else "active".

    The first session is the one whose id is the only session id the memory has seen: until a
    second session starts, nothing has yet shown that the first session's notes hold up.
    """
    if source == "bootstrap":
        return "quarantined"
    if not session:
        return "active"
    other = memory.projection.db.execute(
        "SELECT 1 FROM records WHERE session != '' AND session != ? AND source != 'bootstrap' LIMIT 1",
        (session,),
    ).fetchone()
    return "active" if other else "quarantined"


def normalise(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def similarity(a: str, b: str) -> float:
    """How alike two learnings read, 0..1: the overlap of their word sets (Jaccard).

    Words, not characters: two notes from one mould that differ in the service, table or number
    they name are different facts, and a character-level ratio would call them duplicates.
    """
    wa, wb = set(normalise(a).split()), set(normalise(b).split())
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def find_near_duplicate(memory: Memory, record: Learning) -> tuple[Learning, float] | None:
    """The live learning `record` nearly repeats, if any (FTS candidates, then a close compare)."""
    words = sorted(set(_WORD.findall(record.text.lower())), key=len, reverse=True)[:16]
    if not words:
        return None
    query = " OR ".join(f'"{w}"' for w in words)
    rows = memory.projection.db.execute(
        "SELECT r.id FROM records_fts JOIN records r ON r.rowid = records_fts.rowid "
        "WHERE records_fts MATCH ? AND r.status IN ('active','stale','quarantined') "
        "AND r.store = ? ORDER BY bm25(records_fts) LIMIT 8",
        (query, record.store),
    ).fetchall()
    best: tuple[Learning, float] | None = None
    paths = {a.path for a in record.anchors}
    for (rid,) in rows:
        existing = memory.projection.get(str(rid))
        if existing is None or existing.id == record.id:
            continue
        if paths and existing.anchors and not paths & {a.path for a in existing.anchors}:
            continue  # the same words about different code: "X is hot", "Y is hot"
        score = similarity(record.text, existing.text)
        if score >= DUPLICATE_SIMILARITY and (best is None or score > best[1]):
            best = (existing, score)
    return best


def before_add(memory: Memory, record: Learning) -> list[str]:
    """Refuse a near-duplicate (NearDuplicate); return the ids to archive to respect the cap."""
    if record.store != "learning":
        return []
    duplicate = find_near_duplicate(memory, record)
    if duplicate is not None:
        raise NearDuplicate(*duplicate)
    cap = load_config(memory.root).cap_per_category
    live = memory.projection.query(
        "category=? AND store='learning' AND status IN ('active','stale','quarantined')",
        (record.category,),
    )
    excess = len(live) + 1 - cap
    if excess <= 0:
        return []
    now = datetime.now(timezone.utc)
    # L1 learnings are always loaded by choice; they go only if nothing else can.
    ranked = sorted(live, key=lambda r: (r.layer == "L1", salience(r, now), r.id))
    return [r.id for r in ranked[:excess]]


def promotion_candidates(memory: Memory) -> list[Learning]:
    """Live L2/L3 learnings reinforced at least PROMOTION_HITS times, most reinforced first."""
    rows = memory.projection.query(
        "layer != 'L1' AND hits >= ? AND status IN ('active','stale')",
        (PROMOTION_HITS,),
        order="hits DESC, id",
    )
    return rows


@dataclass
class ReviewItem:
    record: Learning
    reason: str  # "review due", "change condition", "never reviewed", "stale"
    detail: str


def review_items(memory: Memory, today: date | None = None) -> list[ReviewItem]:
    """What `tether review` surfaces: due review dates, change conditions to re-check on
    learnings whose cadence has passed, and stale learnings waiting for a verdict."""
    today = today or datetime.now(timezone.utc).date()
    items: list[ReviewItem] = []
    for record in memory.list(include_hidden=False):
        due = _review_due(record)
        if due is not None and due <= today:
            detail = f"review was due {due.isoformat()}"
            if record.change_condition:
                items.append(
                    ReviewItem(
                        record, "change condition", f"{detail}; check: {record.change_condition}"
                    )
                )
            else:
                items.append(ReviewItem(record, "review due", detail))
        elif record.status == "stale":
            items.append(
                ReviewItem(record, "stale", record.status_reason or "anchored code changed")
            )
    return items


def _review_due(record: Learning) -> date | None:
    if record.next_review:
        parsed = parse_time(record.next_review)
        if parsed is not None:
            return parsed.date()
    if record.review_cadence_days > 0:
        touched = last_touched(record)
        if touched is not None:
            return (touched + timedelta(days=record.review_cadence_days)).date()
    return None


def parse_when(value: str) -> datetime:
    """A user's date or timestamp (`2026-03-01`, `2026-03-01T12:00`) as the end of that moment
    in UTC: a bare date means the end of that day."""
    text = value.strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            day = date.fromisoformat(text)
            return datetime(day.year, day.month, day.day, 23, 59, 59, 999000, tzinfo=timezone.utc)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"not a date: {value!r} (expected YYYY-MM-DD or an ISO timestamp)"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def as_of(memory: Memory, when: str | datetime) -> list[Learning]:
    """The learnings believed at `when`: the op-log replayed up to that moment into a scratch
    projection, then the records live at that point (active or stale)."""
    from anchors.projection import COLUMNS, row_to_learning

    cutoff = parse_when(when) if isinstance(when, str) else when
    stamp = cutoff.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + (
        f"{cutoff.microsecond // 1000:03d}Z"
    )
    db = memory.projection.snapshot_until(stamp)
    rows = db.execute(
        f"SELECT {', '.join(COLUMNS)} FROM records WHERE status IN ('active','stale') "
        "AND store='learning' ORDER BY id"
    ).fetchall()
    db.close()
    return [row_to_learning(row) for row in rows]
