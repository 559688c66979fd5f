"""The bootstrap run: read everything, then write the blueprint draft, the profiles and the
quarantined learnings, reporting progress step by step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from anchors.bootstrap.blueprint_draft import Findings, draft_sections
from anchors.bootstrap.facts import Fact, fact_tag
from anchors.bootstrap.history import (
    HISTORY_DAYS,
    branches,
    head_time,
    hot_files,
    ownership_facts,
    read_history,
    todo_count,
)
from anchors.bootstrap.infrastructure import read_ci, read_infra
from anchors.bootstrap.manifests import read_manifests
from anchors.bootstrap.profiles_draft import write_profiles
from anchors.bootstrap.readme import read_readme
from anchors.bootstrap.tracked import Repo
from anchors.errors import TetherError
from anchors.record import Anchor, Evidence

if TYPE_CHECKING:
    from anchors.memory import Memory

WHO = "tether bootstrap"
STEPS = (
    "files", "readme", "manifests", "ci", "infra", "history", "blueprint", "profiles", "learnings",
)  # fmt: skip

Progress = Callable[[str, int, int], None]


@dataclass
class Report:
    blueprint_written: bool = False
    profiles: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    unchanged: int = 0
    # what was refused (a near-duplicate, the scanner): fact keys, "profile NAME (...)", "blueprint"
    skipped: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "blueprint_written": self.blueprint_written,
            "profiles": self.profiles,
            "added": self.added,
            "superseded": self.superseded,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
        }


def bootstrap(memory: Memory, progress: Progress | None = None) -> Report:
    """Read the repository and write the blueprint draft, profiles and quarantined learnings."""
    from anchors.stores import content_hash
    from anchors.stores.blueprint import Blueprint

    done = 0

    def step(name: str) -> None:
        nonlocal done
        if progress is not None:
            progress(name, done, len(STEPS))
        done += 1

    if memory.repo.bare:
        raise TetherError("bootstrap needs a work tree (this repository is bare)")
    root = memory.root
    now = head_time(root)
    step("files")
    repo = Repo(root)
    step("readme")
    readme_path, summary = read_readme(repo)
    step("manifests")
    stack, facts = read_manifests(repo)
    step("ci")
    ci, ci_facts = read_ci(repo)
    step("infra")
    infra, infra_facts = read_infra(repo)
    step("history")
    history = read_history(root, now - timedelta(days=HISTORY_DAYS))
    left_out = _refused_authors(history)
    hot = hot_files(history, set(repo.files))
    facts += ci_facts + infra_facts + ownership_facts(history, hot)

    step("blueprint")
    found = Findings(
        readme_path, summary, stack, ci + infra, history, hot, todo_count(root), branches(root)
    )
    blueprint = Blueprint(root)
    before = blueprint.read()
    report = Report(skipped=left_out)
    try:
        blueprint.write_draft(
            draft_sections(repo, found), who=WHO, when=now.strftime("%Y-%m-%dT%H:%M:%SZ")
        )
    except TetherError as exc:  # the scanner refused something read from the repository
        report.skipped.append(f"blueprint ({exc})")
    after = blueprint.read()
    report.blueprint_written = after != before
    if report.blueprint_written:
        memory.record_store_write(
            "blueprint", "BLUEPRINT.md", content_hash(after), source="bootstrap"
        )

    step("profiles")
    report.profiles = write_profiles(memory, root, history.people(), report.skipped)

    step("learnings")
    write_facts(memory, facts, report)
    if progress is not None:
        progress("done", len(STEPS), len(STEPS))
    return report


def _refused_authors(history: Any) -> list[str]:
    """Drop authors whose name or address the scanner refuses (a hidden bidi control, say) from
    everything drafted: one such name must not keep the blueprint or the others' profiles out."""
    from anchors.scanner import scan_text

    out = []
    for key, person in list(history.authors.items()):
        findings = scan_text(f"{person.name} <{person.email}>")
        if findings:
            del history.authors[key]
            out.append(f"profile {person.name!r} ({findings[0].rule} in the author's name)")
    return out


def write_facts(memory: Memory, facts: list[Fact], report: Report) -> None:
    """Each fact as a quarantined learning, anchored to its file and tagged with its key: new
    facts are added, changed ones supersede what an earlier run wrote, unchanged ones are left."""
    from anchors.lifecycle import NearDuplicate

    existing: dict[str, Any] = {}
    for record in memory.projection.query("source='bootstrap'"):
        for tag in record.tags:
            if tag.startswith("bootstrap:") and record.status in ("active", "stale", "quarantined"):
                existing[tag] = record
    for fact in sorted(facts, key=lambda f: f.key):
        tag = "bootstrap:" + fact_tag(fact.key)
        old = existing.get(tag)
        anchors = [Anchor(path=fact.path)] if fact.path else []
        evidence = (
            [Evidence(type="file", ref=fact.path, note="read by tether bootstrap")]
            if fact.path
            else []
        )
        try:
            if old is None:
                record = memory.add(
                    fact.text,
                    category=fact.category,
                    anchors=anchors,
                    tags=["bootstrap", tag],
                    evidence=evidence,
                    source="bootstrap",
                    confidence=0.6,
                )
                report.added.append(record.id)
            elif old.text != fact.text:
                record = memory.supersede(
                    old.id,
                    fact.text,
                    source="bootstrap",
                    status="quarantined",
                    anchors=anchors,
                    evidence=evidence,
                    confidence=0.6,
                )
                report.superseded.append(old.id)
            else:
                report.unchanged += 1
        except (NearDuplicate, TetherError):
            # Refused (a near-duplicate of a learning, or the scanner): reported, never fatal.
            report.skipped.append(fact.key)
