"""Where the language server meets the anchoring library: parse an open buffer, list its symbols,
resolve a learning's anchor against it, and build an anchor for new code.

The buffer, not the file on disk, is the truth here: a person edits, and the diagnostics follow the
edit before it is saved. Everything is expressed in the server's own small `Resolution` so the
features do not depend on the library's verdict shape.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anchors.record import Anchor

if TYPE_CHECKING:
    from anchors.symbols import Symbol

log = logging.getLogger(__name__)

# Verdicts that become diagnostics, with why each one matters to the reader.
FLAGGED = ("stale", "orphaned", "pending")
VERDICTS = ("fresh", "moved", "changed", "stale", "orphaned", "pending", "unknown")


@dataclass(frozen=True)
class Resolution:
    """What became of one anchor in the current text of a document."""

    status: str  # one of VERDICTS; "unknown" when the file could not be parsed
    start_line: int  # 1-based inclusive; 0 when the code was not found
    end_line: int
    symbol: str = ""  # the qualified name at that place now
    detail: str = ""  # one line for people: what changed
    commit: str = ""  # the commit that changed the code, when known
    author: str = ""  # who made that commit
    new_home: Anchor | None = None  # where the code seems to live now, for "Re-anchor to ..."


class ParsedBuffer:
    """An open document's text and syntax tree, edited incrementally as the client types."""

    def __init__(self, rel_path: str, text: str, language: str, root: Path | None = None) -> None:
        self.rel_path = rel_path
        self.language = language
        self.root = root
        self._doc: Any = None
        self._text = text
        self._symbols: list[Symbol] | None = None
        # anchor -> (the anchored symbol's bytes when last resolved, that resolution): a symbol
        # whose text did not change keeps its verdict, only its lines move.
        self._memo: dict[tuple[object, ...], tuple[bytes, Resolution]] = {}
        self._load(text)

    def _load(self, text: str) -> None:
        self._text = text
        self._symbols = None
        self._memo.clear()
        try:
            from lsp_server.token_window import WindowedDocument
        except ImportError:
            self._doc = None
            return
        self._doc = WindowedDocument(self.rel_path, text, self.language, self.root)

    @property
    def text(self) -> str:
        return str(self._doc.text) if self._doc is not None else self._text

    def apply_change(
        self, start_line: int, start_char: int, end_line: int, end_char: int, new_text: str
    ) -> None:
        """Apply one LSP content change (UTF-16 positions) to the text and the tree."""
        if self._doc is None:
            raise RuntimeError("incremental edits need anchors.incremental")
        self._doc.apply_change(start_line, start_char, end_line, end_char, new_text)
        self._symbols = None

    def replace(self, text: str) -> None:
        """Start over from a full text (a full-sync change, or after an edit that did not apply)."""
        self._load(text)

    @property
    def incremental(self) -> bool:
        return self._doc is not None

    def symbols(self) -> list[Symbol]:
        """The definitions in the current text, outer before inner."""
        if self._symbols is None:
            if self._doc is not None:
                self._symbols = list(self._doc.symbols())
            else:
                from anchors.symbols import extract_symbols

                self._symbols = extract_symbols(
                    self._text.encode("utf-8", "surrogatepass"), self.language
                )
        return self._symbols

    def resolve(self, anchor: Anchor) -> Resolution:
        """Resolve one anchor of this file against the current text."""
        if self._doc is not None:
            from anchors.incremental import resolve_in_document

            if self._doc.tree is None:  # over the parser's size cap: nothing to compare
                span = anchor.span if len(anchor.span) == 2 else [1, 1]
                return Resolution("unknown", span[0], span[1], anchor.symbol, self._doc.note)
            if not anchor.symbol:
                return from_verdict(resolve_in_document(self._doc, anchor), anchor)
            key = (
                anchor.symbol,
                anchor.commit,
                anchor.dirty,
                tuple(sorted(anchor.fingerprint.items())),
            )
            now = next((s for s in self.symbols() if s.name == anchor.symbol), None)
            body = self._doc.source[now.start_byte : now.end_byte] if now is not None else None
            memo = self._memo.get(key)
            if now is not None and memo is not None and memo[0] == body:
                return replace(memo[1], start_line=now.start_line, end_line=now.end_line)
            res = from_verdict(resolve_in_document(self._doc, anchor), anchor)
            if body is not None and res.symbol == anchor.symbol:
                self._memo[key] = (body, res)
            return res
        return _resolve_by_fingerprint(self.symbols(), anchor)


def from_verdict(verdict: Any, anchor: Anchor) -> Resolution:
    """The library's `Verdict` as a Resolution."""
    status = str(verdict.status)
    location: Anchor | None = verdict.location
    span = list(location.span) if location is not None and len(location.span) == 2 else []
    if not span and status not in ("orphaned",):
        span = list(anchor.span) if len(anchor.span) == 2 else [1, 1]
    start, end = (int(span[0]), int(span[1])) if span else (0, 0)
    new_home = None
    if location is not None and (location.path != anchor.path or location.symbol != anchor.symbol):
        new_home = location
    return Resolution(
        status=status if status in VERDICTS else "unknown",
        start_line=start,
        end_line=end,
        symbol=location.symbol if location is not None else anchor.symbol,
        detail=str(verdict.detail or ""),
        commit=str(verdict.commit or ""),
        author=str(verdict.author or ""),
        new_home=new_home,
    )


def _resolve_by_fingerprint(symbols: list[Symbol], anchor: Anchor) -> Resolution:
    """Resolution by name and fingerprints alone, used until the incremental document is there."""
    if not anchor.symbol:
        span = anchor.span if len(anchor.span) == 2 else [1, 1]
        return Resolution("unknown", span[0], span[1])
    found = next((s for s in symbols if s.name == anchor.symbol), None)
    if found is None:
        return Resolution(
            "orphaned", 0, 0, anchor.symbol, f"{anchor.symbol} is no longer in this file"
        )
    fp = anchor.fingerprint or {}
    changed = [
        k
        for k, v in (("signature", found.signature_fp), ("body", found.body_fp))
        if fp.get(k) and fp[k] != v
    ]
    status = "stale" if changed else "fresh"
    detail = f"{' and '.join(changed)} of {found.name} changed" if changed else ""
    return Resolution(status, found.start_line, found.end_line, found.name, detail)


def symbol_anchor(rel_path: str, language: str, symbol: Symbol, commit: str, dirty: bool) -> Anchor:
    """An anchor on `symbol` as it stands in the buffer, verified now (the CLI's anchor shape)."""
    from anchors import specs

    return specs.symbol_anchor(rel_path, symbol, language, commit, dirty)


def range_anchor(
    rel_path: str, language: str, lines: list[str], start: int, end: int, commit: str, dirty: bool
) -> Anchor:
    """An anchor on lines `start`..`end` (1-based, inclusive) of the buffer."""
    from anchors.specs import lines_fingerprint

    source = "\n".join(lines).encode("utf-8", "surrogatepass")
    return Anchor(
        path=rel_path,
        span=[start, end],
        language=language,
        fingerprint={"lines": lines_fingerprint(source, start, end)},
        commit=commit,
        dirty=dirty,
    )
