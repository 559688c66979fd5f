"""The reading half of a full replay, run in a second process so that both cores work.

A full replay costs about as much in Python (reading lines, decoding, merging the partitions into
replay order, validating, turning ops into planned statements) as in SQLite (running them). SQLite
releases the GIL only one row at a time, so a thread cannot feed it: the two threads would take turns.
Instead this module runs as `python -m anchors.replay_reader`: it reads the request on stdin, puts
every line of the log in replay order and cuts the batches, then decodes, validates and plans some
of the batches itself and passes the others on undecoded, each as a length-prefixed `marshal` frame
on stdout. The process that asked decodes and plans those others and runs every batch's statements.
Which batches go undecoded is decided as they come: the asking process acknowledges each frame as
it starts on it (a byte on the reader's stdin), and a batch goes undecoded when no frame is waiting
for it, so that it never sits idle while this one plans; otherwise this process plans it. The split
so follows whichever side is slower on this machine, at this moment, instead of a fixed share.

The order is read from each line's bytes without decoding it: canonical lines start with the id,
author, clock and partition, in that order. Lines that do not are decoded to be placed, as in the
one-process replay. Every line is decoded before it is applied, and one whose decoded clock,
partition or id differs from what its bytes said, or that does not decode although its start looked
right, stops this replay (ReplayReaderError): the caller then replays in one process, so a strange
line can make a rebuild slower, never different. The batches are the ones the one-process replay
cuts, in the same order, so the projection is the same row for row.

`marshal` carries only what the two processes built themselves (tuples of strings, numbers, bytes).
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from anchors import projection
from anchors.operations import OpError, parse_line
from anchors.oplog import LineIssue, OpLog
from anchors.projection import (
    PreparedBatch,
    _parse,
    in_batches,
    in_replay_order,
    parse_in_order,
    prepare_batch,
    write_batch,
)
from anchors.replay_write import PlanWriter

_HEADER = 8  # bytes of the length before each frame
# Frames read but not yet run: the reader may run a few batches ahead, never the whole log.
_QUEUE_FRAMES = 1
# The reader plans a batch itself when at least this many frames wait for the writer (sent, not yet
# started); with fewer, it sends the batch undecoded, which it can do at once.
PLAN_WHEN_WAITING = 1
# For tests: of every ten batches, how many the reader plans, in a fixed pattern (None: as above).
READER_SHARE: int | None = None

# (clock, partition, op id, byte offset, line bytes): an entry placed but not yet decoded.
_RawEntry = tuple[int, str, str, int, bytes]


class ReplayReaderError(RuntimeError):
    """The reading process could not start or stopped before the end of the log."""


class ReplayDiverged(ReplayReaderError):
    """A line's bytes placed it differently from its decoded op: replay in one process instead."""


def replay_in_two_processes(
    writer: PlanWriter,
    oplog: OpLog,
    parts: list[str],
    sizes: dict[str, int],
    numbers: dict[str, int],
    quarantine: dict[tuple[str, int], Any],
    issues: list[LineIssue],
) -> int:
    """Replay the log through `writer` with a second process doing the reading; return the ops
    read (the writer may still hold updates back: the caller flushes it).

    Raises ReplayReaderError when that process fails; the writer's database then holds part of the
    log and must be thrown away.
    """
    request = orjson.dumps(
        {
            "dir": str(oplog.tether_dir),
            "parts": parts,
            "sizes": sizes,
            "numbers": numbers,
            "quarantine": sorted(quarantine),
            "share": READER_SHARE,
            "plan_when_waiting": PLAN_WHEN_WAITING,
            # Batches are cut where the one-process replay would cut them (a test may change it).
            "batch": projection.REPLAY_BATCH,
        }
    )
    # Its errors go to a file: a pipe nobody reads until the end could fill up and stall it.
    with tempfile.TemporaryFile() as errors:
        return _run_reader(writer, request, numbers, quarantine, issues, errors)


