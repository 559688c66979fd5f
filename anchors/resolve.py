"""Resolve anchors in a newer version of the code: where is it now, and did it change?

Order, for a symbol anchor (`path::Name`) verified at commit C:

1. C not in this clone: say so (a shallow clone lacks history) and compare fingerprints only.
   C not an ancestor of the version's commit: `pending` (anchored on another branch).
2. The file did not change since C (git's view): `fresh`, with nothing parsed.
3. Same path (or the path git's rename detection gives), same name: compare fingerprints.
4. Name gone: the same body elsewhere in the file (a rename); failing that, the most similar new
   symbol of the same kind, if similar enough.
5. Path gone or name gone: the files that changed since C (only those can have received the code),
   by body fingerprint, then by similarity (moved across files).
6. Nothing: `orphaned`.

Verdicts:
- `fresh`: signature and body fingerprints unchanged (the span may have shifted).
- `moved`: found under another name or path, unchanged (apart from the name); re-anchor it.
- `changed`: only cosmetic changes (see `anchors.fingerprint.is_cosmetic`: literal text and
  consistently renamed locals); the learning almost surely holds.
- `stale`: the signature or the body changed since the learning was verified.
- `orphaned`: the code is gone.
- `pending`: anchored on a commit the version does not contain.

Line-range anchors follow `git diff -U0` hunks: edits elsewhere shift them (`fresh`), edits inside
them make them `stale` unless only whitespace changed, deleting all their lines orphans them.
File anchors are `fresh` while the file is unchanged, `changed` when it was edited (a learning
about a whole file does not go stale with every edit), `moved` when renamed, `orphaned` when gone.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchors.fingerprint import is_cosmetic, normalise_tokens, similarity
from anchors.languages import language_for_path
from anchors.record import Anchor
from anchors.specs import blob_hash, lines_fingerprint, symbol_anchor
from anchors.symbols import Symbol, parse_source, symbols_from_tree
from anchors.versions import Changes, CommitInfo, History, Version

VERDICTS = ("fresh", "moved", "changed", "stale", "orphaned", "pending")
RENAME_SIMILARITY = 0.6  # a new symbol in the same file at least this similar is the renamed one
MOVE_SIMILARITY = 0.8  # in another file, under another name
MOVE_SIMILARITY_SAME_NAME = 0.5  # in another file, under the same name
MIN_MATCH_TOKENS = 8  # smaller bodies (`pass`, `{}`) match by fingerprint only under their name
_KIND_GROUPS = {"function": "callable", "method": "callable", "class": "type", "struct": "type"}


@dataclass
class Verdict:
    """What became of one anchor, with the evidence."""

    status: str  # one of VERDICTS
    anchor: Anchor  # as stored
    location: Anchor | None = None  # where the code is now, with fresh fingerprints
    detail: str = ""  # one line for people
    changes: list[str] = field(
        default_factory=list
    )  # signature, body, cosmetic, rename, move, file-rename, lines, file
    commits: list[CommitInfo] = field(default_factory=list)  # newest first; sha "" = uncommitted
    lines_added: int = 0
    lines_removed: int = 0
    similarity: float = 1.0
    notes: list[str] = field(default_factory=list)

    @property
    def commit(self) -> str:
        """The newest commit that changed the code (empty when unknown or uncommitted)."""
        return self.commits[0].sha if self.commits else ""

    @property
    def author(self) -> str:
        return self.commits[0].author if self.commits else ""

    @property
    def flagged(self) -> bool:
        return self.status in ("stale", "orphaned", "pending")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; a fresh anchor that stayed where it was says only that."""
        if self.status == "fresh" and self.location is self.anchor and not self.notes:
            return {"anchor": self.anchor.label(), "verdict": "fresh"}
        return {
            "anchor": self.anchor.label(),
            "verdict": self.status,
            "detail": self.detail,
            "location": self.location.to_dict() if self.location else None,
            "changes": self.changes,
            "evidence": {
                "commits": [c.to_dict() for c in self.commits],
                "lines_added": self.lines_added,
                "lines_removed": self.lines_removed,
                "similarity": round(self.similarity, 3),
            },
            "notes": self.notes,
        }


