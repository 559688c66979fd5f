"""workspace/executeCommand: add, confirm, invalidate, supersede, re-anchor, show, stale check.

Every write goes through `Memory`, the same path and scanner as the CLI, with `source="lsp"`.
Each command takes one JSON object argument (a bare id string is accepted where an id is all it
needs). The functions named after the commands run on the state's worker thread and return
`(result, snapshots to republish)`; `register` does the protocol glue: argument errors become
InvalidParams, refusals (the scanner, an unknown id) become RequestFailed naming the reason, and
the user sees either in a window/showMessage.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from anchors.errors import TetherError
from anchors.record import CATEGORIES, Anchor, Learning
from lsp_server import commands as names
from lsp_server.features.hover import render
from lsp_server.markdown import age, escape, escape_inline
from lsp_server.resolution import FLAGGED, range_anchor, symbol_anchor
from lsp_server.state import DocumentSnapshot, OpenDocument, RepoContext, ServerState, sort_views

if TYPE_CHECKING:
    from anchors.memory import Memory
    from lsp_server.server import TetherLanguageServer

log = logging.getLogger(__name__)

REQUEST_FAILED = -32803  # LSP: the request was valid but could not be carried out
DEFAULT_INVALIDATE_REASON = "no longer holds (marked in the editor)"

Outcome = tuple[Any, list[DocumentSnapshot]]


class BadArguments(ValueError):
    """The command's arguments are missing or malformed."""


# -- argument reading ----------------------------------------------------------------------------


def one_object(args: tuple[Any, ...] | list[Any], id_only: bool = False) -> dict[str, Any]:
    """The single object argument; `"ID"` stands for `{"id": "ID"}` where `id_only`."""
    if len(args) == 1 and isinstance(args[0], dict):
        return args[0]
    if id_only and len(args) == 1 and isinstance(args[0], str):
        return {"id": args[0]}
    raise BadArguments('expected one object argument, e.g. {"id": "01J..."}')


def text_field(obj: dict[str, Any], key: str, required: bool = True, limit: int = 4000) -> str:
    value = obj.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise BadArguments(f"{key!r} must be a non-empty string")
    if len(value) > limit:
        raise BadArguments(f"{key!r} is over {limit} characters")
    return value


