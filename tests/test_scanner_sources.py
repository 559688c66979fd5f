"""Where the scanner's maintained data comes from: detect-secrets' plugins and Unicode's confusables.

The scanner reads detect-secrets' regex plugins from their source (importing the package costs
100-200 ms) and keeps a stamped copy of the confusables look-alike table. These tests pin both to
the installed packages: if the scanner stopped using detect-secrets' patterns, or its copies fell
out of step with what is installed, a test here fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from anchors.rules import known_formats, lookalikes
from anchors.scanner import scan_text

ROOT = Path(__file__).resolve().parents[1]


def test_patterns_read_from_source_equal_detect_secrets_own_plugin_classes() -> None:
    from_source = known_formats.read_from_source()
    by_import = known_formats.read_by_import()
    assert from_source == by_import
    assert len(from_source) >= 20  # AWS, GitHub, GitLab (7), Slack (2), Stripe, JWT, ...


def test_every_regex_plugin_but_the_documented_skips_is_used() -> None:
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    installed = {
        plugin.__name__
        for plugin in get_mapping_from_secret_type_to_class().values()
        if issubclass(plugin, RegexBasedDetector)
    }
    used = {plugin for plugin, _, _, _ in known_formats.plugin_patterns()}
    assert used == installed - known_formats.SKIPPED_PLUGINS


@pytest.mark.parametrize(
    "text,rule",
    [
        # Formats only detect-secrets knows: the rule id is named after the plugin's secret type.
        (
            "bot: MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
            "secret.discord-bot-token",
        ),
        (
            "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",
            "secret.sendgrid-api-key",
        ),
        ("bot 110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1", "secret.telegram-bot-token"),
    ],
)
def test_a_format_only_detect_secrets_knows_is_rejected_under_its_rule(
    text: str, rule: str
) -> None:
    assert rule in {f.rule for f in scan_text(text)}


def test_an_unreadable_denylist_falls_back_to_importing_the_package(tmp_path: Path) -> None:
    (tmp_path / "odd.py").write_text(
        textwrap.dedent(
            """
            import re
            from .base import RegexBasedDetector

            def build():
                return re.compile('x')

            class OddDetector(RegexBasedDetector):
                secret_type = 'Odd'
                denylist = [build()]
            """
        )
    )
    with pytest.raises(known_formats.Unsupported):
        known_formats.read_from_source(str(tmp_path))


def test_plugin_patterns_use_the_import_when_the_source_cannot_be_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unreadable(directory: str | None = None) -> tuple[known_formats.PluginPattern, ...]:
        raise known_formats.Unsupported("a construct the reader does not know")

    monkeypatch.setattr(known_formats, "read_from_source", unreadable)
    known_formats.plugin_patterns.cache_clear()
    try:
        assert known_formats.plugin_patterns() == known_formats.read_by_import()
    finally:
        known_formats.plugin_patterns.cache_clear()


def test_scanning_imports_neither_detect_secrets_nor_requests() -> None:
    code = (
        "import sys, anchors.scanner\n"
        "anchors.scanner.scan_text('export GITHUB_TOKEN=ghp_Zx8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc2V é')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('detect_secrets', 'requests', 'urllib3', 'confusable_homoglyphs')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_the_stored_lookalike_table_matches_the_installed_confusables_data() -> None:
    stored = json.loads(Path(lookalikes.SNAPSHOT).read_text(encoding="utf-8"))
    assert stored["stamp"] == lookalikes.installed_stamp(), (
        "confusable-homoglyphs changed: run `python -m anchors.rules.lookalikes`"
    )
    assert stored["table"] == lookalikes.derive()
    assert lookalikes.table()["\u0430"] == "a"  # Cyrillic а


def test_a_stale_lookalike_table_is_derived_again_from_the_installed_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lookalikes, "installed_stamp", lambda: {"version": "9.9", "size": 1})
    monkeypatch.setattr(lookalikes, "derive", lambda: {"\u0430": "a", "marker": "derived"})
    lookalikes.table.cache_clear()
    try:
        assert lookalikes.table().get("marker") == "derived"
    finally:
        lookalikes.table.cache_clear()


def test_confusables_data_moved_by_its_environment_variable_changes_the_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "confusables.json").write_text("{}")
    monkeypatch.setenv("CONFUSABLE_DATA", str(tmp_path))
    stamp = lookalikes.installed_stamp()
    assert stamp is not None and stamp["size"] == os.path.getsize(tmp_path / "confusables.json")


@pytest.mark.parametrize(
    "pattern,expected",
    [
        (r"(?:A3T[A-Z0-9]|ABIA|AKIA)[0-9A-Z]{16}", ("A3T", "ABIA", "AKIA")),
        (r"(ghp|gho)_[A-Za-z0-9_]{36}", ("gho_", "ghp_")),
        (r'(?:\s|=|:|"|^)AKC[a-zA-Z0-9]{10,}', ("AKC",)),
        (r"x(?:a|b)?y", ("x",)),
        (r"a*b", ("b",)),
        (r"ab\bcd", ("abcd",)),
        (r"(?i)AbC", ("abc",)),
        (r"(?:foo|bar)+baz", ("baz",)),
        (r"\d+", None),
    ],
)
def test_required_literals_are_read_from_the_parsed_pattern(
    pattern: str, expected: tuple[str, ...] | None
) -> None:
    assert known_formats.required_literals(pattern, 0) == expected


@pytest.mark.parametrize("plugin,secret_type,pattern,flags", known_formats.plugin_patterns())
def test_every_match_of_a_detect_secrets_pattern_holds_one_of_its_needles(
    plugin: str, secret_type: str, pattern: str, flags: int
) -> None:
    # The needles only gate which patterns run: a match without one would be a secret missed.
    import re

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    needles = known_formats.required_literals(pattern, flags)
    if needles is None:
        return  # a pattern without needles runs on every text: nothing can be missed
    compiled = re.compile(pattern, flags)
    folded = bool(flags & re.IGNORECASE)

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(compiled))
    def holds_a_needle(text: str) -> None:
        match = compiled.search(text)
        assert match is not None
        where = match.group().lower() if folded else match.group()
        assert any(needle in where for needle in needles), (pattern, where)

    holds_a_needle()
