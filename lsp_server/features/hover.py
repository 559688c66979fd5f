"""textDocument/hover: the learnings on the code under the cursor, newest verified first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server.markdown import age, escape, escape_inline, short_sha
from lsp_server.state import AnchorView, DocumentSnapshot

if TYPE_CHECKING:
    from lsp_server.server import TetherLanguageServer

MAX_LEARNINGS = 8

VERDICT_LABELS = {
    "fresh": "unchanged since verified",
    "moved": "moved, otherwise unchanged",
    "changed": "code changed cosmetically",
    "stale": "**stale**: the code changed since this was verified",
    "orphaned": "**orphaned**: the code it was about is gone",
    "pending": "**pending**: anchored on a commit not reachable from HEAD",
    "unknown": "not checked (file not parsed)",
}


def hover(snapshot: DocumentSnapshot, position: types.Position) -> types.Hover | None:
    """The hover for `position`, or None when no learning is anchored there."""
    if position.line < 0 or position.line >= max(snapshot.line_count, 1):
        return None
    views = snapshot.views_at(position.line)
    if not views:
        return None
    first = views[0]
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=render(views)),
        range=types.Range(
            start=types.Position(line=first.start, character=0),
            end=types.Position(line=first.start, character=0),
        ),
    )


def render(views: list[AnchorView]) -> str:
    """Markdown for a list of anchored learnings; every piece of learning content is escaped."""
    shown = views[:MAX_LEARNINGS]
    blocks = [render_one(view) for view in shown]
    if len(views) > len(shown):
        blocks.append(f"*{len(views) - len(shown)} more: run Show learnings*")
    return "\n\n---\n\n".join(blocks)


def render_one(view: AnchorView) -> str:
    """One learning: category and verdict, the text, then who, when, how sure, and evidence."""
    learning = view.learning
    verdict = view.verdict
    head = f"**{escape_inline(learning.category)}** · {VERDICT_LABELS.get(verdict, escape_inline(verdict))}"
    res = view.resolution
    if verdict in ("stale", "orphaned", "pending"):
        changed = []
        if res.detail:
            changed.append(escape_inline(res.detail))
        if res.commit:
            by = f" by {escape_inline(res.author)}" if res.author else ""
            changed.append(f"in {short_sha(res.commit)}{by}")
        elif learning.status == "stale" and learning.status_reason:
            changed.append(escape_inline(learning.status_reason))
        if changed:
            head += f" ({' '.join(changed)})"
    who = escape_inline(learning.author_name or learning.author or "unknown")
    meta = [who]
    when = age(learning.recorded_at)
    if when:
        meta.append(when)
    meta.append(f"confidence {float(learning.confidence):.2f}")
    meta.append(f"id {escape_inline(learning.id[:10])}")
    lines = [head, "", escape(learning.text), "", "*" + " · ".join(meta) + "*"]
    if learning.evidence:
        refs = []
        for ev in learning.evidence[:5]:
            ref = short_sha(ev.ref) if ev.type == "commit" else escape_inline(ev.ref, 80)
            note = f" ({escape_inline(ev.note, 80)})" if ev.note else ""
            refs.append(f"{escape_inline(ev.type)} {ref}{note}")
        lines.append("")
        lines.append("Evidence: " + "; ".join(refs))
    return "\n".join(lines)


def register(server: TetherLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def text_document_hover(
        ls: TetherLanguageServer, params: types.HoverParams
    ) -> types.Hover | None:
        snapshot = ls.state.snapshot(params.text_document.uri)
        if snapshot is None:
            return None
        return hover(snapshot, params.position)
