"""Bootstrap: a first memory of a repository from what it already says about itself.

Reads READMEs (`readme`), manifests such as pyproject.toml, package.json, go.mod, Cargo.toml and
pom.xml (`manifests`), CI configs and infrastructure files (`infrastructure`) and the last 90 days
of git history (`history`), then writes:
- a BLUEPRINT.md draft with the eight sections, sections a person wrote kept (`blueprint_draft`);
- USER.md profiles, one per recent author, from path ownership and activity; profiles a person
  edited, i.e. without the bootstrap source line, are kept (`profiles_draft`);
- quarantined learnings, each anchored to the file it came from and tagged with a fact key
  (`facts`, written by `runner`).

Deterministic: no model, sorted inputs, and time measured from HEAD's commit date, so two runs at
the same commit write the same files. Re-runnable: a fact whose text is unchanged is skipped, one
whose text changed supersedes the old learning, so nothing is duplicated.
"""

from anchors.bootstrap.facts import Fact, fact_tag
from anchors.bootstrap.runner import Report, bootstrap

__all__ = ["Fact", "Report", "bootstrap", "fact_tag"]
