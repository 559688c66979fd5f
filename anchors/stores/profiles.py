"""Team profiles (`.tether/USER.md`): one entry per person, reviewed like code.

```markdown
# Team

## Ada Lovelace
- Email: ada@example.com
- Role: payments lead
- Repositories: shop
- Ownership: src/payments/, src/billing/
- Communication: short PR descriptions, async first
- Escalation: #payments-oncall
```
Each entry (the lines under its `##` heading) is at most 1,375 characters. Entries are found by
name or email, case-insensitively; an unknown person is a usage error that lists who is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from anchors.stores import StoreFull, UnknownEntry, check_text, locked, read_text, write_atomic

CAP_CHARS = 1375
FILE = Path(".tether") / "USER.md"
TITLE = "# Team"
FIELDS = ("Email", "Role", "Repositories", "Ownership", "Communication", "Escalation")

_HEADING = re.compile(r"(?m)^## +(.+?)\s*$")


@dataclass
class Profile:
    name: str
    text: str  # the entry's body, without its heading

    def field(self, key: str) -> str:
        """The value of a `- Key: value` line, "" when absent."""
        match = re.search(rf"(?mi)^-\s*{re.escape(key)}\s*:\s*(.*)$", self.text)
        return match.group(1).strip() if match else ""


def parse(text: str) -> tuple[str, list[Profile]]:
    """(preamble, profiles) of a USER.md file."""
    matches = list(_HEADING.finditer(text))
    preamble = text[: matches[0].start()] if matches else text
    profiles = []
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        profiles.append(Profile(match.group(1).strip(), text[match.end() : end].strip()))
    return preamble, profiles


def render(preamble: str, profiles: list[Profile]) -> str:
    head = preamble.strip() or TITLE
    body = "\n\n".join(f"## {p.name}\n{p.text.strip()}" for p in profiles)
    return f"{head}\n\n{body}\n" if body else f"{head}\n"


class Profiles:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / FILE

    def list(self) -> list[Profile]:
        return parse(read_text(self.path))[1]

    def find(self, who: str) -> Profile | None:
        key = who.strip().lower()
        for profile in self.list():
            if profile.name.lower() == key or (key and profile.field("Email").lower() == key):
                return profile
        return None

    def get(self, who: str) -> Profile:
        """The profile of `who` (name or email), or UnknownEntry naming the people known."""
        found = self.find(who)
        if found is None:
            known = ", ".join(p.name for p in self.list()) or "nobody yet"
            raise UnknownEntry(f"no profile for {who!r} in {FILE} (known: {known})")
        return found

    def update(self, name: str, text: str) -> Profile:
        """Create or replace the entry of `name` (scanned, capped). Returns it."""
        name = " ".join(name.split())
        if not name or "\n" in name or name.startswith("#"):
            raise UnknownEntry("a profile needs a one-line name")
        check_text(name, "profile name", self.root)
        body = check_text(text, "profile", self.root)
        if _HEADING.search(body):
            raise StoreFull("a profile cannot contain a '## ' heading (one entry per person)")
        if len(body) > CAP_CHARS:
            raise StoreFull(
                f"profile of {name} is {len(body)} characters; the cap is {CAP_CHARS} per person"
            )
        with locked(self.path):
            preamble, profiles = parse(read_text(self.path))
            entry = Profile(name, body)
            for i, existing in enumerate(profiles):
                if existing.name.lower() == name.lower():
                    profiles[i] = Profile(existing.name, body)
                    entry = profiles[i]
                    break
            else:
                profiles.append(entry)
            write_atomic(self.path, render(preamble, profiles))
        return entry

    def summary(self, limit: int = 6) -> str:
        """One line for a context pack: who is here and what each owns."""
        people = []
        for profile in self.list()[:limit]:
            owns = profile.field("Ownership")
            role = profile.field("Role")
            what = owns.split(",")[0].strip() if owns else role
            people.append(f"{profile.name} ({what})" if what else profile.name)
        more = len(self.list()) - limit
        if more > 0:
            people.append(f"+{more} more")
        return "Team: " + ", ".join(people) if people else ""