def _group(kind: str) -> str:
    return _KIND_GROUPS.get(kind, kind)


def compare_symbol(
    anchor: Anchor, old: Symbol | None, now: Symbol, *, renamed: bool
) -> tuple[bool, str]:
    """(signature changed?, body state: same | cosmetic | body) of `now` against the anchor
    taken from `old` (None when the anchored version is not at hand)."""
    fp = anchor.fingerprint
    if renamed:
        # Without the anchored version only an exact body match finds a rename; its old
        # signature is unknown, so only the body speaks.
        sig_changed = old is not None and signature_shape(old) != signature_shape(now)
    else:
        sig_changed = bool(fp.get("signature")) and fp.get("signature") != now.signature_fp
    body_state = "same"
    if fp.get("body") and fp.get("body") != now.body_fp:
        cosmetic = old is not None and is_cosmetic(old.body_tokens(), now.body_tokens())
        body_state = "cosmetic" if cosmetic else "body"
    return sig_changed, body_state


def signature_shape(symbol: Symbol) -> str:
    """The signature's tokens with the symbol's own name as `<self>`: equal across a rename."""
    return normalise_tokens(symbol._tokens(symbol.start_byte, symbol.body_start), symbol.short_name)


def line_counts(old: str, new: str) -> tuple[int, int]:
    """(lines added, lines removed) between two texts."""
    added = removed = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


