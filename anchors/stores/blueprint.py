"""The blueprint (`.tether/BLUEPRINT.md`): what the codebase looks like, in eight required sections.

It is consulted (through `tether blueprint` or the MCP tool), never injected into a context pack:
it is too long for that. People edit it like any document; `tether blueprint check` says what is
missing. Each section updated through Tether ends with a provenance comment
(`<!-- updated by ada@example.com at 2026-05-01T10:00:00Z -->`) and the write is also an op in the
log, so who changed what when survives in both places.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from anchors.stores import UnknownEntry, check_text, locked, read_text, write_atomic

FILE = Path(".tether") / "BLUEPRINT.md"
TITLE = "# Blueprint"
SECTIONS = (
    "Architecture",
    "Stack",
    "Infrastructure",
    "Team",
    "Conventions",
    "Security posture",
    "Repo health",
    "Open work",
)
_HEADING = re.compile(r"(?m)^## +(.+?)\s*$")
_PROVENANCE = re.compile(r"(?m)^<!-- updated by (.+?) at (\S+) -->\s*$")


def section_key(name: str) -> str:
    """`Security posture`, `security-posture` and `SECURITY_POSTURE` name the same section."""
    return re.sub(r"[\s_-]+", " ", name.strip().lower())


@dataclass
class Section:
    name: str
    text: str

    @property
    def body(self) -> str:
        """The text without its provenance comment."""
        return _PROVENANCE.sub("", self.text).strip()

    @property
    def updated(self) -> tuple[str, str]:
        """(who, when) of the last update through Tether, ("", "") if none."""
        match = _PROVENANCE.search(self.text)
        return (match.group(1), match.group(2)) if match else ("", "")


def parse(text: str) -> tuple[str, list[Section]]:
    matches = list(_HEADING.finditer(text))
    preamble = text[: matches[0].start()] if matches else text
    sections = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        sections.append(Section(match.group(1).strip(), text[match.end() : end].strip()))
    return preamble, sections


def render(preamble: str, sections: list[Section]) -> str:
    head = preamble.strip() or TITLE
    parts = [head] + [
        f"## {s.name}\n\n{s.text.strip()}" if s.text.strip() else f"## {s.name}" for s in sections
    ]
    return "\n\n".join(parts) + "\n"


def canonical_name(section: str) -> str:
    """The required section's proper name for any spelling of it, or UnknownEntry."""
    key = section_key(section)
    for name in SECTIONS:
        if section_key(name) == key:
            return name
    raise UnknownEntry(
        f"unknown blueprint section {section!r}: expected one of {', '.join(SECTIONS)}"
    )


class Blueprint:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / FILE

    def exists(self) -> bool:
        return self.path.is_file()

    def read(self) -> str:
        return read_text(self.path)

    def sections(self) -> list[Section]:
        return parse(self.read())[1]

    def get(self, section: str) -> Section:
        name = canonical_name(section)
        for found in self.sections():
            if section_key(found.name) == section_key(name):
                return found
        raise UnknownEntry(f"{FILE} has no '{name}' section yet")

    def check(self) -> list[str]:
        """Problems, one line each; empty when every required section is there with content."""
        if not self.exists():
            return [f"{FILE} does not exist (tether bootstrap writes a draft)"]
        found = {section_key(s.name): s for s in self.sections()}
        problems = []
        for name in SECTIONS:
            section = found.get(section_key(name))
            if section is None:
                problems.append(f"missing section: {name}")
            elif not section.body:
                problems.append(f"empty section: {name}")
        seen: set[str] = set()
        for s in self.sections():
            key = section_key(s.name)
            if key in seen:
                problems.append(f"duplicate section: {s.name}")
            seen.add(key)
        return problems

    def update(self, section: str, text: str, who: str, when: str) -> Section:
        """Replace one section's text (scanned), stamping who and when. Creates the file with all
        eight headings if it does not exist yet."""
        name = canonical_name(section)
        body = check_text(text, f"blueprint section {name}", self.root)
        if _HEADING.search(body):
            raise UnknownEntry(
                "section text cannot contain a '## ' heading; update one section at a time"
            )
        stamped = Section(name, f"{body}\n\n<!-- updated by {who} at {when} -->")
        with locked(self.path):
            preamble, sections = parse(self.read())
            if not sections and not preamble.strip():
                sections = [Section(n, "") for n in SECTIONS]
            for i, existing in enumerate(sections):
                if section_key(existing.name) == section_key(name):
                    sections[i] = stamped
                    break
            else:
                sections.append(stamped)
            write_atomic(self.path, render(preamble, sections))
        return stamped

    def write_draft(self, bodies: dict[str, str], who: str, when: str) -> None:
        """Bootstrap's write: fill sections it has text for, keep every section a person wrote
        (one without a bootstrap stamp), keep unknown extra sections."""
        with locked(self.path):
            preamble, sections = parse(self.read())
            by_key = {section_key(s.name): s for s in sections}
            out: list[Section] = []
            for name in SECTIONS:
                existing = by_key.pop(section_key(name), None)
                hand_written = existing is not None and existing.body and existing.updated[0] != who
                if hand_written and existing is not None:
                    out.append(existing)
                elif bodies.get(name, "").strip():
                    check_text(bodies[name], f"blueprint section {name}", self.root)
                    out.append(
                        Section(
                            name, f"{bodies[name].strip()}\n\n<!-- updated by {who} at {when} -->"
                        )
                    )
                else:
                    out.append(existing or Section(name, ""))
            out.extend(by_key.values())
            write_atomic(self.path, render(preamble, out))
