"""Sharing memory through git: the partitions live on `refs/tether/log`, written with plumbing only.

`publish` commits the local partitions to the ref (never touching branches, the index or the work
tree). `sync` fetches the remote's ref, takes every partition that extends what we have, reports any
partition whose two histories diverge (and leaves both sides alone), commits the union with both
parents, and pushes; a push that loses a race fetches and tries again.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchors import git
from anchors.audit import record_rejection
from anchors.errors import SyncError, UsageError
from anchors.memory import Memory
from anchors.operations import OpError, parse_line, texts_of
from anchors.oplog import PART_SUFFIX, valid_part_name
from anchors.projection import QUARANTINE_FILE
from anchors.redact import forgotten_in, is_redacted, record_of, same_op_or_redaction
from anchors.scanner import scan_text

REF = "refs/tether/log"
# Written by `tether gc` ({"commit": the ref it rewrote}) until a sync has pushed that ref.
GC_STATE = "gc.json"
OPS_TREE = "ops"
MAX_ATTEMPTS = 5


def remote_tracking_ref(remote: str) -> str:
    return f"refs/tether/remotes/{remote}/log"


@dataclass
class SyncReport:
    remote: str
    fetched: bool = False
    imported_ops: int = 0
    imported_parts: list[str] = field(default_factory=list)
    forks: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # problems with remote content, one line each
    quarantined: list[str] = field(default_factory=list)
    redactions_adopted: int = 0  # ops whose words a teammate's `tether gc` removed
    history_rewritten: bool = False  # the push replaced the remote's history (after a gc)
    pushed: bool = False
    attempts: int = 0
    commit: str = ""

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def _rev(root: Path, ref: str) -> str:
    proc = git.run(["rev-parse", "--verify", "-q", f"{ref}^{{commit}}"], root, check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else ""


def read_ref_partitions(root: Path, commit: str) -> dict[str, str]:
    """{partition name: blob sha} of a tether commit (names that fail validation are dropped)."""
    if not commit:
        return {}
    listing = git.out(["ls-tree", "-z", f"{commit}:{OPS_TREE}"], root, check=False)
    out: dict[str, str] = {}
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, _, name = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob" and name.endswith(PART_SUFFIX):
            out[name[: -len(PART_SUFFIX)]] = parts[2]
    return out


def _blobs(root: Path, shas: list[str]) -> dict[str, bytes]:
    """Read many blobs through one `git cat-file --batch`."""
    if not shas:
        return {}
    proc = git.run(["cat-file", "--batch"], root, input=("\n".join(shas) + "\n").encode())
    data = proc.stdout
    out: dict[str, bytes] = {}
    pos = 0
    for sha in shas:
        header_end = data.index(b"\n", pos)
        header = data[pos:header_end].split()
        if len(header) < 3:
            pos = header_end + 1
            continue
        size = int(header[2])
        out[sha] = data[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1
    return out


def _write_tree(root: Path, parts: dict[str, str]) -> str:
    """A root tree holding `ops/<part>.jsonl` for each (name, blob sha)."""
    lines = "".join(
        f"100644 blob {sha}\t{name}{PART_SUFFIX}\0" for name, sha in sorted(parts.items())
    )
    ops_tree = git.out(["mktree", "-z"], root, input=lines.encode())
    return git.out(["mktree", "-z"], root, input=f"040000 tree {ops_tree}\t{OPS_TREE}\0".encode())


BLOB_CACHE = "blobs.json"


def _hash_local(memory: Memory) -> dict[str, str]:
    """{partition: blob sha} of the local partitions, writing the blobs into git's object store.

    Blob ids are cached by (size, mtime): only partitions that changed since the last sync are read,
    so a sync costs what is new, not the whole log.
    """
    parts = memory.oplog.parts()
    if not parts:
        return {}
    cache_path = memory.tether_dir / BLOB_CACHE
    try:
        cache = json.loads(cache_path.read_text())
    except (FileNotFoundError, ValueError):
        cache = {}
    out: dict[str, str] = {}
    todo: list[tuple[str, list[int]]] = []
    for part in parts:
        st = memory.oplog.path_of(part).stat()
        stamp = [st.st_size, st.st_mtime_ns]
        entry = cache.get(part)
        if isinstance(entry, list) and len(entry) == 3 and entry[:2] == stamp:
            out[part] = entry[2]
        else:
            todo.append((part, stamp))
    if todo:
        paths = "".join(f"{memory.oplog.path_of(p)}\n" for p, _ in todo)
        shas = git.out(["hash-object", "-w", "--stdin-paths"], memory.root, input=paths.encode())
        for (part, stamp), sha in zip(todo, shas.split(), strict=True):
            out[part] = sha
            cache[part] = [*stamp, sha]
        tmp = cache_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(cache))
        tmp.replace(cache_path)
    return out


def publish(
    memory: Memory,
    remote_commit: str = "",
    overrides: dict[str, str] | None = None,
    *,
    keep_local: bool = True,
    keep_remote: bool = True,
) -> str:
    """Commit the local partitions onto `refs/tether/log`; return the ref's commit.

    With `remote_commit`, the result also descends from it; when the union equals the remote's
    tree the ref simply moves to the remote commit, so rounds with nothing new make no commits.
    `keep_local` / `keep_remote` false leave that side's history out of the new commit's parents:
    after a gc, history that still holds redacted words must not stay reachable.
    """
    root = memory.root
    with memory.oplog.lock():
        parts = {**_hash_local(memory), **(overrides or {})}
        current = _rev(root, REF)
        if not parts:
            return current or remote_commit
        try:
            tree = _write_tree(root, parts)
        except git.GitError:
            # A cached blob id whose object git has since pruned: hash everything again.
            (memory.tether_dir / BLOB_CACHE).unlink(missing_ok=True)
            parts = {**_hash_local(memory), **(overrides or {})}
            tree = _write_tree(root, parts)
        if remote_commit and _tree_of(root, remote_commit) == tree:
            if current != remote_commit:
                git.run(["update-ref", REF, remote_commit], root)
            return remote_commit
        if current and keep_local and _tree_of(root, current) == tree and not remote_commit:
            return current
        current_parent = current if keep_local else ""
        remote_parent = remote_commit if keep_remote else ""
        parents = [p for p in (current_parent, remote_parent) if p]
        if current_parent and remote_parent and _is_ancestor(root, current_parent, remote_parent):
            parents = [remote_parent]
        args = ["commit-tree", tree, "-m", f"tether: {len(parts)} partitions"]
        for parent in dict.fromkeys(parents):
            args += ["-p", parent]
        commit = git.out(args, root, env=_commit_env(memory))
        git.run(["update-ref", REF, commit, current], root)
        return commit


def rewrite_ref(memory: Memory) -> str:
    """Point `refs/tether/log` at one new commit without parents holding the local partitions
    (`tether gc`), and forget the copies of remotes' refs, which still hold the old history."""
    root = memory.root
    with memory.oplog.lock():
        parts = _hash_local(memory)
        if not parts:
            return ""
        tree = _write_tree(root, parts)
        message = f"tether gc: {len(parts)} partitions"
        commit = git.out(["commit-tree", tree, "-m", message], root, env=_commit_env(memory))
        git.run(["update-ref", REF, commit], root)
    tracking = git.out(["for-each-ref", "--format=%(refname)", "refs/tether/remotes/"], root)
    for ref in tracking.split():
        git.run(["update-ref", "-d", ref], root)
    return commit


