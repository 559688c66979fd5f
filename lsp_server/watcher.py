"""Live memory: notice when another process (the CLI, an agent, `tether sync`) writes learnings.

watchdog watches the op-log partitions (`.git/tether/ops/*.jsonl`) and the working-tree stores
(`.tether/`). Bursts of events (an append is a write, an fsync, sometimes a rename) are coalesced:
`on_change` runs once, `delay` seconds after the last event, on the watchdog thread's timer.
The projection's own files (`index.sqlite`, its journal) are ignored, or refreshing it would trigger
another refresh.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

OPS_SUFFIX = ".jsonl"


class MemoryWatcher:
    """Calls `on_change(root)` after the op-log or `.tether/` of the repository at `root` changes."""

    def __init__(
        self, root: Path, tether_dir: Path, on_change: Callable[[Path], None], delay: float = 0.15
    ) -> None:
        self.root = root
        self.ops_dir = tether_dir / "ops"
        self.stores_dir = root / ".tether"
        self.on_change = on_change
        self.delay = delay
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._observer: Any = None

    def relevant(self, path: str) -> bool:
        """Whether a changed path is memory: an op-log partition or a file under `.tether/`."""
        p = Path(path)
        if p.parent == self.ops_dir:
            return p.name.endswith(OPS_SUFFIX)
        return p == self.stores_dir or self.stores_dir in p.parents

    def start(self) -> bool:
        """Start watching; False (and a log line) when watchdog cannot watch here."""
        try:
            from watchdog.events import FileSystemEvent, FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:  # pragma: no cover - watchdog is a dependency
            log.warning("watchdog is not installed: learnings written elsewhere need a restart")
            return False

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type in ("opened", "closed_no_write"):
                    return
                paths = [event.src_path, getattr(event, "dest_path", "")]
                if any(p and watcher.relevant(str(p)) for p in paths):
                    watcher.poke()

        try:
            self.ops_dir.mkdir(parents=True, exist_ok=True)
            observer = Observer()
            observer.daemon = True
            observer.schedule(Handler(), str(self.ops_dir), recursive=False)
            # `.tether/` may not exist yet: watch the root (not recursively) to see it appear,
            # and the directory itself when it is there.
            observer.schedule(Handler(), str(self.root), recursive=False)
            if self.stores_dir.is_dir():
                observer.schedule(Handler(), str(self.stores_dir), recursive=True)
            observer.start()
        except Exception as exc:  # inotify limits, permissions: keep serving without live updates
            log.warning("cannot watch %s for memory changes: %s", self.root, exc)
            return False
        self._observer = observer
        return True

    def poke(self) -> None:
        """Note a change; `on_change` runs once the burst it belongs to has settled."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            self._timer = None
        try:
            self.on_change(self.root)
        except Exception:
            log.exception("refreshing memory after a change failed")

    def stop(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        if self._observer is not None:
            self._observer.stop()
            self._observer = None