def int_field(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadArguments(f"{key!r} must be a non-negative integer")
    return value


def position_field(obj: Any, key: str) -> tuple[int, int]:
    if not isinstance(obj, dict):
        raise BadArguments(f"{key!r} must be an object with line and character")
    return int_field(obj, "line"), int_field(obj, "character")


@dataclass(frozen=True)
class Span:
    """A 0-based LSP range of whole or partial lines."""

    start_line: int
    start_char: int
    end_line: int
    end_char: int

    @property
    def empty(self) -> bool:
        return (self.start_line, self.start_char) == (self.end_line, self.end_char)


def span_field(obj: dict[str, Any]) -> Span:
    """`range` ({start, end}) or `position` ({line, character}) from a command argument."""
    if "range" in obj:
        rng = obj["range"]
        if not isinstance(rng, dict):
            raise BadArguments("'range' must be an object with start and end")
        (sl, sc), (el, ec) = (
            position_field(rng.get("start"), "start"),
            position_field(rng.get("end"), "end"),
        )
        if (el, ec) < (sl, sc):
            sl, sc, el, ec = el, ec, sl, sc
        return Span(sl, sc, el, ec)
    if "position" in obj:
        line, char = position_field(obj["position"], "position")
        return Span(line, char, line, char)
    raise BadArguments("give 'range' or 'position'")


# -- shared look-ups -----------------------------------------------------------------------------


def open_document(state: ServerState, obj: dict[str, Any]) -> OpenDocument:
    uri = text_field(obj, "uri", limit=4096)
    doc = state.documents.get(uri)
    if doc is None:
        raise BadArguments(f"the document {uri} is not open")
    if doc.repo is None or doc.rel is None:
        raise TetherError(f"{uri} is {doc.note or 'not inside a git repository'}")
    return doc


def repo_of(state: ServerState, obj: dict[str, Any]) -> RepoContext:
    """The repository a command is about: its `uri`'s, else the only one open, else the one that
    holds the learning `id`."""
    uri = obj.get("uri")
    if isinstance(uri, str) and uri in state.documents:
        doc = state.documents[uri]
        if doc.repo is not None:
            return doc.repo
    repos = list(state.repos.values())
    if len(repos) == 1:
        return repos[0]
    ident = obj.get("id")
    if isinstance(ident, str):
        for repo in repos:
            memory = state.memory_sync(repo)
            if memory is not None:
                try:
                    memory.get(ident)
                    return repo
                except TetherError:
                    continue
    raise TetherError("no repository open in the editor holds this learning")


def memory_of(state: ServerState, repo: RepoContext) -> Memory:
    memory = state.memory_sync(repo)
    if memory is None:
        raise TetherError(repo.error or f"the memory of {repo.root} cannot be opened")
    return memory


def head_and_dirty(root: Path, rel: str, text: str) -> tuple[str, bool]:
    """The commit HEAD is at, and whether the buffer differs from the file at HEAD."""
    from anchors import git

    head = git.head_commit(root)
    if not head:
        return "", True
    proc = git.run(["cat-file", "blob", f"{head}:{rel}"], root, check=False)
    committed = proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None
    return head, committed != text


def anchor_here(doc: OpenDocument, span: Span) -> Anchor:
    """The anchor for a position (the innermost symbol there, else that line) or a selection
    (those lines), taken from the buffer's current text."""
    assert doc.repo is not None and doc.rel is not None
    lines = doc.text.split("\n")
    if span.start_line >= len(lines) or span.end_line >= len(lines) + 1:
        raise BadArguments(
            f"line {max(span.start_line, span.end_line) + 1} is past the end ({len(lines)} lines)"
        )
    commit, dirty = head_and_dirty(doc.repo.root, doc.rel, doc.text)
    language = doc.language or ""
    if span.empty or span.start_line == span.end_line:
        symbols = doc.buffer.symbols() if doc.buffer is not None else []
        if doc.buffer is None and doc.language and not doc.note:
            from lsp_server.resolution import ParsedBuffer

            doc.buffer = ParsedBuffer(doc.rel, doc.text, doc.language, doc.repo.root)
            symbols = doc.buffer.symbols()
        from anchors.symbols import innermost_at

        symbol = innermost_at(list(symbols), span.start_line + 1)
        if symbol is not None:
            return symbol_anchor(doc.rel, language, symbol, commit, dirty)
        return range_anchor(
            doc.rel, language, lines, span.start_line + 1, span.start_line + 1, commit, dirty
        )
    end_line = span.end_line if span.end_char == 0 else span.end_line + 1
    end_line = max(min(end_line, len(lines)), span.start_line + 1)
    return range_anchor(doc.rel, language, lines, span.start_line + 1, end_line, commit, dirty)


def summary(learning: Learning) -> dict[str, Any]:
    return {
        "id": learning.id,
        "category": learning.category,
        "status": learning.status,
        "text": learning.text,
        "anchors": [a.label() for a in learning.anchors],
    }


# -- the commands (worker thread) ----------------------------------------------------------------


def add(state: ServerState, args: tuple[Any, ...]) -> Outcome:
    """Add a learning anchored at a position or selection of an open document."""
    obj = one_object(args)
    doc = open_document(state, obj)
    text = text_field(obj, "text")
    category = obj.get("category", "general")
    if category not in CATEGORIES:
        raise BadArguments(
            f"unknown category {category!r}: expected one of {', '.join(CATEGORIES)}"
        )
    tags = obj.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise BadArguments("'tags' must be a list of strings")
    confidence = obj.get("confidence", 0.8)
    if not isinstance(confidence, (int, float)) or isinstance(confidence, bool):
        raise BadArguments("'confidence' must be a number")
    anchor = anchor_here(doc, span_field(obj))
    assert doc.repo is not None
    memory = memory_of(state, doc.repo)
    learning = memory.add(
        text,
        category=category,
        anchors=[anchor],
        tags=tags,
        confidence=float(confidence),
        source="lsp",
    )
    return {
        "id": learning.id,
        "anchors": [anchor.label()],
        "status": learning.status,
    }, state.reload_sync(doc.repo.root)


def confirm(state: ServerState, args: tuple[Any, ...]) -> Outcome:
    """ "Still valid": move the learning's anchors forward to the code as it is in the editor."""
    obj = one_object(args, id_only=True)
    ident = text_field(obj, "id", limit=64)
    repo = repo_of(state, obj)
    memory = memory_of(state, repo)
    learning = memory.get(ident)
    anchors = refreshed_anchors(state, repo, learning)
    updated = memory.confirm(learning.id, anchors=anchors, source="lsp")
    return summary(updated), state.reload_sync(repo.root)


def refreshed_anchors(
    state: ServerState, repo: RepoContext, learning: Learning
) -> list[Anchor] | None:
    """The learning's anchors re-taken from open buffers; None when none of its files is open
    (then `Memory.confirm` re-takes them from the working tree)."""
    docs = {d.rel: d for d in state.documents.values() if d.repo is repo and d.rel}
    if not any(a.path in docs for a in learning.anchors):
        return None
    out: list[Anchor] = []
    for anchor in learning.anchors:
        doc = docs.get(anchor.path)
        if doc is None or doc.buffer is None:
            out.append(_refresh_on_disk(repo.root, anchor))
            continue
        res = doc.buffer.resolve(anchor)
        commit, dirty = head_and_dirty(repo.root, anchor.path, doc.text)
        symbol = (
            next((s for s in doc.buffer.symbols() if s.name == res.symbol), None)
            if res.symbol
            else None
        )
        if symbol is not None:
            out.append(
                symbol_anchor(anchor.path, doc.language or anchor.language, symbol, commit, dirty)
            )
        elif not anchor.symbol and res.start_line > 0:
            lines = doc.text.split("\n")
            out.append(
                range_anchor(
                    anchor.path,
                    doc.language or "",
                    lines,
                    res.start_line,
                    res.end_line,
                    commit,
                    dirty,
                )
            )
        else:
            out.append(anchor)  # the code is gone: confirming keeps the anchor as it was
    return out


def _refresh_on_disk(root: Path, anchor: Anchor) -> Anchor:
    from anchors.specs import refresh_anchor

    try:
        return refresh_anchor(root, anchor)
    except Exception:
        log.exception("re-taking %s from the working tree failed", anchor.label())
        return anchor


def invalidate(state: ServerState, args: tuple[Any, ...]) -> Outcome:
    obj = one_object(args, id_only=True)
    ident = text_field(obj, "id", limit=64)
    reason = (
        text_field(obj, "reason", required=False, limit=1000).strip() or DEFAULT_INVALIDATE_REASON
    )
    repo = repo_of(state, obj)
    updated = memory_of(state, repo).invalidate(ident, reason, source="lsp")
    return summary(updated), state.reload_sync(repo.root)


def supersede(state: ServerState, args: tuple[Any, ...]) -> Outcome:
    obj = one_object(args)
    ident = text_field(obj, "id", limit=64)
    text = text_field(obj, "text")
    repo = repo_of(state, obj)
    new = memory_of(state, repo).supersede(ident, text, source="lsp")
    return summary(new), state.reload_sync(repo.root)


def reanchor(state: ServerState, args: tuple[Any, ...]) -> Outcome:
    """Move one anchor of a learning to where its code lives now."""
    obj = one_object(args)
    ident = text_field(obj, "id", limit=64)
    raw = obj.get("anchor")
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str) or not raw["path"]:
        raise BadArguments("'anchor' must be an object with a path")
    target = Anchor.from_dict(raw)
    if target.path.startswith("/") or ".." in Path(target.path).parts:
        raise BadArguments(f"anchor path {target.path!r} is outside the repository")
    repo = repo_of(state, obj)
    memory = memory_of(state, repo)
    learning = memory.get(ident)
    index = obj.get("index", 0)
    if not isinstance(index, int) or not 0 <= index < max(len(learning.anchors), 1):
        raise BadArguments(f"'index' must be between 0 and {len(learning.anchors) - 1}")
    anchors = list(learning.anchors)
    if anchors:
        anchors[index] = target
    else:
        anchors = [target]
    updated = memory.reanchor(
        learning.id, anchors, reason="re-anchored in the editor", source="lsp"
    )
    return summary(updated), state.reload_sync(repo.root)


