"""The op-log: one append-only JSONL partition per author and replica, under `.git/tether/ops/`.

Appends happen under an exclusive lock, in one write, followed by fsync, so two processes never
interleave and an op is acknowledged only once it is on disk. A writer killed mid-line leaves a torn
last line; the next writer moves those bytes aside (nothing is deleted) before it appends.
"""

from __future__ import annotations

import contextlib
import fcntl
import heapq
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from anchors.operations import Op, OpError, parse_line

OPS_DIR = "ops"
LOCK_FILE = "lock"
PART_SUFFIX = ".jsonl"
_PART_RE = re.compile(r"^[A-Za-z0-9._@+-]{1,200}$")
_TAIL_CHUNK = 8192
_READ_BLOCK = 1 << 16


def author_key(email: str) -> str:
    """A file-name-safe key for an author's email."""
    return re.sub(r"[^A-Za-z0-9._@+-]", "_", email.strip().lower())[:120] or "unknown"


def valid_part_name(name: str) -> bool:
    """Partition names arrive from remotes too: no separators, no dot-files, bounded length."""
    return bool(_PART_RE.match(name)) and not name.startswith(".")


def now_iso() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


@dataclass
class LineIssue:
    part: str
    line: int  # 1-based line number in the partition
    op_id: str
    problem: str