def _run_reader(
    writer: PlanWriter,
    request: bytes,
    numbers: dict[str, int],
    quarantine: dict[tuple[str, int], Any],
    issues: list[LineIssue],
    errors: IO[bytes],
) -> int:
    env = dict(os.environ)
    # The child imports this very package, wherever it was imported from here.
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "anchors.replay_reader"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
        )
    except OSError as exc:
        raise ReplayReaderError(f"cannot start the reading process: {exc}") from None
    assert proc.stdin is not None and proc.stdout is not None
    _widen_pipe(proc.stdout)
    frames: queue.Queue[bytes | None] = queue.Queue(_QUEUE_FRAMES)
    # A thread moves frames off the pipe while this one runs statements, so the reading process is
    # never held up waiting for SQLite. It holds the GIL only to copy bytes.
    pump = threading.Thread(target=_pump, args=(proc.stdout, frames), daemon=True)
    pump.start()
    end: tuple[int, list[LineIssue]] | None = None
    # Stdin stays open: after the request, it carries one byte per frame this process starts on.
    acks: IO[bytes] | None = proc.stdin
    try:
        proc.stdin.write(request + b"\n")
        proc.stdin.flush()
        while (frame := frames.get()) is not None:
            if acks is not None:
                try:
                    acks.write(b"+")
                    acks.flush()
                except OSError:
                    acks = None  # the reader is done (or gone: the end frame tells)
            message = marshal.loads(frame)
            kind = message[0]
            if kind == "prepared":
                write_batch(writer, PreparedBatch(message[1], message[2], message[3]))
            elif kind == "raw":
                write_batch(writer, prepare_batch(decode(message[1]), numbers, quarantine, issues))
            elif kind == "end":
                end = (message[1], [LineIssue(*i) for i in message[2]])
            else:
                raise ReplayDiverged(message[1])
        proc.wait()
    except BrokenPipeError:
        pass  # the child died before reading its request: reported below
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        # The pump may be waiting to hand over a frame nobody will take now: take them all.
        while pump.is_alive():
            with contextlib.suppress(queue.Empty):
                frames.get(timeout=0.05)
        pump.join()
        errors.seek(0)
        err = errors.read().decode("utf-8", "replace").strip()
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()
    if proc.returncode != 0 or end is None:
        last = err.splitlines()[-1] if err else f"exit status {proc.returncode}"
        raise ReplayReaderError(f"the reading process failed: {last}")
    count, child_issues = end
    issues.extend(child_issues)
    return count


def _widen_pipe(stream: IO[bytes]) -> None:
    """Ask for a 1 MiB pipe (Linux): fewer, larger reads of the frames."""
    with contextlib.suppress(AttributeError, OSError):
        import fcntl

        fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)  # type: ignore[attr-defined]


def _pump(stream: IO[bytes], frames: queue.Queue[bytes | None]) -> None:
    try:
        while True:
            header = stream.read(_HEADER)
            if len(header) < _HEADER:
                break
            size = int.from_bytes(header, "little")
            frame = stream.read(size)
            if len(frame) < size:
                break
            frames.put(frame)
    except (OSError, ValueError):
        pass  # the pipe closed under us: the caller sees a missing end and reports it
    finally:
        frames.put(None)


def _send(out: IO[bytes], message: tuple[Any, ...]) -> None:
    data = marshal.dumps(message)
    out.write(len(data).to_bytes(_HEADER, "little"))
    out.write(data)
    out.flush()


class Split:
    """Which batches the reader sends undecoded: those for which fewer than `plan_when_waiting`
    frames wait for the writer, as its acknowledgements on `acks` (a file descriptor) tell; or, with
    `share`, a fixed pattern of `share` planned batches in ten (spread out, for tests)."""

    def __init__(self, acks: int, plan_when_waiting: int, share: int | None) -> None:
        self.acks = acks
        self.plan_when_waiting = plan_when_waiting
        self.share = share
        self.sent = 0
        self.started = 0
        if share is None:
            os.set_blocking(acks, False)

    def raw(self, number: int) -> bool:
        """Whether batch `number` (counted from 0) goes undecoded; call once per frame sent."""
        self.sent += 1
        if self.share is not None:
            # Bresenham's spread: batch n is raw when the count of raw ones steps up at n.
            unplanned = 10 - self.share
            return (number + 1) * unplanned // 10 != number * unplanned // 10
        with contextlib.suppress(BlockingIOError):
            while data := os.read(self.acks, 4096):
                self.started += len(data)
        # This frame is not sent yet: those before it that the writer has not started wait.
        return self.sent - 1 - self.started < self.plan_when_waiting