def show_learnings(state: ServerState, args: tuple[Any, ...]) -> Outcome:
    """The learnings on the code at a line, as markdown (the code lens's command)."""
    obj = one_object(args)
    uri = text_field(obj, "uri", limit=4096)
    snapshot = state.snapshot(uri)
    if snapshot is None:
        raise BadArguments(f"the document {uri} is not open")
    line = int_field(obj, "line") if "line" in obj else None
    views = snapshot.views_at(line) if line is not None else sort_views(snapshot.views)
    if line is not None and not views:
        # The lens of orphaned learnings sits on line 0 but they have no place in the file.
        views = sort_views(v for v in snapshot.views if not v.located) if line == 0 else []
    return {
        "markdown": render(views) if views else "No learnings here.",
        "learnings": [dict(summary(v.learning), verdict=v.verdict) for v in views],
    }, []


def show_history(state: ServerState, args: tuple[Any, ...]) -> Outcome:
    """Every op about a learning, oldest first, as markdown."""
    obj = one_object(args, id_only=True)
    ident = text_field(obj, "id", limit=64)
    repo = repo_of(state, obj)
    memory = memory_of(state, repo)
    learning = memory.get(ident)
    ops = memory.ops_for(learning.id)
    lines = [f"**History of {escape_inline(learning.id)}** ({escape_inline(learning.status)})", ""]
    rows = []
    for op in ops:
        when = age(op.time)
        payload = op.payload or {}
        note = payload.get("reason") or (payload.get("record") or {}).get("text") or ""
        line = f"- {escape_inline(op.time)} ({when}) **{escape_inline(op.type)}** by {escape_inline(op.author)}"
        if note:
            line += f": {escape_inline(str(note), 160)}"
        lines.append(line)
        rows.append({"type": op.type, "time": op.time, "author": op.author})
    lines += ["", escape(learning.text)]
    return {"id": learning.id, "markdown": "\n".join(lines), "ops": rows}, []


