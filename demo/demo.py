"""`make demo`: a throwaway team (a bare remote and two clones) sharing memory through git.

Every step runs the real `tether` command in a real repository; its output is shown as a person at a
terminal would see it (each command gets a pseudo-terminal, so tables render).
"""

from __future__ import annotations

import os
import pty
import shlex
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

BIN = Path(sys.executable).parent
TETHER = str(BIN / "tether")
ENV = {**os.environ, "COLUMNS": "110", "GIT_CONFIG_NOSYSTEM": "1", "PATH": f"{BIN}:{os.environ['PATH']}"}


def heading(text: str) -> None:
    print(f"\n\033[1;36m== {text}\033[0m")


def sh(cwd: Path, *args: str, quiet: bool = False) -> str:
    proc = subprocess.run(args, cwd=cwd, env=ENV, capture_output=True, text=True)
    if proc.returncode != 0 and not quiet:
        raise SystemExit(f"demo step failed: {' '.join(args)}\n{proc.stderr}")
    return proc.stdout


def tether(cwd: Path, *args: str, expect: int = 0) -> str:
    """Run tether on a pseudo-terminal, print what a person would see, return the text."""
    who = cwd.name
    print(f"\033[2m{who}$\033[0m tether {' '.join(shlex.quote(a) for a in args)}")
    chunks: list[bytes] = []

    def read(fd: int) -> bytes:
        data = os.read(fd, 65536)
        chunks.append(data)
        return data

    old = os.getcwd()
    os.chdir(cwd)
    try:
        os.environ.update(ENV)
        status = pty.spawn([TETHER, *args], read)
    finally:
        os.chdir(old)
    code = os.waitstatus_to_exitcode(status)
    if code != expect:
        raise SystemExit(f"demo step failed (exit {code}, expected {expect}): tether {' '.join(args)}")
    return b"".join(chunks).decode("utf-8", "replace")


def main() -> int:
    base = Path(tempfile.mkdtemp(prefix="tether-demo-"))
    remote = base / "remote.git"
    sh(base, "git", "init", "-q", "--bare", "--initial-branch=main", str(remote))
    alice, bob = base / "alice", base / "bob"

    heading("A repository with a bare remote; Alice writes the first code")
    sh(base, "git", "clone", "-q", str(remote), str(alice), quiet=True)
    for path, email, name in [(alice, "alice@example.com", "Alice")]:
        sh(path, "git", "config", "user.email", email)
        sh(path, "git", "config", "user.name", name)
    (alice / "payments.py").write_text(PAYMENTS)
    sh(alice, "git", "add", "payments.py")
    sh(alice, "git", "commit", "-q", "-m", "Payment client with retries")
    sh(alice, "git", "push", "-q", "origin", "HEAD:main")
    print(f"remote: {remote}\nclones: {alice}, {bob}")

    heading("Alice records what she learned, anchored to the code it is about")
    tether(alice, "init")
    tether(alice, "add", "Retries in PaymentClient.charge must stay idempotent: the gateway "
           "double-charges on timeout unless the idempotency key is reused.",
           "--category", "pattern", "--anchor", "payments.py::PaymentClient.charge",
           "--tag", "payments")  # fmt: skip
    tether(alice, "add", "Read GATEWAY_API_KEY from the environment; never log it.",
           "--category", "security", "--anchor", "payments.py")  # fmt: skip
    tether(alice, "add", "Billing owns the payments module; page #billing-oncall.",
           "--category", "architecture")  # fmt: skip
    tether(alice, "list")

    heading("Every write is scanned: a hidden bidi override is rejected (exit 3)")
    tether(alice, "add", "Harmless note \u202e with a hidden override", expect=3)

    heading("Alice shares her memory: it goes to refs/tether/log on the remote, no server")
    tether(alice, "sync")
    print(sh(alice, "git", "ls-remote", str(remote)).strip())

    heading("Bob clones the repository and syncs: he sees the team's memory")
    sh(base, "git", "clone", "-q", str(remote), str(bob))
    sh(bob, "git", "config", "user.email", "bob@example.com")
    sh(bob, "git", "config", "user.name", "Bob")
    tether(bob, "sync")
    tether(bob, "list")

    heading("Bob adds his own learning; both sync; both see everything")
    tether(bob, "add", "The sandbox gateway rejects amounts over 10,000 cents; tests must "
           "stay below that.", "--category", "error")  # fmt: skip
    tether(bob, "sync")
    tether(alice, "sync")
    tether(alice, "list")

    heading("Bob changes the body of charge(): the learning anchored to it is now stale")
    text = (bob / "payments.py").read_text().replace("attempts < 3", "attempts < 5")
    (bob / "payments.py").write_text(text)
    sh(bob, "git", "commit", "-q", "-am", "Retry five times")
    tether(bob, "stale")
    charge_id = _stale_ids(bob)[0]

    heading("Bob re-reads charge(): the learning still holds, so he confirms it")
    tether(bob, "confirm", charge_id)
    tether(bob, "stale")
    tether(bob, "sync")

    heading("Symbol-aware history: the commits that changed charge(), newest first")
    tether(bob, "history", "payments.py::PaymentClient.charge")

    heading("An agent asks a question and loads its context pack (also served over MCP)")
    tether(bob, "recall", "why must charging be safe to retry?", "--k", "3")
    tether(bob, "context", "--session", "demo-session", "--files", "payments.py")

    heading("Alice syncs: the learning's history shows who wrote, flagged and confirmed it")
    tether(alice, "sync")
    tether(alice, "show", charge_id, "--history")
    tether(alice, "log", "--verify")
    print(f"\nThe demo's repositories are in {base}")
    return 0


def _stale_ids(cwd: Path) -> list[str]:
    """Ids of the learnings `tether stale` finds stale (asked as a script would, with --json)."""
    import json

    out = subprocess.run([TETHER, "stale", "--json"], cwd=cwd, env=ENV, capture_output=True, text=True)
    doc = json.loads(out.stdout)
    return [
        item["id"]
        for item in doc["learnings"]
        if any(a["verdict"] == "stale" for a in item["anchors"])
    ]


PAYMENTS = textwrap.dedent(
    '''
    """The payment gateway client."""

    import os


    class PaymentClient:
        def __init__(self, session):
            self.session = session
            self.key = os.environ["GATEWAY_API_KEY"]

        def charge(self, amount, idempotency_key):
            """Charge once, even when the gateway times out."""
            attempts = 0
            while attempts < 3:
                attempts += 1
                response = self.session.post("/charge", amount=amount, key=idempotency_key)
                if response.ok:
                    return response
            raise TimeoutError("gateway did not answer")
    '''
).lstrip()


if __name__ == "__main__":
    raise SystemExit(main())
