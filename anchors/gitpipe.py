"""git processes read through pipes, started with `os.posix_spawn`.

For commands on a start-up path: spawning does not fork the interpreter and needs no import
beyond `os` (`subprocess` pulls in threading, signal and selectors), so a process can be started
before the rest of the program is even imported, and git works while Python starts.
"""

from __future__ import annotations

import os


def git_env(cwd: str | os.PathLike[str] | None = None, **extra: str) -> dict[str, str]:
    """The environment git runs in: no prompts, C locale (messages and sorting), Tether's
    commit-graph for the repository holding `cwd` when it has one (`anchors.commit_graph`),
    plus `extra`."""
    env = dict(os.environ)
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    env["LC_ALL"] = "C"
    if cwd is not None:
        from anchors.commit_graph import object_dir

        graph = object_dir(os.fspath(cwd))
        if graph is not None:
            env["GIT_OBJECT_DIRECTORY"] = graph
    env.update(extra)
    return env


class GitProcess:
    """`git ARGS` run in `cwd`: stdout through a pipe, stdin through another when asked for,
    stderr discarded. Use `stdout`/`stdin` (binary files), then `close()`."""

    def __init__(
        self,
        args: list[str],
        cwd: str | os.PathLike[str],
        stdin: bool = False,
        env: dict[str, str] | None = None,
        pipe_size: int = 0,
    ) -> None:
        out_r, out_w = os.pipe()  # not inherited: only the dup2'ed ends reach git
        actions: list[tuple[object, ...]] = [(os.POSIX_SPAWN_DUP2, out_w, 1)]
        in_r = in_w = -1
        if stdin:
            in_r, in_w = os.pipe()
            actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
        else:
            actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
        actions.append((os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0))
        if pipe_size:
            _widen(out_r, pipe_size)
        try:
            self.pid: int | None = os.posix_spawnp(
                "git",
                ["git", "-C", os.fspath(cwd), *args],
                env if env is not None else git_env(cwd),
                file_actions=actions,  # type: ignore[arg-type]
            )
        finally:
            os.close(out_w)
            if in_r >= 0:
                os.close(in_r)
        self.stdout = open(out_r, "rb")  # noqa: SIM115 - closed by close()
        self.stdin = open(in_w, "wb") if in_w >= 0 else None  # noqa: SIM115
        self.returncode: int | None = None

    def fileno(self) -> int:
        """The stdout pipe's descriptor (for os.read and poll)."""
        return self.stdout.fileno()

    def communicate(self) -> tuple[bytes, int]:
        """All of stdout and the exit status (after closing stdin)."""
        if self.stdin is not None:
            self.stdin.close()
        data = self.stdout.read()
        return data, self.close()

    def close(self, kill: bool = False) -> int:
        """Close the pipes and reap git (killed first when `kill`: its answer is not needed)."""
        if self.pid is not None:
            # (try/except rather than contextlib.suppress: its import is ~0.5 ms of every
            # `tether history`)
            if kill:
                try:  # noqa: SIM105 - see above
                    os.kill(self.pid, 9)  # SIGKILL: git holds no lock while reading
                except ProcessLookupError:
                    pass
            if self.stdin is not None and not self.stdin.closed:
                try:  # noqa: SIM105 - see above
                    self.stdin.close()
                except BrokenPipeError:
                    pass
            self.stdout.close()
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
            self.pid = None
        return self.returncode if self.returncode is not None else -1


def run_git(args: list[str], cwd: str | os.PathLike[str]) -> tuple[bytes, int]:
    """(stdout, exit status) of one git command."""
    return GitProcess(args, cwd).communicate()


def _widen(fd: int, size: int) -> None:
    """Let the writer get up to `size` bytes ahead of the reader (a pipe holds 64 KB by
    default); Linux only, ignored elsewhere or above the system's limit."""
    try:
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)  # type: ignore[attr-defined]
    except (ImportError, AttributeError, OSError):
        pass
