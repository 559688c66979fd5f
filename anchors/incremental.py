"""An open editor buffer, re-parsed incrementally as it changes, and its anchors re-resolved.

The language server keeps one `ParsedDocument` per open file. Each LSP content change is applied
to the text and to the syntax tree (`tree.edit` then an incremental parse, which reuses the
unchanged parts of the old tree), so re-listing symbols after a keystroke is cheap.
`resolve_in_document` re-resolves one anchor of that file against the buffer, with the same
verdicts as `anchors.resolve`: the buffer is the truth, git supplies the anchored version (read
once per commit and path, and cached) so that cosmetic edits and renames are told apart. Without
a repository root, only the stored fingerprints are compared.

LSP positions count UTF-16 code units; tree-sitter counts bytes of UTF-8. Both are converted here.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from anchors.fingerprint import similarity
from anchors.languages import SUPPORTED, parser_for
from anchors.record import Anchor
from anchors.resolve import (
    RENAME_SIMILARITY,
    Verdict,
    _group,
    compare_symbol,
    line_counts,
    map_range,
)
from anchors.specs import blob_hash, lines_fingerprint, symbol_anchor
from anchors.symbols import (
    MAX_SOURCE_BYTES,
    Symbol,
    check_source,
    extract_symbols,
    parse_source,
    symbols_from_tree,
)

if TYPE_CHECKING:
    from tree_sitter import Tree


def _utf16_to_byte(line: str, column: int) -> int:
    """Byte offset (UTF-8) in `line` of a UTF-16 column; past the end clamps to the end."""
    units = 0
    for i, ch in enumerate(line):
        if units >= column:
            return len(line[:i].encode("utf-8", "surrogatepass"))
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line.encode("utf-8", "surrogatepass"))


class ParsedDocument:
    """The text and syntax tree of one open document, edited in place."""

    def __init__(
        self, path: str, text: str, language: str | None, root: Path | str | None = None
    ) -> None:
        self.path = path
        self.language = language if language in SUPPORTED else None
        # The grammar the text is read with: the language's, or TypeScript's for JavaScript
        # with Flow's type annotations (`anchors.symbols.parse_source`), chosen at each full
        # parse and kept through the incremental ones.
        self.grammar = self.language
        self.root = Path(root) if root is not None else None
        self.note = ""
        self._symbols: list[Symbol] | None = None
        self._set_text(text)
        self.tree: Tree | None = None
        self._parse(None)

    def _set_text(self, text: str) -> None:
        self.text = text
        self.source = text.encode("utf-8", "surrogatepass")
        self._lines = text.split("\n")

    def _parse(self, old: Tree | None) -> None:
        self._symbols = None
        if self.language is None:
            self.tree = None
            return
        if len(self.source) > MAX_SOURCE_BYTES:
            self.tree, self.note = None, f"not parsed: over the {MAX_SOURCE_BYTES:,}-byte size cap"
            return
        self.note = ""
        if old is None or self.grammar is None:
            self.tree, self.grammar = parse_source(self.source, self.language)
        else:
            self.tree = parser_for(self.grammar).parse(self.source, old)

    def _point(self, line: int, character: int) -> tuple[int, int, int]:
        """(byte offset, row, byte column) of an LSP position, clamped to the document."""
        if line >= len(self._lines):
            last = len(self._lines) - 1
            return len(self.source), last, len(self._lines[last].encode("utf-8", "surrogatepass"))
        line = max(line, 0)
        column = _utf16_to_byte(self._lines[line], max(character, 0))
        offset = (
            sum(len(s.encode("utf-8", "surrogatepass")) + 1 for s in self._lines[:line]) + column
        )
        return offset, line, column

    def apply_change(
        self, start_line: int, start_char: int, end_line: int, end_char: int, new_text: str
    ) -> None:
        """Replace the range (0-based lines, UTF-16 columns) with `new_text`, re-parsing incrementally."""
        start, start_row, start_col = self._point(start_line, start_char)
        end, end_row, end_col = self._point(end_line, end_char)
        if end < start:
            start, end, start_row, start_col, end_row, end_col = (
                end,
                start,
                end_row,
                end_col,
                start_row,
                start_col,
            )
        inserted = new_text.encode("utf-8", "surrogatepass")
        source = self.source[:start] + inserted + self.source[end:]
        newlines = inserted.count(b"\n")
        if newlines:
            new_end_point = (start_row + newlines, len(inserted) - inserted.rfind(b"\n") - 1)
        else:
            new_end_point = (start_row, start_col + len(inserted))
        old_tree = self.tree
        self._set_text(source.decode("utf-8", "surrogatepass"))
        if old_tree is not None:
            old_tree.edit(
                start_byte=start,
                old_end_byte=end,
                new_end_byte=start + len(inserted),
                start_point=(start_row, start_col),
                old_end_point=(end_row, end_col),
                new_end_point=new_end_point,
            )
        self._parse(old_tree)

    def replace(self, text: str) -> None:
        """Start over from a full text."""
        self._set_text(text)
        self._parse(None)

    def symbols(self) -> list[Symbol]:
        """The definitions in the current text, outer before inner (cached until the next edit)."""
        if self._symbols is None:
            if self.tree is None or self.language is None:
                self._symbols = []
            else:
                self._symbols = symbols_from_tree(self.tree, self.source, self.grammar or "")
        return self._symbols


@lru_cache(maxsize=128)
def _anchored_version(root: str, commit: str, path: str) -> tuple[bytes, tuple[Symbol, ...]] | None:
    """The file as it was at `commit` (immutable, so cached): source and symbols."""
    from anchors import git
    from anchors.languages import language_for_path
    from anchors.versions import is_safe_path

    if not commit or not is_safe_path(Path(root), path):
        return None
    proc = git.run(["cat-file", "blob", f"{commit}:{path}"], root, check=False)
    if proc.returncode != 0:
        return None
    source, _ = check_source(proc.stdout)
    if source is None:
        return None
    language = language_for_path(path)
    return source, tuple(extract_symbols(source, language) if language else ())


def resolve_in_document(
    doc: ParsedDocument, anchor: Anchor, root: Path | str | None = None
) -> Verdict:
    """Resolve one anchor of this document's file against the buffer."""
    root = root if root is not None else doc.root
    anchored = (
        _anchored_version(str(root), anchor.commit, anchor.path)
        if root and not anchor.dirty
        else None
    )
    if anchor.symbol:
        return _symbol(doc, anchor, anchored)
    if len(anchor.span) == 2:
        return _range(doc, anchor, anchored)
    if blob_hash(doc.source) == anchor.fingerprint.get("file"):
        return Verdict("fresh", anchor, anchor)
    location = Anchor(
        path=doc.path,
        language=anchor.language,
        fingerprint={"file": blob_hash(doc.source)},
        commit=anchor.commit,
        dirty=True,
    )
    return Verdict("changed", anchor, location, f"{doc.path} was edited", changes=["file"])


