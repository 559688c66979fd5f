"""Salience: how much a learning is worth keeping in front of people and agents right now.

    salience = relevance × 2^(−age / half-life) × importance × (1 + reinforcement)

`age` counts from the last time the learning was used, confirmed or reinforced (from when it was
recorded if never), so use keeps a belief alive. The half-life depends on how stable the belief is
meant to be. L1 learnings and procedures never decay: a rule promoted to always-loaded, or a
procedure that worked fifty times, does not become less true by sitting unused. Quarantined
learnings count at a fraction until reinforced.

The same score ranks recall results, picks which learning a full category archives, and orders
the context pack. It is a pure function of a record and a time, so it is tested without storage.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

from anchors.record import Learning

# Half-lives in days per stability: weeks for situational facts, months for conventions,
# a year for the things that rarely change.
HALF_LIFE_DAYS = {"volatile": 14.0, "semi-stable": 90.0, "stable": 365.0}
QUARANTINE_WEIGHT = 0.25
PROMOTION_HITS = 5


def parse_time(value: str) -> datetime | None:
    """An ISO-8601 timestamp as an aware datetime (UTC when it names no zone), or None."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def last_touched(record: Learning) -> datetime | None:
    """The latest of recorded, updated and last-used times: when the belief was last alive."""
    times = [parse_time(t) for t in (record.recorded_at, record.updated_at, record.last_used_at)]
    known = [t for t in times if t is not None]
    return max(known) if known else None


def decay(record: Learning, now: datetime) -> float:
    """The time factor, 1.0 for a belief touched just now, 0.5 one half-life later."""
    if record.layer == "L1" or record.kind == "procedure":
        return 1.0
    touched = last_touched(record)
    if touched is None:
        return 1.0
    age_days = max(0.0, (now - touched).total_seconds() / 86400.0)
    half_life = HALF_LIFE_DAYS.get(record.stability, HALF_LIFE_DAYS["semi-stable"])
    return math.pow(2.0, -age_days / half_life)


def salience(record: Learning, now: datetime | None = None, relevance: float = 1.0) -> float:
    """relevance × decay × importance × (1 + reinforcement), quarantine down-weighted."""
    now = now or datetime.now(timezone.utc)
    importance = max(0.0, float(record.importance or 0.0))
    score = relevance * decay(record, now) * importance * (1.0 + max(0, int(record.hits or 0)))
    if record.status == "quarantined":
        score *= QUARANTINE_WEIGHT
    return score
