"""SSH backdoors: instructions that grant someone a way in or run code on every connection.

Rejected: writing to `authorized_keys` (or telling the reader to add a literal public key to it),
writing a private key file (`> ~/.ssh/id_rsa`), a `ProxyCommand`/`LocalCommand` that runs a
program, writing to `~/.ssh/config` or `sshd_config`, and enabling root or empty-password logins.
Passing: talking about these files ("authorized_keys is managed by ansible"), `ssh-keygen`,
reading a public key, and `ProxyJump`.
"""

from __future__ import annotations

from anchors.rules import needles
from anchors.rules.folding import FoldedText
from anchors.rules.hit import Hit
from anchors.rules.lazy_regex import lazy
from anchors.rules.phrases import PhraseRule, rule, run

CATEGORY = "ssh-backdoor"

# A write into a file: redirection, tee, cp/mv/install, dd, sed -i, cat >.
_WRITE = lazy(
    r"(?:>>?|\btee\b|\bcp\b|\bmv\b|\binstall\b|\bdd\b[^\n]*?of=|\bsed\s+-i|\bcat\s*>|\bscp\b|"
    r"\bwrite_text\(|\bopen\([^)]*[\"'][wa]\+?[\"'])"
)
# The files a write must not reach, each with its rule. Matched first (they are rare), then the
# statement before each one is checked for a write: far cheaper than the other way round.
_TARGETS = (
    (
        "authorized_keys",
        lazy(r"authorized_keys2?\b"),
        "ssh-backdoor.authorized-keys",
        "writes to authorized_keys (grants someone login)",
    ),
    (
        "id_",
        lazy(r"\bid_(?:rsa|dsa|ecdsa|ed25519)(?![\w.])"),
        "ssh-backdoor.private-key-write",
        "writes a private key file",
    ),
    (
        "config",
        lazy(r"\.ssh/config\b|\bsshd?_config\b"),
        "ssh-backdoor.config-write",
        "writes to an ssh client or server configuration",
    ),
)
_STATEMENT_START = lazy(r"[\n;&|]")
needles.register(needle for needle, _, _, _ in _TARGETS)

_RULES: list[PhraseRule] = [
    rule(
        "ssh-backdoor.proxy-command",
        CATEGORY,
        r"\b(?:proxycommand|localcommand)\s*[= ]\s*[\"']?"
        r"(?:/|~|\$\(|`|nc\b|ncat\b|netcat\b|socat\b|bash\b|sh\b|zsh\b|curl\b|wget\b|python\d?\b|perl\b|"
        r"ruby\b|php\b|node\b|openssl\b|ssh\b|exec\b|sudo\b|env\b|connect\b|corkscrew\b|cloudflared\b|"
        r"aws\b|gcloud\b|powershell\b|cmd\b)"
        r"|\bpermitlocalcommand\s*[= ]\s*yes\b",
        "an ssh option that runs a program on every connection",
        needles=(("proxycommand", "localcommand"),),
    ),
    rule(
        "ssh-backdoor.sshd-setting",
        CATEGORY,
        r"\bpermit(?:rootlogin|emptypasswords)\s*[= ]\s*yes\b|\bauthorizedkeyscommand\s*[= ]\s*/",
        "an sshd setting that opens the host to logins",
        needles=(("permitrootlogin", "permitemptypasswords", "authorizedkeyscommand"),),
    ),
]


def _writes(view: FoldedText) -> list[Hit]:
    hits: list[Hit] = []
    text = view.text
    present = needles.in_folded(view)
    for needle, target, rule_id, message in _TARGETS:
        if needle not in present:
            continue
        for match in target().finditer(text):
            floor = max(0, match.start() - 120)
            cut = floor
            for boundary in _STATEMENT_START().finditer(text, floor, match.start()):
                cut = boundary.end()
            # The write operator sits between the statement's start and the file name.
            write = _WRITE().search(text, cut, match.start())
            if write is None:
                continue
            start, end = view.to_original(write.start(), match.end())
            hits.append(Hit(rule_id, CATEGORY, start, end, message))
    return hits


_PUBLIC_KEY = lazy(r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+)\s+aaaa[0-9a-z+/]{20,}")
_ADD_KEY = lazy(
    r"\b(?:add|append|insert|put|paste|place|write|copy)\b[^\n]{0,80}?\bauthorized_keys\b"
)


def scan(view: FoldedText) -> list[Hit]:
    """Hits for ssh backdoors in the folded text (spans in the original)."""
    hits = list(run(_RULES, view)) + _writes(view)
    # Prose that hands over a literal public key to install is the same backdoor without a shell.
    if "authorized_keys" in needles.in_folded(view) and _PUBLIC_KEY().search(view.text):
        for match in _ADD_KEY().finditer(view.text):
            start, end = view.to_original(match.start(), match.end())
            hits.append(
                Hit(
                    "ssh-backdoor.authorized-keys",
                    CATEGORY,
                    start,
                    end,
                    "asks the reader to install a literal public key in authorized_keys",
                )
            )
    return hits
