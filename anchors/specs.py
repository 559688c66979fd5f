"""Anchor specs: what a user writes to point a learning at code, turned into an `Anchor`.

- `PATH::SYMBOL`  a definition, by qualified name (`src/pay.py::PaymentClient.charge`); a unique
  last part is enough (`src/pay.py::charge`), and C++'s `a::b` may be written for `a.b`.
- `PATH#L10-L20`  a line range (1-based, inclusive); `PATH#L10` is one line.
- `PATH`          the whole file.

PATH is relative to the current directory when that names a file, else to the repository root.
Paths that leave the repository, directly or through a symlink, are refused; so is `.git/`.
The anchor records HEAD as the commit it was verified at, `dirty` when the file differs from
HEAD, and fingerprints: `{"signature", "body"}` for a symbol, `{"lines"}` for a range (whitespace
collapsed), `{"file"}` (the git blob hash) for a file.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from pathlib import Path
from typing import NamedTuple

from anchors import git
from anchors.errors import UsageError
from anchors.fingerprint import digest, normalise_lines
from anchors.languages import language_for_path
from anchors.record import Anchor
from anchors.symbols import Symbol, extract_symbols, load_source, lookup

_RANGE = re.compile(r"^(?P<path>.+)#L(?P<start>\d+)(?:-L?(?P<end>\d+))?$")


class SpecResult(NamedTuple):
    """The anchor, and a notice for the user ("" when there is nothing to say)."""

    anchor: Anchor
    note: str


def parse_spec(spec: str) -> tuple[str, str, tuple[int, int] | None]:
    """Split a spec into (path, symbol, line range); raises UsageError when malformed."""
    spec = spec.strip()
    if not spec:
        raise UsageError("empty anchor spec: expected PATH, PATH::SYMBOL or PATH#L10-L20")
    if "::" in spec:
        path, symbol = spec.split("::", 1)
        symbol = symbol.strip().replace("::", ".")
        if not path or not symbol:
            raise UsageError(f"bad anchor spec {spec!r}: expected PATH::SYMBOL")
        return path, symbol, None
    match = _RANGE.match(spec)
    if match:
        start = int(match["start"])
        end = int(match["end"] or start)
        if start < 1 or end < start:
            raise UsageError(
                f"bad line range in {spec!r}: expected #L<start>-L<end> with 1 <= start <= end"
            )
        return match["path"], "", (start, end)
    if "#L" in spec or spec.endswith("#"):
        raise UsageError(f"bad anchor spec {spec!r}: expected PATH#L10 or PATH#L10-L20")
    return spec, "", None


def repo_path(root: Path, path: str, cwd: Path | None = None) -> str:
    """`path` as a repository-relative POSIX path, refusing anything outside the repository."""
    return locate(root, path, cwd)[0]


def locate(root: Path, path: str, cwd: Path | None = None) -> tuple[str, bool]:
    """`repo_path`, and whether a symlink inside the repository led there."""
    root = root.resolve()
    cwd = (cwd or Path.cwd()).resolve()
    given = Path(path)
    candidates = [given] if given.is_absolute() else [cwd / given, root / given]
    chosen = next((c for c in candidates if c.exists() or c.is_symlink()), candidates[-1])
    real = chosen.resolve()  # follows symlinks: a link pointing out of the repository is refused
    if not real.is_relative_to(root):
        how = "through a symlink " if Path(os.path.normpath(chosen)) != real else ""
        raise UsageError(f"{path} points {how}outside the repository ({root}); refused")
    rel = real.relative_to(root).as_posix()
    if rel == "." or rel.split("/", 1)[0] == ".git":
        raise UsageError(f"{path} is not a file in the work tree; refused")
    return rel, Path(os.path.normpath(chosen)) != real


def blob_hash(data: bytes) -> str:
    """The git blob id of `data` (what `git hash-object` prints, SHA-1 repositories)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def lines_fingerprint(source: bytes, start: int, end: int) -> str:
    """Fingerprint of lines start..end (1-based, inclusive), whitespace collapsed."""
    lines = source.decode("utf-8", "replace").splitlines()[start - 1 : end]
    return digest(normalise_lines("\n".join(lines)))


def symbol_anchor(path: str, symbol: Symbol, language: str, commit: str, dirty: bool) -> Anchor:
    """The anchor of one symbol, with its current span and fingerprints."""
    return Anchor(
        path=path,
        symbol=symbol.name,
        span=[symbol.start_line, symbol.end_line],
        language=language,
        fingerprint={"signature": symbol.signature_fp, "body": symbol.body_fp},
        commit=commit,
        kind=symbol.kind,
        dirty=dirty,
    )


def find_named(symbols: list[Symbol], wanted: str, path: str) -> tuple[Symbol, str]:
    """The symbol called `wanted` (or spelled so by another tool: `Foo#bar`,
    `Foo.prototype.bar`, `(*T).M`...), or the only one whose qualified name ends with it."""
    found, tail = lookup(symbols, wanted)
    if found is not None:
        return found, "" if found.name == wanted else f"{wanted} is {found.name}"
    names = [s.name for s in symbols]
    if len(tail) > 1:
        listed = ", ".join(s.name for s in tail[:8])
        raise UsageError(f"{wanted} is ambiguous in {path}: {listed}; give the qualified name")
    close = closest_names(wanted, symbols)
    if close:
        hint = f"closest: {', '.join(close)}"
    elif names:
        hint = f"symbols here: {', '.join(names[:8])}{' ...' if len(names) > 8 else ''}"
    else:
        hint = "no symbols found in this file"
    raise UsageError(f"no symbol {wanted} in {path}; {hint}")


