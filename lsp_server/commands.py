"""The names of the commands the server answers (workspace/executeCommand).

Editors refer to these by name: editors/vscode/src/serverCommands.ts and editors/nvim keep the same
list, and a test checks that they agree.
"""

from __future__ import annotations

ADD = "tether.add"
CONFIRM = "tether.confirm"
INVALIDATE = "tether.invalidate"
SUPERSEDE = "tether.supersede"
REANCHOR = "tether.reanchor"
SHOW_LEARNINGS = "tether.showLearnings"
SHOW_HISTORY = "tether.showHistory"
STALE_CHECK = "tether.staleCheck"

ALL = (ADD, CONFIRM, INVALIDATE, SUPERSEDE, REANCHOR, SHOW_LEARNINGS, SHOW_HISTORY, STALE_CHECK)