@dataclass
class VerifyReport:
    parts: int = 0
    ops: int = 0
    redacted: int = 0  # ops whose words `tether gc` removed (each backed by a forget)
    issues: list[LineIssue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.issues


class OpLog:
    """The set of partitions under one tether directory, and this writer's own partition."""

    def __init__(self, tether_dir: Path, author: str, replica: str) -> None:
        self.tether_dir = tether_dir
        self.ops_dir = tether_dir / OPS_DIR
        self.author = author
        self.part = f"{author_key(author)}.{replica}"
        self.ops_dir.mkdir(parents=True, exist_ok=True)

    # -- files ------------------------------------------------------------------------------

    def path_of(self, part: str) -> Path:
        return self.ops_dir / f"{part}{PART_SUFFIX}"

    def parts(self) -> list[str]:
        """Every partition present locally, sorted."""
        names = []
        for entry in os.scandir(self.ops_dir):
            if entry.name.endswith(PART_SUFFIX):
                name = entry.name[: -len(PART_SUFFIX)]
                if valid_part_name(name):
                    names.append(name)
        return sorted(names)

    def lock(self) -> contextlib.AbstractContextManager[None]:
        """The one exclusive lock all writers (appends, imports, gc) take."""
        return exclusive(self.tether_dir / LOCK_FILE)

    # -- reading ----------------------------------------------------------------------------

    def complete_size(self, part: str) -> int:
        """Bytes of the partition up to and including its last newline (a torn tail excluded)."""
        path = self.path_of(part)
        size = _size(path)
        if size == 0:
            return 0
        with open(path, "rb") as fh:
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return size
            pos = size
            while pos > 0:
                start = max(0, pos - _TAIL_CHUNK)
                fh.seek(start)
                chunk = fh.read(pos - start)
                idx = chunk.rfind(b"\n")
                if idx >= 0:
                    return start + idx + 1
                pos = start
        return 0

    def last_op(self, part: str) -> Op | None:
        """The last complete, parseable op of a partition (hash not checked)."""
        end = self.complete_size(part)
        if end == 0:
            return None
        with open(self.path_of(part), "rb") as fh:
            start = max(0, end - _TAIL_CHUNK)
            while True:
                fh.seek(start)
                chunk = fh.read(end - start)
                idx = chunk.rfind(b"\n", 0, len(chunk) - 1)
                if idx >= 0 or start == 0:
                    line = chunk[idx + 1 :]
                    break
                start = max(0, start - _TAIL_CHUNK)
        try:
            return parse_line(line, verify=False)
        except OpError:
            return None

    def read(
        self, part: str, start: int = 0, end: int | None = None
    ) -> Iterator[tuple[int, int, bytes]]:
        """Yield (offset, 1-based line number or 0 when unknown, line bytes) of complete lines."""
        stop = self.complete_size(part) if end is None else end
        if stop <= start:
            return
        with open(self.path_of(part), "rb") as fh:
            fh.seek(start)
            offset = start
            number = 1 if start == 0 else 0
            remaining = stop - start
            for line in fh:
                if remaining <= 0:
                    break
                if len(line) > remaining:
                    break
                yield offset, number, line
                offset += len(line)
                remaining -= len(line)
                if number:
                    number += 1

    def lines(
        self, part: str, start: int = 0, end: int | None = None
    ) -> Iterator[tuple[int, bytes]]:
        """Yield (offset, line bytes without its newline) of the complete lines in [start, end).

        The fast path for replay: the file is read in large blocks and split, so the cost per line is
        one slice, and memory stays bounded by the block size whatever the partition's length.
        """
        stop = self.complete_size(part) if end is None else end
        if stop <= start:
            return
        with open(self.path_of(part), "rb") as fh:
            fh.seek(start)
            offset = start
            remaining = stop - start
            carry = b""
            while remaining > 0:
                block = fh.read(min(_READ_BLOCK, remaining))
                if not block:
                    break
                remaining -= len(block)
                data = carry + block if carry else block
                cut = data.rfind(b"\n") + 1
                carry = data[cut:]
                if not cut:
                    continue
                for line in data[: cut - 1].split(b"\n"):
                    yield offset, line
                    offset += len(line) + 1

    def read_ops(
        self, part: str, start: int = 0, on_error: Callable[[LineIssue], None] | None = None
    ) -> Iterator[Op]:
        """Parse a partition's ops (unverified), skipping and reporting malformed or foreign lines."""
        for _, number, line in self.read(part, start):
            try:
                op = parse_line(line, verify=False)
            except OpError as exc:
                if on_error:
                    on_error(LineIssue(part, number, "", str(exc)))
                continue
            if op.part != part:
                if on_error:
                    on_error(LineIssue(part, number, op.id, f"foreign op from partition {op.part}"))
                continue
            yield op

    def merged(self, on_error: Callable[[LineIssue], None] | None = None) -> Iterator[Op]:
        """All ops of all partitions in replay order (clock, partition, id), streamed.

        Within a partition clocks only grow, so a k-way merge of the partitions gives the global
        order without holding the log in memory.
        """
        streams = [self.read_ops(p, on_error=on_error) for p in self.parts()]
        return heapq.merge(*streams, key=lambda op: op.key)

    def find(self, part: str, offset: int) -> Op:
        with open(self.path_of(part), "rb") as fh:
            fh.seek(offset)
            return parse_line(fh.readline(), verify=False)

    # -- writing ----------------------------------------------------------------------------

    def repair_torn(self, part: str) -> int:
        """Move a torn last line aside into `torn/`; return how many bytes were moved. Needs the lock."""
        path = self.path_of(part)
        size = _size(path)
        good = self.complete_size(part)
        if good == size:
            return 0
        with open(path, "rb") as fh:
            fh.seek(good)
            tail = fh.read()
        torn_dir = self.tether_dir / "torn"
        torn_dir.mkdir(exist_ok=True)
        (torn_dir / f"{part}.{int(time.time() * 1000)}.bin").write_bytes(tail)
        with open(path, "r+b") as fh:
            fh.truncate(good)
            fh.flush()
            os.fsync(fh.fileno())
        return len(tail)

    def repair_all_torn(self) -> list[str]:
        """Detect torn tails left by a killed writer and move them aside; returns the partitions."""
        torn = []
        for part in self.parts():
            path = self.path_of(part)
            if path.stat().st_size != self.complete_size(part):
                torn.append(part)
        if torn:
            with self.lock():
                for part in torn:
                    self.repair_torn(part)
        return torn

    def max_clock(self) -> int:
        best = 0
        for part in self.parts():
            last = self.last_op(part)
            if last is not None and last.clock > best:
                best = last.clock
        return best

    def append(self, build: Callable[[int, str, str], list[Op]]) -> list[Op]:
        """Append the ops that `build(next_clock, prev_id, time)` returns, atomically and durably.

        `build` runs under the lock, so clocks and the chain are computed against the current log;
        it may raise to abort without writing anything.
        """
        with self.lock():
            self.repair_torn(self.part)
            last = self.last_op(self.part)
            ops = build(self.max_clock() + 1, last.id if last else "", now_iso())
            if not ops:
                return []
            prev = last.id if last else ""
            for op in ops:
                op.prev = prev
                op.part = self.part
                op.seal()
                prev = op.id
            data = b"".join(op.to_line() for op in ops)
            path = self.path_of(self.part)
            created = not path.exists()
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                os.fsync(fd)
            finally:
                os.close(fd)
            if created:
                fsync_path(self.ops_dir)
            return ops

    def append_raw(self, part: str, data: bytes) -> None:
        """Append complete lines fetched from a remote to a partition (the caller holds the lock)."""
        path = self.path_of(part)
        self.repair_torn(part)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_path(self.ops_dir)

    def replace(self, part: str, data: bytes) -> None:
        """Replace a partition's bytes atomically and durably (`tether gc`'s redactions; the
        caller holds the lock)."""
        path = self.path_of(part)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        fsync_path(self.ops_dir)

    # -- verification -----------------------------------------------------------------------

    def verify(self) -> VerifyReport:
        """Check every partition's hashes and chain; name the first bad op of each partition."""
        from anchors.redact import is_redacted, record_of

        report = VerifyReport()
        forgotten: set[str] = set()
        redacted: list[tuple[str, int, Op]] = []
        for part in self.parts():
            report.parts += 1
            prev = ""
            last_clock = 0
            for _, number, line in self.read(part):
                report.ops += 1
                try:
                    op = parse_line(line, verify=True)
                except OpError as exc:
                    # A redacted op (`tether gc`) no longer matches its hash; it is checked below
                    # against the tombstone that allows it.
                    maybe = _redacted_op(line)
                    if maybe is None or not is_redacted(maybe):
                        report.issues.append(LineIssue(part, number, _claimed_id(line), str(exc)))
                        break
                    op = maybe
                    redacted.append((part, number, op))
                if op.type == "forget" and not is_redacted(op):
                    forgotten.add(op.target)
                problem = ""
                if op.part != part:
                    problem = f"foreign op from partition {op.part}"
                elif op.prev != prev:
                    problem = "breaks the chain: prev does not match the previous op"
                elif op.clock <= last_clock:
                    problem = "clock does not increase"
                if problem:
                    report.issues.append(LineIssue(part, number, op.id, problem))
                    break
                prev, last_clock = op.id, op.clock
            size = self.path_of(part).stat().st_size
            if size != self.complete_size(part):
                report.issues.append(
                    LineIssue(part, 0, "", "torn last line (repaired on next write)")
                )
        report.redacted = len(redacted)
        for part, number, op in redacted:
            if record_of(op) not in forgotten:
                problem = "redacted, but no forget of its learning is in the log"
                report.issues.append(LineIssue(part, number, op.id, problem))
        return report


def _size(path: Path) -> int:
    """The file's size, 0 when it does not exist (yet)."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _redacted_op(line: bytes) -> Op | None:
    try:
        op = parse_line(line, verify=False)
    except OpError:
        return None
    return op if op.id == _claimed_id(line) else None


def _claimed_id(line: bytes) -> str:
    if line.startswith(b'{"id":"'):
        return line[7:71].decode("ascii", "replace")
    return ""


@contextlib.contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """An exclusive lock on the file `path` for as long as the block runs (flock: a process that
    dies lets go of it)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def fsync_path(path: Path) -> None:
    """Wait until the file or directory at `path` is on disk (a directory: its entries)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
