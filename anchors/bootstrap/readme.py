"""What the top-level README says the project is: its first paragraph of prose."""

from __future__ import annotations

import re

from anchors.bootstrap.tracked import Repo


def read_readme(repo: Repo) -> tuple[str, str]:
    """(path, first prose paragraph) of the top-level README; ("", "") when there is none."""
    for path in repo.files:
        if "/" not in path and path.lower().startswith("readme"):
            paragraphs = [p.strip() for p in re.split(r"\n\s*\n", repo.read(path))]
            for para in paragraphs:
                # Headings, badges, HTML, code and tables are not the project's own description.
                if para and not para.startswith(("#", "[![", "<", "```", "|")):
                    return path, " ".join(para.split())[:400]
            return path, ""
    return "", ""