def closest_names(wanted: str, symbols: list[Symbol], limit: int = 5) -> list[str]:
    """Qualified names most like `wanted`, comparing whole names and last parts."""
    short = wanted.rsplit(".", 1)[-1]
    scored = []
    for s in symbols:
        score = max(
            difflib.SequenceMatcher(None, wanted, s.name).ratio(),
            difflib.SequenceMatcher(None, short, s.short_name).ratio(),
        )
        if score >= 0.5:
            scored.append((-score, s.name))
    return [name for _, name in sorted(scored)[:limit]]


def _head_state(root: Path, rel: str, data: bytes) -> tuple[str, bool]:
    """(HEAD commit, whether the file differs from HEAD)."""
    head = git.head_commit(root)
    if not head:
        return "", True
    proc = git.run(["rev-parse", "--verify", "-q", f"HEAD:{rel}"], root, check=False)
    committed = proc.stdout.decode().strip() if proc.returncode == 0 else ""
    return head, committed != blob_hash(data)


def resolve_spec(root: Path | str, spec: str, cwd: Path | None = None) -> SpecResult:
    """Resolve a spec against the working tree: the anchor to store, and a notice to print.

    Raises UsageError (exit 2) for a malformed spec, a path outside the repository, a missing or
    unreadable file, a line range past the end, or an unknown symbol (listing the closest names).
    """
    root = Path(root)
    raw_path, wanted, lines = parse_spec(spec)
    rel, via_symlink = locate(root, raw_path, cwd)
    full = root / rel
    if not full.exists():
        raise UsageError(f"no such file: {rel}")
    if not full.is_file():
        raise UsageError(f"{rel} is not a file")
    try:
        raw = full.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {rel}: {exc.strerror}") from exc
    commit, dirty = _head_state(root, rel, raw)
    notes: list[str] = []
    if via_symlink:
        notes.append(f"{raw_path} is a symlink to {rel}: anchored there")
    if dirty:
        notes.append(f"{rel} has changes not in HEAD: anchored to the working copy")
    if not wanted and lines is None:
        anchor = Anchor(path=rel, fingerprint={"file": blob_hash(raw)}, commit=commit, dirty=dirty)
        anchor.language = language_for_path(rel) or ""
        return SpecResult(anchor, "; ".join(notes))
    source, problem = load_source(full)
    if source is None:
        raise UsageError(f"cannot anchor inside {rel}: {problem.removeprefix('skipped: ')}")
    if problem:
        notes.append(f"{rel}: {problem}")
    language = language_for_path(rel)
    if wanted:
        if language is None:
            anchor, fallback = _fallback_anchor(rel, wanted, source, commit, dirty)
            return SpecResult(anchor, "; ".join([*notes, fallback]))
        symbol, matched = find_named(extract_symbols(source, language), wanted, rel)
        if matched:
            notes.append(matched)
        return SpecResult(symbol_anchor(rel, symbol, language, commit, dirty), "; ".join(notes))
    assert lines is not None
    start, end = lines
    count = len(source.decode("utf-8", "replace").splitlines())
    if end > count:
        raise UsageError(f"{rel} has {count} lines; L{start}-L{end} is past the end")
    anchor = Anchor(
        path=rel,
        span=[start, end],
        language=language or "",
        fingerprint={"lines": lines_fingerprint(source, start, end)},
        commit=commit,
        dirty=dirty,
    )
    return SpecResult(anchor, "; ".join(notes))


def _fallback_anchor(
    rel: str, wanted: str, source: bytes, commit: str, dirty: bool
) -> tuple[Anchor, str]:
    """No grammar for this file: anchor the first line that names the symbol, else the file."""
    ext = os.path.splitext(rel)[1] or rel
    word = re.compile(rf"(?<![\w$]){re.escape(wanted.rsplit('.', 1)[-1])}(?![\w$])")
    for number, line in enumerate(source.decode("utf-8", "replace").splitlines(), start=1):
        if word.search(line):
            anchor = Anchor(
                path=rel,
                span=[number, number],
                fingerprint={"lines": lines_fingerprint(source, number, number)},
                commit=commit,
                dirty=dirty,
            )
            return (
                anchor,
                f"no grammar for {ext} files: anchored to line {number}, where {wanted} appears",
            )
    anchor = Anchor(path=rel, fingerprint={"file": blob_hash(source)}, commit=commit, dirty=dirty)
    return (
        anchor,
        f"no grammar for {ext} files and {wanted} does not appear in {rel}: anchored to the file",
    )


def refresh_anchor(root: Path | str, anchor: Anchor) -> Anchor:
    """The anchor re-taken where its code is now (working tree): new span, fingerprints, commit.

    Used by `confirm`. When the code cannot be found (orphaned), the anchor is returned unchanged:
    confirming a learning does not invent a place for it.
    """
    from anchors.resolve import resolve_anchor

    root = Path(root)
    verdict = resolve_anchor(root, anchor)
    where = verdict.location
    if verdict.status in ("orphaned", "pending") or where is None:
        return anchor
    try:
        return resolve_spec(root, where.label(), cwd=root).anchor
    except UsageError:
        return anchor