def place(line: bytes, part: str, tail: bytes, off: int, issues: list[LineIssue]) -> Any:
    """The undecoded replay entry of a line, its place read from its bytes when they start as
    canonical lines do (`{"id":"<64>","author":"<no escapes>","clock":<digits>` then `tail`, the
    partition), else from its decoded op; None for a line the replay skips (noted in `issues`)."""
    if line.startswith(b'{"id":"') and line.startswith(b'","author":"', 71):
        quote = line.find(b'"', 83)
        if (
            quote > 0
            and line.find(b"\\", 83, quote) < 0
            and line.startswith(b',"clock":', quote + 1)
        ):
            comma = line.find(b",", quote + 10)
            digits = line[quote + 10 : comma]
            op_id = line[7:71]
            if (
                comma > 0
                and digits.isdigit()
                and (len(digits) == 1 or digits[0] != 48)  # no leading zero: JSON has none
                and line.startswith(tail, comma)
                and op_id.isascii()
            ):
                return int(digits), part, op_id.decode(), off, line
    op = _parse(line, part, issues)
    if op is None:
        return None
    return op.clock, part, op.id, off, line


def decode(entries: list[_RawEntry]) -> Iterator[Any]:
    """Decode placed entries into replay entries, one at a time; raises ReplayDiverged at a line
    that is not what its bytes said."""
    for clock, part, op_id, off, line in entries:
        try:
            op = parse_line(line, verify=False)
        except OpError:
            raise ReplayDiverged(f"{part}: a line that looked like an op does not decode") from None
        if op.clock != clock or op.part != part or op.id != op_id:
            raise ReplayDiverged(f"{part}: an op's clock, partition or id is not where expected")
        yield clock, part, op_id, off, op


def produce(request: dict[str, Any], out: IO[bytes], acks: int) -> None:
    """The reading side: place every line in replay order, cut the batches, decode and plan those
    `Split` gives it and pass the rest on undecoded, each as a frame on `out`; the writer's
    acknowledgements arrive on the file descriptor `acks`."""
    tether_dir = Path(request["dir"])
    # Only the reading methods are used: no partition of its own is ever written.
    oplog = OpLog(tether_dir, "replay@localhost", "reader")
    parts: list[str] = request["parts"]
    sizes: dict[str, int] = request["sizes"]
    numbers: dict[str, int] = request["numbers"]
    quarantine = {(str(p), int(o)) for p, o in request["quarantine"]}
    share = request["share"]
    split = Split(acks, int(request["plan_when_waiting"]), None if share is None else int(share))
    batch_size = int(request["batch"])
    issues: list[LineIssue] = []
    lines = oplog.lines

    def stream(part: str) -> Iterator[_RawEntry]:
        tail = b',"part":"' + part.encode() + b'",'
        last = 0
        for off, line in lines(part, 0, sizes[part]):
            entry = place(line, part, tail, off, issues)
            if entry is None:
                continue
            if entry[0] < last:
                # Skip it or not on its decoded clock, as the one-process replay does.
                op = parse_in_order(line, part, last, issues)
                if op is None:
                    continue
                entry = (op.clock, part, op.id, off, line)
            last = entry[0]
            yield entry

    count = 0
    gc.disable()  # as in the one-process replay: millions of acyclic objects, nothing to collect
    for number, batch in enumerate(
        in_batches(in_replay_order([stream(p) for p in parts]), batch_size)
    ):
        count += len(batch)
        if split.raw(number):
            _send(out, ("raw", batch))
            continue
        try:
            prepared = prepare_batch(decode(batch), numbers, quarantine, issues)
        except ReplayDiverged as exc:
            _send(out, ("diverged", str(exc)))
            break
        _send(out, ("prepared", prepared.plan, prepared.index_rows, prepared.skipped))
    else:
        _send(out, ("end", count, [(i.part, i.line, i.op_id, i.problem) for i in issues]))
    out.flush()


def _read_request(fd: int) -> bytes:
    """The request line on `fd`, read unbuffered: what follows it is the writer's acknowledgements."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    return data


def main() -> int:
    stdin = sys.stdin.fileno()
    request = orjson.loads(_read_request(stdin))
    produce(request, sys.stdout.buffer, stdin)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