def _tree_of(root: Path, commit: str) -> str:
    return git.out(["rev-parse", f"{commit}^{{tree}}"], root)


def _is_ancestor(root: Path, older: str, newer: str) -> bool:
    return git.run(["merge-base", "--is-ancestor", older, newer], root, check=False).returncode == 0


def _commit_env(memory: Memory) -> dict[str, str]:
    return {
        "GIT_AUTHOR_NAME": memory.author_name or memory.author,
        "GIT_AUTHOR_EMAIL": memory.author,
        "GIT_COMMITTER_NAME": memory.author_name or memory.author,
        "GIT_COMMITTER_EMAIL": memory.author,
    }


def _fetch(memory: Memory, remote: str) -> str:
    """Fetch the remote's ref into its tracking ref; "" when the remote has none yet."""
    root = memory.root
    remotes = git.out(["remote"], root).split()
    if remote not in remotes and not _looks_like_url(remote):
        raise UsageError(f"no remote named {remote!r} (remotes: {', '.join(remotes) or 'none'})")
    tracking = remote_tracking_ref(_safe_remote(remote))
    proc = git.run(["fetch", "-q", "--no-tags", remote, f"+{REF}:{tracking}"], root, check=False)
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        if "couldn't find remote ref" in err:
            return ""
        first = next((line for line in err.splitlines() if line.strip()), "fetch failed")
        raise SyncError(f"cannot fetch from {remote}: {first.strip()}")
    return _rev(root, tracking)


def _looks_like_url(remote: str) -> bool:
    return "/" in remote or ":" in remote


def _safe_remote(remote: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in remote)[:100]


@dataclass
class _Imported:
    overrides: dict[str, str]  # forked partitions keep the remote's version on the ref
    remote_has_redacted_words: bool = False  # the remote still holds what our gc removed


