"""textDocument/codeLens and codeLens/resolve: "2 learnings · 1 stale" above each anchored symbol.

The lens is cheap to list (a range and a `data` payload); its title and command are filled in by
resolve, once the editor shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_server.commands import SHOW_LEARNINGS
from lsp_server.state import AnchorView, DocumentSnapshot

if TYPE_CHECKING:
    from lsp_server.server import TetherLanguageServer


def code_lenses(snapshot: DocumentSnapshot) -> list[types.CodeLens]:
    """One unresolved lens per piece of anchored code."""
    lenses = []
    for (start, end), _views in sorted(snapshot.groups().items()):
        line = max(start, 0)
        lenses.append(
            types.CodeLens(
                range=types.Range(
                    start=types.Position(line=line, character=0),
                    end=types.Position(line=line, character=0),
                ),
                data={"uri": snapshot.uri, "start": start, "end": end},
            )
        )
    return lenses


def title(views: list[AnchorView]) -> str:
    """ "2 learnings · 1 stale": distinct learnings, then how many of them each verdict flags."""
    ids = {v.learning.id for v in views}
    parts = [f"{len(ids)} learning{'s' if len(ids) != 1 else ''}"]
    for verdict in ("stale", "orphaned", "pending"):
        flagged = {v.learning.id for v in views if v.verdict == verdict}
        if flagged:
            parts.append(f"{len(flagged)} {verdict}")
    return " · ".join(parts)


def resolve(snapshot: DocumentSnapshot | None, lens: types.CodeLens) -> types.CodeLens:
    """Fill in a lens's title and command from the current snapshot."""
    data: Any = lens.data if isinstance(lens.data, dict) else {}
    views: list[AnchorView] = []
    if snapshot is not None:
        key = (data.get("start"), data.get("end"))
        views = snapshot.groups().get(key, []) if all(isinstance(k, int) for k in key) else []
    if not views:
        # The code moved since the lens was listed; the editor asks again after a refresh.
        lens.command = types.Command(title="learnings changed: refreshing", command="")
        return lens
    line = max(views[0].start, 0)
    lens.command = types.Command(
        title=title(views),
        command=SHOW_LEARNINGS,
        arguments=[{"uri": snapshot.uri if snapshot else "", "line": line}],
    )
    return lens


def register(server: TetherLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=True))
    def text_document_code_lens(
        ls: TetherLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens] | None:
        snapshot = ls.state.snapshot(params.text_document.uri)
        if snapshot is None or not ls.state.options.code_lens:
            return None
        return code_lenses(snapshot)

    @server.feature(types.CODE_LENS_RESOLVE)
    def code_lens_resolve(ls: TetherLanguageServer, lens: types.CodeLens) -> types.CodeLens:
        data = lens.data if isinstance(lens.data, dict) else {}
        uri = data.get("uri")
        return resolve(ls.state.snapshot(uri) if isinstance(uri, str) else None, lens)