def _symbol(
    doc: ParsedDocument, anchor: Anchor, anchored: tuple[bytes, tuple[Symbol, ...]] | None
) -> Verdict:
    if doc.language is None:
        return Verdict("stale", anchor, None, doc.note or "no grammar for this file")
    if doc.tree is None:
        return Verdict("stale", anchor, None, doc.note)
    old_source, old_symbols = anchored if anchored else (b"", ())
    old = next(
        (
            s
            for s in old_symbols
            if s.name == anchor.symbol and s.body_fp == anchor.fingerprint.get("body")
        ),
        None,
    )
    symbols = doc.symbols()
    now = next((s for s in symbols if s.name == anchor.symbol), None)
    renamed = False
    if now is None and doc.tree.root_node.has_error:
        # Mid-edit: recovery may have folded the symbol into a broken neighbour; do not guess.
        detail = f"{anchor.symbol} not found while the buffer has a syntax error"
        return Verdict("stale", anchor, None, detail, changes=["syntax-error"])
    if now is None:
        old_names = {s.name for s in old_symbols}
        candidates = [s for s in symbols if s.name not in old_names]
        now = next(
            (
                s
                for s in candidates
                if s.body_fp == anchor.fingerprint.get("body")
                and _group(s.kind) == _group(anchor.kind or s.kind)
            ),
            None,
        )
        if now is None and old is not None:
            scored = [
                (similarity(old.body_norm, s.body_norm), s)
                for s in candidates
                if _group(s.kind) == _group(old.kind)
            ]
            best = max(scored, key=lambda t: t[0], default=(0.0, None))
            now = best[1] if best[0] >= RENAME_SIMILARITY else None
        if now is None:
            return Verdict(
                "orphaned",
                anchor,
                None,
                f"{anchor.symbol} is no longer in this file (moved elsewhere? `tether stale` looks across files)",
            )
        renamed = True
    sig_changed, body = compare_symbol(anchor, old, now, renamed=renamed)
    changes = (
        (["rename"] if renamed else [])
        + (["signature"] if sig_changed else [])
        + ([body] if body != "same" else [])
    )
    status = (
        "stale"
        if sig_changed or body == "body"
        else "changed"
        if body == "cosmetic"
        else "moved"
        if renamed
        else "fresh"
    )
    location = symbol_anchor(doc.path, now, doc.language or "", anchor.commit, status != "fresh")
    verdict = Verdict(status, anchor, location, changes=changes)
    if old is not None and status != "fresh":
        verdict.lines_added, verdict.lines_removed = line_counts(
            old_source[old.start_byte : old.end_byte].decode("utf-8", "replace"),
            doc.source[now.start_byte : now.end_byte].decode("utf-8", "replace"),
        )
        verdict.similarity = similarity(old.body_norm, now.body_norm)
    parts = [f"renamed to {now.name}"] if renamed else []
    parts += (
        ["signature changed"] * sig_changed
        + ["body changed"] * (body == "body")
        + ["cosmetic change"] * (body == "cosmetic")
    )
    verdict.detail = "; ".join(parts) + (" (unsaved edits)" if parts else "")
    return verdict


def _range(
    doc: ParsedDocument, anchor: Anchor, anchored: tuple[bytes, tuple[Symbol, ...]] | None
) -> Verdict:
    start, end = anchor.span
    touched = False
    if anchored is not None:
        old_lines = anchored[0].decode("utf-8", "replace").splitlines()
        new_lines = doc.text.splitlines()
        hunks = []
        matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                # As `git diff -U0` writes them: an empty side names the line before it.
                hunks.append(
                    (i1 + 1 if i2 > i1 else i1, i2 - i1, j1 + 1 if j2 > j1 else j1, j2 - j1)
                )
        start, end, touched = map_range(hunks, start, end)
    count = len(doc.text.splitlines())
    if end < start or start > count:
        return Verdict(
            "orphaned", anchor, None, "the anchored lines were deleted", changes=["lines"]
        )
    end = min(end, count)
    new_fp = lines_fingerprint(doc.source, start, end)
    location = Anchor(
        path=doc.path,
        span=[start, end],
        language=anchor.language,
        fingerprint={"lines": new_fp},
        commit=anchor.commit,
        dirty=True,
    )
    if new_fp == anchor.fingerprint.get("lines"):
        return Verdict("fresh", anchor, location)
    detail = f"lines {start}-{end} changed" + (" (edited inside the range)" if touched else "")
    return Verdict("stale", anchor, location, detail, changes=["lines"])