def _import(memory: Memory, remote_commit: str, report: SyncReport) -> _Imported:
    """Take remote partitions that extend local ones, and redactions a teammate's gc made to ops
    we hold. Forked partitions are reported and left alone on both sides."""
    root = memory.root
    remote_parts = read_ref_partitions(root, remote_commit)
    local_parts = set(memory.oplog.parts())
    overrides: dict[str, str] = {}
    wanted = {}
    for name, sha in remote_parts.items():
        if not valid_part_name(name):
            report.skipped.append(f"partition name {name!r} refused")
            continue
        wanted[name] = sha
    local_shas = _hash_local(memory) if local_parts else {}
    fetch = [sha for name, sha in wanted.items() if local_shas.get(name) != sha]
    blobs = _blobs(root, sorted(set(fetch)))
    quarantine: list[dict[str, Any]] = []
    result = _Imported(overrides)
    forgotten = _forgotten(memory, blobs.values())
    for name, sha in sorted(wanted.items()):
        if local_shas.get(name) == sha:
            continue
        remote_bytes = blobs.get(sha, b"")
        # Only complete lines count: a torn tail on the remote is not ours to take.
        cut = remote_bytes.rfind(b"\n") + 1
        remote_bytes = remote_bytes[:cut]
        path = memory.oplog.path_of(name)
        local_bytes = path.read_bytes() if path.exists() else b""
        local_bytes = local_bytes[: local_bytes.rfind(b"\n") + 1]
        if remote_bytes.startswith(local_bytes):
            new = remote_bytes[len(local_bytes) :]
        elif local_bytes.startswith(remote_bytes):
            continue  # we are ahead; the push carries it
        else:
            merged = _reconcile(local_bytes, remote_bytes, forgotten)
            if merged is None:
                report.forks.append(
                    f"partition {name}: local and remote histories diverge; left alone on both sides"
                )
                overrides[name] = sha
                continue
            common, new, adopted, remote_words = merged
            result.remote_has_redacted_words |= remote_words
            if adopted:
                memory.oplog.replace(name, common)
                report.redactions_adopted += adopted
            local_bytes = common
        if not new:
            continue
        count = _check_new(memory.tether_dir, name, local_bytes, new, report, quarantine, forgotten)
        memory.oplog.append_raw(name, new)
        report.imported_ops += count
        report.imported_parts.append(name)
    if quarantine:
        qpath = memory.tether_dir / QUARANTINE_FILE
        with open(qpath, "ab") as fh:
            for entry in quarantine:
                fh.write((json.dumps(entry, sort_keys=True) + "\n").encode())
        report.quarantined.extend(f"{e['op'][:12]} ({e['reason']})" for e in quarantine)
    return result


def _forgotten(memory: Memory, blobs: Any) -> set[str]:
    """Learnings forgotten here or by an intact forget op in what was fetched: the only ones whose
    ops may arrive redacted."""
    from anchors.gc import forgotten_ids

    out = forgotten_ids(memory)
    for data in blobs:
        if b'"type":"forget"' in data:
            out |= forgotten_in(data.split(b"\n"))
    return out


def _reconcile(
    local: bytes, remote: bytes, forgotten: set[str]
) -> tuple[bytes, bytes, int, bool] | None:
    """Two copies of a partition that differ only where one side's gc redacted ops: (the common
    lines with every redaction applied, the remote's lines beyond ours, how many redactions we
    took, whether the remote still holds words we removed); None when they are not one history."""
    ours, theirs = local.split(b"\n")[:-1], remote.split(b"\n")[:-1]
    n = min(len(ours), len(theirs))
    merged: list[bytes] = []
    adopted = 0
    remote_words = False
    for a, b in zip(ours[:n], theirs[:n], strict=True):
        try:
            order = same_op_or_redaction(a, b)
        except OpError:
            return None
        if order == -1:  # theirs is the redaction of ours
            if record_of(parse_line(b, verify=False)) not in forgotten:
                return None
            adopted += 1
            merged.append(b)
        else:
            remote_words |= order == 1
            merged.append(a)
    merged.extend(ours[n:])
    tail = theirs[n:]
    common = b"".join(line + b"\n" for line in merged)
    return common, b"".join(line + b"\n" for line in tail), adopted, remote_words


