"""Every verdict and change kind, in every supported language, on real git histories.

One repository per language: a base commit where the anchor is taken, then one branch per
scenario (edit above, comment-only, whitespace-only, literal tweak, behaviour change, signature
change, rename, rename plus edit, move to another file, file rename, delete), each resolved with
`--rev <branch>`; plus an anchor made on a branch that main does not contain (pending).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from anchors.record import Anchor
from anchors.resolve import Resolver, Verdict
from anchors.specs import resolve_spec
from tests.anchor_samples import SAMPLES, Sample
from tests.conftest import git, make_repo

Edit = Callable[[Path, Sample, str], None]


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


def commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def main_file(sample: Sample) -> str:
    return f"src/calc{sample.ext}" if sample.language != "java" else "src/Calc.java"


SCENARIOS: dict[str, Edit] = {
    "edit-above": lambda root, s, f: write(root, f, s.render(above=True)),
    "comment-only": lambda root, s, f: write(root, f, s.render(comment="adds the helped items up")),
    "whitespace-only": lambda root, s, f: write(root, f, s.render(sp="   \n")),
    "literal": lambda root, s, f: write(root, f, s.render(msg="finished")),
    "behaviour": lambda root, s, f: write(root, f, s.render(num=3)),
    "signature": lambda root, s, f: write(root, f, s.render(param="values")),
    "rename": lambda root, s, f: write(root, f, s.render(name="calculate")),
    "rename-edit": lambda root, s, f: write(root, f, s.render(name="calculate", num=5)),
    "move": lambda root, s, f: (
        write(root, f, s.render(with_target=False)),
        write(
            root,
            f"src/Other{s.ext}" if s.language == "java" else f"src/other{s.ext}",
            s.only_target(),
        ),
    ),
    "file-rename": lambda root, s, f: (
        git(root, "mv", f, f.replace("calc", "maths").replace("Calc.java", "Maths.java")),
        write(
            root,
            f.replace("calc", "maths").replace("Calc.java", "Maths.java"),
            s.render(cls="Maths"),
        ),
    ),
    "delete": lambda root, s, f: write(root, f, s.render(with_target=False)),
}

EXPECTED = {
    "edit-above": ("fresh", set()),
    "comment-only": ("fresh", set()),
    "whitespace-only": ("fresh", set()),
    "literal": ("changed", {"cosmetic"}),
    "behaviour": ("stale", {"body"}),
    "signature": ("stale", {"signature"}),
    "rename": ("moved", {"rename"}),
    "rename-edit": ("stale", {"rename", "body"}),
    "move": ("moved", {"move"}),
    "file-rename": ("moved", {"file-rename"}),
    "delete": ("orphaned", set()),
}


class LanguageRepo:
    """A repository with the base commit and one branch per scenario, built once per language."""

    def __init__(self, root: Path, sample: Sample) -> None:
        self.root = root
        self.sample = sample
        self.path = main_file(sample)
        make_repo(root)
        write(root, self.path, sample.render())
        commit_all(root, "base")
        self.anchor = resolve_spec(root, f"{self.path}::{sample.symbol()}", cwd=root).anchor
        for name, edit in SCENARIOS.items():
            git(root, "checkout", "-q", "-b", name, "main")
            edit(root, sample, self.path)
            commit_all(root, name)
        git(root, "checkout", "-q", "-b", "feature", "main")
        write(
            root, "src/feature" + sample.ext, sample.only_target(name="fresh_idea", cls="Feature")
        )
        commit_all(root, "feature work")
        self.feature_anchor = resolve_spec(
            root, f"src/feature{sample.ext}::{sample.symbol('fresh_idea', 'Feature')}", cwd=root
        ).anchor
        git(root, "checkout", "-q", "main")

    def resolve(self, rev: str, anchor: Anchor | None = None) -> Verdict:
        with Resolver(self.root, rev) as resolver:
            return resolver.resolve(anchor or self.anchor)


_REPOS: dict[str, LanguageRepo] = {}


@pytest.fixture
def language_repo(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> LanguageRepo:
    language = request.param
    if language not in _REPOS:
        _REPOS[language] = LanguageRepo(tmp_path_factory.mktemp(language), SAMPLES[language])
    return _REPOS[language]


LANGUAGES = sorted(SAMPLES)


@pytest.mark.parametrize("language_repo", LANGUAGES, indirect=True)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_verdict_for_each_change_kind(language_repo: LanguageRepo, scenario: str) -> None:
    verdict = language_repo.resolve(scenario)
    status, kinds = EXPECTED[scenario]
    assert verdict.status == status, (verdict.status, verdict.changes, verdict.detail)
    assert kinds <= set(verdict.changes), verdict.changes
    if status == "fresh":
        assert verdict.commits == []
    else:
        # The evidence names the commit that made the change, and who made it.
        assert verdict.commits and verdict.commits[0].subject == scenario
        assert verdict.commits[0].author == "Ada Test"


@pytest.mark.parametrize("language_repo", LANGUAGES, indirect=True)
def test_edit_above_shifts_the_span(language_repo: LanguageRepo) -> None:
    verdict = language_repo.resolve("edit-above")
    assert verdict.location is not None
    shift = language_repo.sample.extra.count("\n")
    assert verdict.location.span == [
        language_repo.anchor.span[0] + shift,
        language_repo.anchor.span[1] + shift,
    ]


@pytest.mark.parametrize("language_repo", LANGUAGES, indirect=True)
def test_new_locations(language_repo: LanguageRepo) -> None:
    sample = language_repo.sample
    renamed = language_repo.resolve("rename").location
    assert renamed is not None and renamed.symbol == sample.symbol("calculate")
    moved = language_repo.resolve("move").location
    assert moved is not None and "other" in moved.path.lower()
    assert moved.symbol == sample.symbol("compute", "Other")
    rehomed = language_repo.resolve("file-rename").location
    assert rehomed is not None and "maths" in rehomed.path.lower()
    # The new anchor carries fingerprints that resolve fresh where it now is.
    assert language_repo.resolve("move", moved).status == "fresh"


@pytest.mark.parametrize("language_repo", LANGUAGES, indirect=True)
def test_anchor_from_another_branch_is_pending(language_repo: LanguageRepo) -> None:
    assert language_repo.resolve("main", language_repo.feature_anchor).status == "pending"
    assert language_repo.resolve("feature", language_repo.feature_anchor).status == "fresh"


@pytest.mark.parametrize("language_repo", LANGUAGES, indirect=True)
def test_behaviour_change_counts_lines(language_repo: LanguageRepo) -> None:
    verdict = language_repo.resolve("behaviour")
    assert (verdict.lines_added, verdict.lines_removed) == (1, 1)
    assert "body changed" in verdict.detail
