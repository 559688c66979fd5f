"""Quick fixes on Tether's diagnostics: Still valid, Invalidate…, Re-anchor to …, Show history."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_server import commands as names
from lsp_server.features.diagnostics import SOURCE
from lsp_server.state import AnchorView, DocumentSnapshot

if TYPE_CHECKING:
    from lsp_server.server import TetherLanguageServer


def _views_for(snapshot: DocumentSnapshot, diagnostic: types.Diagnostic) -> list[AnchorView]:
    """The flagged anchors a diagnostic stands for: by the learning id in its data, or else by
    its line (some clients drop `data` on the way back)."""
    data: Any = diagnostic.data
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        found = [v for v in snapshot.find(data["id"]) if v.flagged]
        index = data.get("index")
        if isinstance(index, int):
            found = [v for v in found if v.index == index] or found
        return found
    line = diagnostic.range.start.line
    return [v for v in snapshot.views if v.flagged and (v.start if v.located else 0) == line]


def code_actions(
    snapshot: DocumentSnapshot, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    """The actions for the Tether diagnostics among `diagnostics`."""
    actions: list[types.CodeAction] = []
    seen: set[tuple[str, int]] = set()
    for diagnostic in diagnostics:
        if diagnostic.source != SOURCE:
            continue
        for view in _views_for(snapshot, diagnostic):
            key = (view.learning.id, view.index)
            if key in seen:
                continue
            seen.add(key)
            actions.extend(actions_for(snapshot, view, diagnostic))
    return actions


def actions_for(
    snapshot: DocumentSnapshot, view: AnchorView, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    ident = view.learning.id
    short = ident[:8]

    def action(
        title: str, command: str, argument: dict[str, Any], preferred: bool = False
    ) -> types.CodeAction:
        return types.CodeAction(
            title=title,
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            is_preferred=preferred or None,
            command=types.Command(title=title, command=command, arguments=[argument]),
        )

    out = []
    if view.verdict != "orphaned":
        out.append(
            action(
                f"Still valid ({short})", names.CONFIRM, {"id": ident, "uri": snapshot.uri}, True
            )
        )
    out.append(
        action(f"Invalidate… ({short})", names.INVALIDATE, {"id": ident, "uri": snapshot.uri})
    )
    home = view.resolution.new_home
    if home is not None:
        out.append(
            action(
                f"Re-anchor to {home.label()}",
                names.REANCHOR,
                {"id": ident, "uri": snapshot.uri, "index": view.index, "anchor": home.to_dict()},
            )
        )
    out.append(
        action(f"Show history ({short})", names.SHOW_HISTORY, {"id": ident, "uri": snapshot.uri})
    )
    return out


def register(server: TetherLanguageServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def text_document_code_action(
        ls: TetherLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        snapshot = ls.state.snapshot(params.text_document.uri)
        if snapshot is None:
            return None
        return code_actions(snapshot, list(params.context.diagnostics)) or None