def _check_new(
    tether_dir: Path,
    part: str,
    local: bytes,
    new: bytes,
    report: SyncReport,
    quarantine: list[dict[str, Any]],
    forgotten: set[str],
) -> int:
    """Verify and scan ops arriving from a teammate; failures are quarantined, never applied.
    A redacted op (a teammate's `tether gc`) passes only when its learning was forgotten."""
    last = local.rstrip(b"\n").rsplit(b"\n", 1)[-1] if local else b""
    prev = last[7:71].decode("ascii", "replace") if last else ""
    count = 0
    offset = len(local)
    for number, raw in enumerate(new.splitlines(keepends=True), start=local.count(b"\n") + 1):
        line, where = raw.rstrip(b"\n"), offset
        offset += len(raw)
        count += 1
        claimed = line[7:71].decode("ascii", "replace") if line.startswith(b'{"id":"') else ""
        try:
            op = parse_line(line, verify=True)
        except OpError as exc:
            redacted = _redaction_or_none(line, claimed, forgotten)
            if redacted is None:
                report.skipped.append(f"{part} line {number}: {exc}")
                if claimed:
                    quarantine.append(
                        {"op": claimed, "part": part, "offset": where, "reason": "bad-hash"}
                    )
                continue
            op = redacted
        if op.part != part:
            report.skipped.append(f"{part} line {number}: foreign op from {op.part}")
            quarantine.append({"op": op.id, "part": part, "offset": where, "reason": "foreign"})
            continue
        if op.prev != prev:
            report.skipped.append(f"{part} line {number}: breaks the chain")
        prev = op.id
        for field_name, text in texts_of(op):
            findings = scan_text(text)
            if findings:
                record_rejection(tether_dir, findings, text, f"sync:{part}")
                rule = findings[0].rule
                reason = f"scanner:{rule}:{field_name}"
                quarantine.append({"op": op.id, "part": part, "offset": where, "reason": reason})
                break
    return count


def _redaction_or_none(line: bytes, claimed: str, forgotten: set[str]) -> Any:
    try:
        op = parse_line(line, verify=False)
    except OpError:
        return None
    if op.id == claimed and is_redacted(op) and record_of(op) in forgotten:
        return op
    return None


def sync(memory: Memory, remote: str | None = None) -> SyncReport:
    """Fetch, union, push; retry when another push wins the race."""
    root = memory.root
    remote = remote or _default_remote(root)
    report = SyncReport(remote=remote)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report.attempts = attempt
        remote_commit = _fetch(memory, remote)
        report.fetched = True
        imported = _Imported({})
        adopted_before = report.redactions_adopted
        if remote_commit:
            with memory.oplog.lock():
                imported = _import(memory, remote_commit, report)
        # After a gc (ours, or one whose redactions we just took), history that still holds the
        # removed words must not stay reachable from the new commit.
        gc_pending = (memory.tether_dir / GC_STATE).exists()
        keep_local = report.redactions_adopted == adopted_before
        if gc_pending or not keep_local:
            # Ops about a forgotten learning that arrived or were written since: redacted too.
            from anchors.gc import forgotten_ids, redact_log

            memory.refresh()
            with memory.oplog.lock():
                redact_log(memory, forgotten_ids(memory))
        keep_remote = not imported.remote_has_redacted_words
        commit = publish(
            memory,
            remote_commit,
            imported.overrides,
            keep_local=keep_local,
            keep_remote=keep_remote,
        )
        report.commit = commit
        if not commit:
            memory.refresh()
            return report  # nothing anywhere yet
        if commit == remote_commit:
            memory.refresh()
            return report
        push = ["push", "-q", remote, f"{commit}:{REF}"]
        rewrite = bool(remote_commit) and not _is_ancestor(root, remote_commit, commit)
        if rewrite:
            # Only a gc replaces history; the lease makes a teammate's push in between lose
            # nothing: the push fails, and the next round takes their ops first.
            push.insert(2, f"--force-with-lease={REF}:{remote_commit}")
        proc = git.run(push, root, check=False)
        if proc.returncode == 0:
            report.pushed = True
            report.history_rewritten = rewrite
            git.run(["update-ref", remote_tracking_ref(_safe_remote(remote)), commit], root)
            if gc_pending:
                (memory.tether_dir / GC_STATE).unlink(missing_ok=True)
            memory.refresh()
            return report
        err = proc.stderr.decode("utf-8", "replace")
        if any(word in err for word in ("non-fast-forward", "fetch first", "stale info")):
            time.sleep(0.05 * attempt)
            continue
        first = next((line.strip() for line in err.splitlines() if line.strip()), "push failed")
        raise SyncError(f"push to {remote} refused: {first}")
    raise SyncError(f"gave up after {MAX_ATTEMPTS} attempts: the remote ref kept moving")


def _default_remote(root: Path) -> str:
    remotes = git.out(["remote"], root).split()
    if not remotes:
        raise UsageError("this repository has no remote; add one or pass --remote")
    return "origin" if "origin" in remotes else remotes[0]
