"""Diagnostics: one per stale, orphaned or pending learning, at the code it is anchored to.

Orphaned learnings (their code is gone) sit on the first line of the file. Each diagnostic's
related information names the commit and author that changed the code, and its `data` carries the
learning id so the code actions can act on it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from lsp_server.state import AnchorView, DocumentSnapshot

if TYPE_CHECKING:
    from lsp_server.server import TetherLanguageServer

log = logging.getLogger(__name__)

SOURCE = "tether"
SEVERITY = {
    "stale": types.DiagnosticSeverity.Warning,
    "orphaned": types.DiagnosticSeverity.Warning,
    "pending": types.DiagnosticSeverity.Information,
}
HEADLINE = {
    "stale": "Learning may be stale",
    "orphaned": "Learning is orphaned",
    "pending": "Learning is pending",
}
MAX_TEXT = 100


def line_range(snapshot: DocumentSnapshot, line: int) -> types.Range:
    """The visible text of one line (UTF-16 columns), clamped to the document."""
    lines = snapshot.lines
    line = min(max(line, 0), max(len(lines) - 1, 0))
    text = lines[line] if lines else ""
    start = len(text) - len(text.lstrip())
    end = len(text.encode("utf-16-le")) // 2
    start16 = len(text[:start].encode("utf-16-le")) // 2
    return types.Range(
        start=types.Position(line=line, character=start16),
        end=types.Position(line=line, character=end),
    )


def plain(text: str, limit: int = MAX_TEXT) -> str:
    """One line of learning text for a diagnostic message (plain text, never rendered)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def diagnostic(snapshot: DocumentSnapshot, view: AnchorView) -> types.Diagnostic:
    verdict = view.verdict
    res = view.resolution
    learning = view.learning
    rng = line_range(snapshot, view.start if view.located else 0)
    why = res.detail or (learning.status_reason if learning.status == "stale" else "")
    if verdict == "orphaned" and not why:
        why = f"{view.anchor.label()} is no longer in this file"
    message = f"{HEADLINE[verdict]}: {plain(learning.text)}"
    if why:
        message += f" ({plain(why, 160)})"
    related = []
    if res.commit:
        by = f" by {res.author}" if res.author else ""
        related.append(f"changed in {res.commit[:10]}{by}")
    if view.anchor.commit:
        author = learning.author_name or learning.author
        related.append(
            f"verified at {view.anchor.commit[:10]}" + (f" by {author}" if author else "")
        )
    return types.Diagnostic(
        range=rng,
        message=message,
        severity=SEVERITY[verdict],
        source=SOURCE,
        code=verdict,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=snapshot.uri, range=rng), message=text
            )
            for text in related
        ]
        or None,
        data={"id": learning.id, "index": view.index, "verdict": verdict},
    )


def diagnostics(snapshot: DocumentSnapshot) -> list[types.Diagnostic]:
    """The diagnostics of one document: one per flagged anchor."""
    return [diagnostic(snapshot, view) for view in snapshot.views if view.flagged]


def publish(server: TetherLanguageServer, snapshot: DocumentSnapshot) -> None:
    """Send a document's diagnostics (an empty list clears them)."""
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=snapshot.uri, version=snapshot.version, diagnostics=diagnostics(snapshot)
        )
    )


class Debouncer:
    """Per-document delay: re-resolve once typing pauses, not on every keystroke."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def schedule(self, uri: str, delay: float, job: object) -> None:
        """Run the coroutine function `job()` after `delay` seconds, replacing any pending one."""
        previous = self._tasks.pop(uri, None)
        if previous is not None:
            previous.cancel()

        async def later() -> None:
            try:
                await asyncio.sleep(delay)
                await job()  # type: ignore[operator]
            except asyncio.CancelledError:
                pass
            except Exception:
                log.exception("updating %s failed", uri)
            finally:
                if self._tasks.get(uri) is task:
                    del self._tasks[uri]

        task = asyncio.ensure_future(later())
        self._tasks[uri] = task

    def cancel(self, uri: str) -> None:
        task = self._tasks.pop(uri, None)
        if task is not None:
            task.cancel()
