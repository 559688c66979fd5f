"""Anchor specs: parsing, paths, fingerprints, dirty files, and every kind of bad input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anchors.errors import UsageError
from anchors.specs import blob_hash, parse_spec, refresh_anchor, resolve_spec
from tests.conftest import git

PAY = """class PaymentClient:
    def charge(self, amount):
        return self.gateway.post(amount)

    def refund(self, amount):
        return self.gateway.post(-amount)


def change(a):
    return a
"""


@pytest.fixture
def code(repo: Path) -> Path:
    (repo / "src").mkdir()
    (repo / "src" / "pay.py").write_text(PAY)
    (repo / "notes.txt").write_text("alpha\ncharge here\nomega\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "code")
    return repo


def test_parse_spec_forms() -> None:
    assert parse_spec("a.py::C.m") == ("a.py", "C.m", None)
    assert parse_spec("a.cpp::ns::f") == ("a.cpp", "ns.f", None)
    assert parse_spec("a.py#L3-L9") == ("a.py", "", (3, 9))
    assert parse_spec("a.py#L3-9") == ("a.py", "", (3, 9))
    assert parse_spec("a.py#L4") == ("a.py", "", (4, 4))
    assert parse_spec("a.py") == ("a.py", "", None)


@pytest.mark.parametrize(
    "spec", ["", "  ", "::x", "a.py::", "a.py#L0", "a.py#L9-L3", "a.py#Lx", "a.py#"]
)
def test_malformed_specs_are_usage_errors(spec: str) -> None:
    with pytest.raises(UsageError):
        parse_spec(spec)


def test_symbol_anchor_has_fingerprints_commit_and_span(code: Path) -> None:
    anchor, note = resolve_spec(code, "src/pay.py::PaymentClient.charge", cwd=code)
    assert note == ""
    assert (anchor.path, anchor.symbol, anchor.span, anchor.kind) == (
        "src/pay.py", "PaymentClient.charge", [2, 3], "method"
    )  # fmt: skip
    assert set(anchor.fingerprint) == {"signature", "body"}
    assert anchor.commit == git(code, "rev-parse", "HEAD")
    assert anchor.dirty is False
    assert anchor.language == "python"


def test_unique_last_part_is_enough_and_says_so(code: Path) -> None:
    anchor, note = resolve_spec(code, "src/pay.py::refund", cwd=code)
    assert anchor.symbol == "PaymentClient.refund"
    assert "PaymentClient.refund" in note


def test_unknown_symbol_lists_closest_names(code: Path) -> None:
    with pytest.raises(
        UsageError, match=r"no symbol chargee in src/pay.py; closest: .*PaymentClient.charge"
    ):
        resolve_spec(code, "src/pay.py::chargee", cwd=code)


def test_paths_relative_to_cwd_or_root(code: Path) -> None:
    assert resolve_spec(code, "pay.py::change", cwd=code / "src").anchor.path == "src/pay.py"
    assert resolve_spec(code, "src/pay.py::change", cwd=code / "src").anchor.path == "src/pay.py"
    assert (
        resolve_spec(code, str(code / "src" / "pay.py"), cwd=Path("/")).anchor.path == "src/pay.py"
    )


def test_range_and_file_anchors(code: Path) -> None:
    rng = resolve_spec(code, "src/pay.py#L2-L3", cwd=code).anchor
    assert rng.span == [2, 3] and set(rng.fingerprint) == {"lines"} and rng.symbol == ""
    whole = resolve_spec(code, "src/pay.py", cwd=code).anchor
    assert whole.fingerprint == {"file": git(code, "rev-parse", "HEAD:src/pay.py")}
    assert whole.span == []
    with pytest.raises(UsageError, match="past the end"):
        resolve_spec(code, "src/pay.py#L5-L99", cwd=code)


def test_dirty_file_is_noted(code: Path) -> None:
    (code / "src" / "pay.py").write_text(PAY + "\n\ndef extra():\n    pass\n")
    anchor, note = resolve_spec(code, "src/pay.py::extra", cwd=code)
    assert anchor.dirty is True
    assert "changes not in HEAD" in note


def test_unknown_language_falls_back_and_says_so(code: Path) -> None:
    anchor, note = resolve_spec(code, "notes.txt::charge", cwd=code)
    assert anchor.span == [2, 2] and anchor.symbol == ""
    assert "no grammar for .txt files" in note
    anchor, note = resolve_spec(code, "notes.txt::missing", cwd=code)
    assert anchor.span == [] and "file" in anchor.fingerprint and "anchored to the file" in note


def test_escapes_are_refused(code: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text("def s():\n    pass\n")
    os.symlink(outside, code / "link.py")
    os.symlink(tmp_path, code / "linkdir")
    for spec in [
        "../secret.py::s",
        str(outside),
        "link.py::s",
        "linkdir/secret.py",
        ".git/config",
        ".",
    ]:
        with pytest.raises(UsageError, match="refused"):
            resolve_spec(code, spec, cwd=code)


def test_symlink_inside_the_repository_anchors_the_real_file(code: Path) -> None:
    os.symlink(code / "src" / "pay.py", code / "alias.py")
    result = resolve_spec(code, "alias.py::change", cwd=code)
    assert result.anchor.path == "src/pay.py"
    assert "alias.py is a symlink to src/pay.py" in result.note
    # A relative path from a subdirectory is no symlink and says nothing of the kind.
    plain = resolve_spec(code, "pay.py::change", cwd=code / "src")
    assert plain.anchor.path == "src/pay.py" and "symlink" not in plain.note


def test_binary_huge_missing_and_directories(code: Path) -> None:
    (code / "blob.py").write_bytes(b"\x00\x01binary")
    (code / "big.py").write_bytes(b"x = 1\n" * 200_000)
    with pytest.raises(UsageError, match="binary"):
        resolve_spec(code, "blob.py::f", cwd=code)
    with pytest.raises(UsageError, match="size cap"):
        resolve_spec(code, "big.py#L1", cwd=code)
    with pytest.raises(UsageError, match="no such file"):
        resolve_spec(code, "nope.py::f", cwd=code)
    with pytest.raises(UsageError, match="not a file"):
        resolve_spec(code, "src", cwd=code)
    # A whole binary file can still be anchored: its blob hash is its fingerprint.
    assert resolve_spec(code, "blob.py", cwd=code).anchor.fingerprint == {
        "file": blob_hash(b"\x00\x01binary")
    }


def test_non_utf8_is_repaired_with_a_note(code: Path) -> None:
    (code / "latin.py").write_bytes("def caf():\n    return 'caf\xe9'\n".encode("latin-1"))
    anchor, note = resolve_spec(code, "latin.py::caf", cwd=code)
    assert anchor.symbol == "caf" and "UTF-8" in note


def test_syntax_errors_still_anchor_intact_symbols(code: Path) -> None:
    (code / "broken.py").write_text("def ok():\n    return 1\n\ndef broken(:\n    pass\n")
    assert resolve_spec(code, "broken.py::ok", cwd=code).anchor.span == [1, 2]


def test_refresh_moves_the_verified_point_forward(code: Path) -> None:
    anchor = resolve_spec(code, "src/pay.py::change", cwd=code).anchor
    (code / "src" / "pay.py").write_text("# header\n\n" + PAY.replace("return a", "return a + 1"))
    git(code, "commit", "-qam", "edit")
    fresh = refresh_anchor(code, anchor)
    assert fresh.commit == git(code, "rev-parse", "HEAD") != anchor.commit
    assert fresh.span == [11, 12]
    assert fresh.fingerprint["body"] != anchor.fingerprint["body"]
    assert resolve_spec(code, "src/pay.py::change", cwd=code).anchor == fresh