def flagged_items(state: ServerState, repo: RepoContext) -> list[dict[str, Any]]:
    """Every anchored learning of a repository that needs a look: open buffers are resolved as
    they are in the editor, other files as they are in the working tree."""
    memory = memory_of(state, repo)
    open_docs = {d.rel: d for d in state.documents.values() if d.repo is repo and d.rel}
    items: list[dict[str, Any]] = []
    for learning in memory.list():
        for index, anchor in enumerate(learning.anchors):
            doc = open_docs.get(anchor.path)
            snap = state.snapshot(doc.uri) if doc is not None else None
            if snap is not None:
                view = next(
                    (v for v in snap.views if v.learning.id == learning.id and v.index == index),
                    None,
                )
                if view is None or not view.flagged:
                    continue
                verdict, line, detail = view.verdict, view.start, view.resolution.detail
            else:
                verdict, line, detail = _resolve_on_disk(repo.root, anchor)
                if learning.status == "stale" and verdict not in FLAGGED:
                    verdict, detail = "stale", learning.status_reason
                if verdict not in FLAGGED:
                    continue
            uri = (repo.root / anchor.path).as_uri()
            message = " ".join(learning.text.split())[:120]
            items.append({
                "id": learning.id, "uri": uri, "path": anchor.path, "line": max(line, 0),
                "verdict": verdict, "message": message, "detail": detail,
            })  # fmt: skip
    return items


def _resolve_on_disk(root: Path, anchor: Anchor) -> tuple[str, int, str]:
    """(verdict, 0-based line, detail) of an anchor against the working tree."""
    from anchors.resolve import resolve_anchor

    try:
        verdict = resolve_anchor(root, anchor)
    except Exception as exc:
        log.warning("resolving %s failed: %s", anchor.label(), exc)
        return "unknown", 0, ""
    from lsp_server.resolution import from_verdict

    res = from_verdict(verdict, anchor)
    return res.status, max(res.start_line - 1, 0), res.detail


def stale_check(state: ServerState, args: tuple[Any, ...]) -> Outcome:
    obj = one_object(args) if args else {}
    repos = [repo_of(state, obj)] if obj.get("uri") else list(state.repos.values())
    items: list[dict[str, Any]] = []
    for repo in repos:
        items.extend(flagged_items(state, repo))
    return {"items": items}, []


COMMANDS: dict[str, Callable[[ServerState, tuple[Any, ...]], Outcome]] = {
    names.ADD: add,
    names.CONFIRM: confirm,
    names.INVALIDATE: invalidate,
    names.SUPERSEDE: supersede,
    names.REANCHOR: reanchor,
    names.SHOW_LEARNINGS: show_learnings,
    names.SHOW_HISTORY: show_history,
    names.STALE_CHECK: stale_check,
}


async def execute(ls: TetherLanguageServer, name: str, args: tuple[Any, ...]) -> Any:
    """Run a command on the worker thread, publish what it changed, and report failures."""
    try:
        result, snapshots = await ls.run(COMMANDS[name], ls.state, args)
    except BadArguments as exc:
        message = f"{name}: {exc}"
        log.warning("%s", message)
        ls.show_message(message, types.MessageType.Error)
        raise JsonRpcInvalidParams(message) from None
    except TetherError as exc:
        message = f"{name}: {exc.message}"
        log.warning("%s", message)
        ls.show_message(message, types.MessageType.Error)
        raise JsonRpcException(message, code=REQUEST_FAILED) from None
    for snapshot in snapshots:
        ls.publish(snapshot)
    if snapshots:
        ls.refresh_code_lenses()
    return result


def register(server: TetherLanguageServer) -> None:
    for name in COMMANDS:
        _register_one(server, name)


def _register_one(server: TetherLanguageServer, name: str) -> None:
    # `ls: Any`: pygls reads this signature's annotations at run time to convert the arguments,
    # and the server class is only imported for type checking here.
    async def handler(ls: Any, *args: Any) -> Any:
        return await execute(ls, name, args)

    handler.__name__ = "workspace_execute_command_" + name.split(".", 1)[1]
    server.command(name)(handler)