class Resolver:
    """Resolves many anchors against one version, sharing git answers and parsed files."""

    def __init__(self, root: Path | str, rev: str | None = None, staged: bool = False) -> None:
        self.root = Path(root)
        self.version = Version.open(self.root, rev, staged)
        self.history = History(self.version)
        self._parsed: dict[tuple[str, str], tuple[list[Symbol], bytes | None, str]] = {}
        self._base_versions: dict[str, Version] = {}
        self._broken: set[tuple[str, str]] = set()  # files whose parse recovered from errors

    def close(self) -> None:
        self.version.close()
        for v in self._base_versions.values():
            v.close()

    def __enter__(self) -> Resolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading ------------------------------------------------------------------------------

    def _at(self, commit: str) -> Version:
        if commit not in self._base_versions:
            self._base_versions[commit] = Version(
                self.root, "commit", commit, commit[:12], self.version.blobs
            )
        return self._base_versions[commit]

    def anchored(self, base: str, path: str) -> tuple[list[Symbol], bytes | None, str]:
        """`path` as it was at the anchor's commit `base`, parsed once. When no commit since
        `base` changed the file, that is the file at the version's commit: anchors verified at
        many different commits then share one read and one parse."""
        target = self.version.commit
        committed = self.history.committed_changes(base)
        if target and committed is not None and path not in committed.changed:
            return self.parsed(self._at(target), path)
        return self.parsed(self._at(base), path)

    def parsed(self, version: Version, path: str) -> tuple[list[Symbol], bytes | None, str]:
        """(symbols, source, note) of `path` in `version`, parsed once per resolver."""
        key = (version.kind + version.commit, path)
        if key not in self._parsed:
            source, note = version.read(path)
            language = language_for_path(path)
            symbols: list[Symbol] = []
            if source is not None and language:
                tree, grammar = parse_source(source, language)
                symbols = symbols_from_tree(tree, source, grammar)
                if tree.root_node.has_error:
                    self._broken.add(key)
            self._parsed[key] = (symbols, source, note)
        return self._parsed[key]

    # -- entry points -------------------------------------------------------------------------

    def resolve_all(self, anchors: list[Anchor]) -> list[Verdict]:
        """Verdicts for many anchors, in order (git is asked once for all their commits)."""
        self.history.prepare({a.commit for a in anchors if a.commit})
        self._prefetch(anchors)
        return [self.resolve(a) for a in anchors]

    def _prefetch(self, anchors: list[Anchor]) -> None:
        """Read in one round trip the versions of changed files that resolution will compare."""
        target = self.version.commit
        names = []
        for a in anchors:
            if not a.commit or not self.history.known(a.commit):
                continue
            if a.path not in self.history.changes_since(a.commit).changed:
                continue
            if self.version.kind == "commit":
                names.append(f"{target}:{a.path}")
            committed = self.history.committed_changes(a.commit)
            unchanged = committed is not None and a.path not in committed.changed
            names.append(f"{target if unchanged and target else a.commit}:{a.path}")
        self.version.blobs.prefetch(names)

    def resolve(self, anchor: Anchor) -> Verdict:
        """The verdict for one anchor."""
        base = anchor.commit
        notes: list[str] = []
        usable_base = ""
        if base:
            if not self.history.known(base):
                if self.history.shallow:
                    notes.append(
                        f"commit {base[:12]} is not in this shallow clone: history before it is missing (git fetch --unshallow); compared fingerprints only"
                    )
                else:
                    notes.append(
                        f"commit {base[:12]} is not in this repository; compared fingerprints only"
                    )
            elif not self.history.is_ancestor(base):
                return Verdict(
                    "pending",
                    anchor,
                    anchor,
                    f"anchored at {base[:12]}, which {self.version.label} does not contain (another branch?)",
                    notes=notes,
                )
            else:
                usable_base = base
        changes = self.history.changes_since(usable_base) if usable_base else None
        if changes is not None and not anchor.dirty and anchor.path not in changes.changed:
            return Verdict("fresh", anchor, anchor, notes=notes)
        if anchor.symbol:
            verdict = self._symbol(anchor, usable_base, changes)
        elif len(anchor.span) == 2:
            verdict = self._range(anchor, usable_base, changes)
        else:
            verdict = self._file(anchor, usable_base, changes)
        verdict.notes = notes + verdict.notes
        return verdict

    # -- symbol anchors -----------------------------------------------------------------------

    def _old_symbol(self, anchor: Anchor, base: str) -> Symbol | None:
        """The anchored symbol as it was at `base`, if its fingerprints are the stored ones."""
        if not base or anchor.dirty:
            return None
        symbols, _, _ = self.anchored(base, anchor.path)
        for s in symbols:
            if s.name == anchor.symbol and s.body_fp == anchor.fingerprint.get("body", s.body_fp):
                return s
        return None

    def _symbol(self, anchor: Anchor, base: str, changes: Changes | None) -> Verdict:
        path_now = anchor.path
        if changes is not None and anchor.path in changes.renames:
            path_now = changes.renames[anchor.path]
        elif changes is not None and anchor.path in changes.deleted:
            path_now = ""
        notes: list[str] = []
        if path_now:
            symbols, source, note = self.parsed(self.version, path_now)
            if source is None and note != "missing":
                return Verdict(
                    "stale", anchor, None, f"cannot read {path_now}: {note}", notes=[note]
                )
            found = next((s for s in symbols if s.name == anchor.symbol), None)
            moves = ["file-rename"] if path_now != anchor.path else []
            fp = anchor.fingerprint
            if found is not None:
                if not moves and (found.signature_fp, found.body_fp) == (
                    fp.get("signature"),
                    fp.get("body"),
                ):
                    # Unchanged where it was: no need for the anchored version of the file.
                    location = symbol_anchor(
                        path_now, found, anchor.language, self.version.commit, self._dirty(path_now)
                    )
                    return Verdict("fresh", anchor, location)
                old = self._old_symbol(anchor, base)
                return self._compare(anchor, old, found, path_now, base, moves)
            if (self.version.kind + self.version.commit, path_now) in self._broken:
                # Error recovery can swallow a definition into a broken neighbour: guessing a
                # rename or a move from such a tree would be wrong, so say what is known.
                detail = f"{anchor.symbol} not found: {path_now} has a syntax error"
                return Verdict("stale", anchor, None, detail, changes=["syntax-error"])
            old = self._old_symbol(anchor, base)
            old_names = {s.name for s in self.anchored(base, anchor.path)[0]} if base else set()
            candidates = [s for s in symbols if s.name not in old_names]
            match = self._best(anchor, old, candidates, RENAME_SIMILARITY, RENAME_SIMILARITY)
            if match is not None:
                return self._compare(anchor, old, match, path_now, base, [*moves, "rename"])
        else:
            old = self._old_symbol(anchor, base)
        if changes is not None:
            language = anchor.language or language_for_path(anchor.path)
            seen = {anchor.path, path_now}
            elsewhere: list[tuple[str, Symbol]] = []
            for path in sorted(changes.added | (changes.changed - changes.deleted)):
                if path in seen or language_for_path(path) != language:
                    continue
                elsewhere.extend((path, s) for s in self.parsed(self.version, path)[0])
            match_at = self._best_across(anchor, old, elsewhere)
            if match_at is not None:
                path, match = match_at
                kinds = ["move"] + (["rename"] if match.name != anchor.symbol else [])
                return self._compare(anchor, old, match, path, base, kinds)
        where = (
            f"{anchor.path} is gone"
            if not path_now
            else f"{anchor.symbol} is no longer in {path_now}"
        )
        verdict = Verdict("orphaned", anchor, None, f"{where}; no matching code found", notes=notes)
        if base:
            verdict.commits = self.history.log(base, [anchor.path])
        if old is not None:
            verdict.lines_removed = old.end_line - old.start_line + 1
        return verdict

    def _matches_exactly(self, anchor: Anchor, s: Symbol) -> bool:
        if s.body_fp != anchor.fingerprint.get("body") or _group(s.kind) != _group(
            anchor.kind or s.kind
        ):
            return False
        return (
            s.short_name == anchor.symbol.rsplit(".", 1)[-1]
            or s.body_norm.count("\n") + 1 >= MIN_MATCH_TOKENS
        )

    def _best(
        self,
        anchor: Anchor,
        old: Symbol | None,
        candidates: list[Symbol],
        same_name: float,
        other: float,
    ) -> Symbol | None:
        exact = [s for s in candidates if self._matches_exactly(anchor, s)]
        if exact:
            short = anchor.symbol.rsplit(".", 1)[-1]
            return next((s for s in exact if s.short_name == short), exact[0])
        if old is None:
            return None
        best: tuple[float, Symbol] | None = None
        for s in candidates:
            if _group(s.kind) != _group(old.kind):
                continue
            score = similarity(old.body_norm, s.body_norm)
            threshold = same_name if s.short_name == old.short_name else other
            if score >= threshold and (best is None or score > best[0]):
                best = (score, s)
        return best[1] if best else None

    def _best_across(
        self, anchor: Anchor, old: Symbol | None, candidates: list[tuple[str, Symbol]]
    ) -> tuple[str, Symbol] | None:
        symbols = [s for _, s in candidates]
        match = self._best(anchor, old, symbols, MOVE_SIMILARITY_SAME_NAME, MOVE_SIMILARITY)
        if match is None:
            return None
        return next((p, s) for p, s in candidates if s is match)

    def _compare(
        self,
        anchor: Anchor,
        old: Symbol | None,
        now: Symbol,
        path: str,
        base: str,
        moves: list[str],
    ) -> Verdict:
        changes = list(moves)
        sig_changed, body_state = compare_symbol(anchor, old, now, renamed="rename" in moves)
        if sig_changed:
            changes.append("signature")
        if body_state != "same":
            changes.append(body_state)
        language = anchor.language or language_for_path(path) or ""
        location = symbol_anchor(path, now, language, self.version.commit, self._dirty(path))
        if sig_changed or body_state == "body":
            status = "stale"
        elif body_state == "cosmetic":
            status = "changed"
        else:
            status = "moved" if moves else "fresh"
        verdict = Verdict(status, anchor, location, changes=changes)
        if old is not None:
            verdict.similarity = similarity(old.body_norm, now.body_norm)
            _, old_source, _ = self.anchored(base, anchor.path)
            _, new_source, _ = self.parsed(self.version, path)
            if old_source is not None and new_source is not None and status != "fresh":
                verdict.lines_added, verdict.lines_removed = line_counts(
                    old_source[old.start_byte : old.end_byte].decode("utf-8", "replace"),
                    new_source[now.start_byte : now.end_byte].decode("utf-8", "replace"),
                )
        if status != "fresh" and base:
            verdict.commits = self._evidence(base, anchor.path, path, now.name)
        verdict.detail = _describe(verdict, anchor, now, path)
        return verdict

    def _dirty(self, path: str) -> bool:
        return self.version.kind != "commit" and path in self.history.uncommitted().changed

    def _evidence(self, base: str, old_path: str, path: str, name: str) -> list[CommitInfo]:
        """Commits since `base` that touched the symbol, newest first; uncommitted work first."""
        target = self.version.commit
        span = None
        if self.version.kind == "commit":
            at_target = self.version
        else:
            at_target = self._at(target) if target else self.version
        if (
            target and path == old_path
        ):  # -L does not show a rename that left the lines as they were
            symbols, _, _ = self.parsed(at_target, path)
            found = next((s for s in symbols if s.name == name), None)
            if found is not None:
                span = (found.start_line, found.end_line)
        commits = (
            self.history.log(base, [path, old_path], span)
            if span
            else self.history.log(base, [old_path, path])
        )
        if self._dirty(path):
            commits.insert(
                0,
                CommitInfo(
                    "", "(uncommitted)", "", f"uncommitted changes in the {self.version.label}"
                ),
            )
        return commits

    # -- line ranges and files ----------------------------------------------------------------

    def _range(self, anchor: Anchor, base: str, changes: Changes | None) -> Verdict:
        start, end = anchor.span
        path = anchor.path
        if changes is not None:
            if path in changes.renames:
                path = changes.renames[path]
            elif path in changes.deleted:
                return Verdict(
                    "orphaned",
                    anchor,
                    None,
                    f"{anchor.path} is gone",
                    commits=self.history.log(base, [anchor.path]),
                )
        _, source, note = self.parsed(self.version, path)
        if source is None:
            status = "orphaned" if note == "missing" else "stale"
            return Verdict(status, anchor, None, f"{path}: {note}")
        touched = False
        if base and not anchor.dirty:
            start, end, touched = map_range(
                self.history.diff_hunks(base, anchor.path, path), start, end
            )
        count = len(source.decode("utf-8", "replace").splitlines())
        moves = ["file-rename"] if path != anchor.path else []
        if end < start or start > count:
            return Verdict(
                "orphaned",
                anchor,
                None,
                f"lines {anchor.span[0]}-{anchor.span[1]} of {anchor.path} were deleted",
                changes=["lines"],
                commits=self.history.log(base, [anchor.path, path]) if base else [],
            )
        end = min(end, count)
        new_fp = lines_fingerprint(source, start, end)
        location = Anchor(
            path=path,
            span=[start, end],
            language=anchor.language,
            fingerprint={"lines": new_fp},
            commit=self.version.commit,
            dirty=self._dirty(path),
        )
        if new_fp == anchor.fingerprint.get("lines"):
            status = "moved" if moves else "fresh"
            detail = f"now {location.label()}" if moves else ""
            return Verdict(status, anchor, location, detail, changes=moves)
        verdict = Verdict("stale", anchor, location, changes=[*moves, "lines"])
        verdict.detail = f"lines {start}-{end} of {path} changed" + (
            " (edited inside the range)" if touched else ""
        )
        if base:
            verdict.commits = self.history.log(
                base, [path, anchor.path], (start, end) if self.version.kind == "commit" else None
            )
            if self._dirty(path):
                verdict.commits.insert(
                    0,
                    CommitInfo(
                        "", "(uncommitted)", "", f"uncommitted changes in the {self.version.label}"
                    ),
                )
        return verdict

    def _file(self, anchor: Anchor, base: str, changes: Changes | None) -> Verdict:
        path = anchor.path
        if changes is not None and path in changes.renames:
            path = changes.renames[path]
        if self.version.kind == "worktree":
            full = self.root / path
            data = full.read_bytes() if self.version.exists(path) else None
        else:
            data = self.version.blobs.read(
                f"{self.version.commit}:{path}" if self.version.kind == "commit" else f":0:{path}"
            )
        if data is None:
            return Verdict(
                "orphaned",
                anchor,
                None,
                f"{anchor.path} is gone",
                commits=self.history.log(base, [anchor.path]) if base else [],
            )
        blob = blob_hash(data)
        location = Anchor(
            path=path,
            language=anchor.language,
            fingerprint={"file": blob},
            commit=self.version.commit,
            dirty=self._dirty(path),
        )
        moves = ["file-rename"] if path != anchor.path else []
        if blob == anchor.fingerprint.get("file"):
            return Verdict(
                "moved" if moves else "fresh",
                anchor,
                location,
                f"now {path}" if moves else "",
                changes=moves,
            )
        verdict = Verdict(
            "changed", anchor, location, f"{path} was edited", changes=[*moves, "file"]
        )
        if base:
            verdict.commits = self.history.log(base, [path, anchor.path])
        return verdict


def map_range(
    hunks: list[tuple[int, int, int, int]], start: int, end: int
) -> tuple[int, int, bool]:
    """Map lines start..end through `-U0` diff hunks: (new start, new end, touched inside).

    A line outside every hunk moves by the size changes of the hunks before it; a range end that
    falls inside a changed hunk goes to that hunk's replacement. A range whose lines were all
    deleted comes back with end < start.
    """
    touched = False
    new_start: int | None = None
    new_end: int | None = None
    shift_start = shift_end = 0
    for old_start, old_count, new_at, new_count in hunks:
        delta = new_count - old_count
        if old_count == 0:  # lines inserted after old line `old_start`
            if old_start < start:
                shift_start += delta
            if old_start < end:
                shift_end += delta
            if start <= old_start < end:
                touched = True
            continue
        last = old_start + old_count - 1
        if old_start <= end and last >= start:
            touched = True
        if last < start:
            shift_start += delta
        if last < end:
            shift_end += delta
        if old_start <= start <= last:
            new_start = new_at if new_count else new_at + 1
        if old_start <= end <= last:
            new_end = new_at + new_count - 1 if new_count else new_at
    return (
        new_start if new_start is not None else start + shift_start,
        new_end if new_end is not None else end + shift_end,
        touched,
    )


def _describe(verdict: Verdict, anchor: Anchor, now: Symbol, path: str) -> str:
    parts = []
    if "move" in verdict.changes or "file-rename" in verdict.changes:
        parts.append(f"now in {path}")
    if "rename" in verdict.changes:
        parts.append(f"renamed to {now.name}")
    if "signature" in verdict.changes:
        parts.append("signature changed")
    if "body" in verdict.changes:
        parts.append("body changed")
    if "cosmetic" in verdict.changes:
        parts.append("cosmetic change (literals or local names)")
    if verdict.lines_added or verdict.lines_removed:
        parts.append(f"+{verdict.lines_added}/-{verdict.lines_removed} lines")
    if verdict.commits:
        c = verdict.commits[0]
        parts.append(
            f"last by {c.author} in {c.sha[:10]} ({c.subject[:60]})" if c.sha else c.subject
        )
    return "; ".join(parts)


def resolve_anchor(root: Path | str, anchor: Anchor, rev: str | None = None) -> Verdict:
    """Resolve one anchor against the working tree (`rev` None) or a commit.

    Raises UsageError for a `rev` that names no commit. For many anchors use `Resolver`.
    """
    with Resolver(root, rev) as resolver:
        return resolver.resolve(anchor)


def resolve_anchors(
    root: Path | str, anchors: list[Anchor], rev: str | None = None, staged: bool = False
) -> list[Verdict]:
    """Resolve many anchors against one version, sharing the git work."""
    with Resolver(root, rev, staged) as resolver:
        return resolver.resolve_all(anchors)
