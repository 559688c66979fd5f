"""Credential exfiltration: instructions that read credentials and send them somewhere.

Rejected: a network command (curl, wget, nc, scp, an HTTP client call) given a credential variable
in its URL, body or input; the whole environment dumped into a network command; a command that
prints a credential file (`cat .env`, `cat ~/.netrc`, `cat ~/.aws/credentials`, a private key); a
credential file uploaded (`curl -d @.env`, `nc host < ~/.aws/credentials`).
Passing: talking about a variable ("read AWS_SECRET_ACCESS_KEY from the env, never log it"), a
credential variable in an `Authorization:` header or `-u` option (using a key with the API it
belongs to), and example files (`cat .env.example`).
"""

from __future__ import annotations

import re

from anchors.rules import needles
from anchors.rules.folding import FoldedText
from anchors.rules.hit import Hit
from anchors.rules.lazy_regex import lazy

CATEGORY = "exfiltration"

# Network commands and calls. The pattern starts with the word itself (the engine then scans by
# first character); that the word starts a token is checked after a match (`_command_starts`).
_NETWORK = lazy(
    r"(?:curl|wget|nc|ncat|netcat|socat|telnet|scp|rsync|sftp|ftp|tftp|"
    r"invoke-webrequest|invoke-restmethod|iwr|irm|sendmail|mail|openssl\s+s_client|"
    r"http(?:ie)?\s+(?:post|put|get)|aws\s+s3\s+cp|gsutil\s+cp)(?=\s)"
    r"|requests\.(?:post|put|get|request)\s*\(|urlopen\s*\(|"
    r"fetch\s*\(|axios\.(?:post|put|get)\s*\(|http\.request\s*\(|\.sendall?\s*\(|/dev/tcp/"
)
# One of which every match of `_NETWORK` holds (ncat holds "nc", sftp and tftp "ftp", sendmail
# "mail", httpie and http.request "http"): a text without any skips the network checks.
_NETWORK_NEEDLES = frozenset((
    "curl", "wget", "nc", "netcat", "socat", "telnet", "scp", "rsync", "ftp", "invoke-", "iwr",
    "irm", "mail", "openssl", "http", "aws", "gsutil", "requests.", "urlopen", "fetch", "axios.",
    ".send", "/dev/tcp/",
))  # fmt: skip
needles.register(_NETWORK_NEEDLES)
_SECRET_VAR = lazy(
    r"\$\{?[a-z0-9_]*(?:key|token|secret|pass|passwd|password|pwd|cred|credentials|auth|session|"
    r"cookie|private)[a-z0-9_]*\}?"
    r"|\$\(\s*(?:cat|head|tail|base64|gpg|security\s+find)[^)]*\)"
    r"|os\.environ\[[^\]]*(?:key|token|secret|pass|cred|auth)[^\]]*\]"
    r"|os\.getenv\([^)]*(?:key|token|secret|pass|cred|auth)[^)]*\)"
    r"|process\.env\.[a-z0-9_]*(?:key|token|secret|pass|cred|auth)[a-z0-9_]*"
)
_AUTH_CONTEXT = lazy(
    r"(?:authorization|x-[\w-]*(?:key|token|auth)[\w-]*|api[_-]?key|bearer|basic|token)\s*[:=]?\s*"
    r"(?:bearer\s+|basic\s+|token\s+)?[\"']?$"
    r"|(?:\s-u|--user|--oauth2-bearer|--password|--header|\s-h)\s*[=\s]?\s*[\"']?[^\s\"']*$"
)
_ENV_DUMP = lazy(
    r"(?:^|[\s;|&(`$])(?:env|printenv|export\s+-p|declare\s+-x|set|get-childitem\s+env:|gci\s+env:|"
    r"dir\s+env:)\s*(?:\||\)|`|>)"
    r"|\$\(\s*(?:env|printenv|set)\s*\)|`\s*(?:env|printenv)\s*`"
    r"|(?:dict\(\s*os\.environ\s*\)|os\.environ\.copy\(\)|json\.dumps\(\s*(?:dict\()?\s*os\.environ"
    r"|os\.environ\s*[,)}]|json\.stringify\(\s*process\.env\s*\)|process\.env\s*[,)}])"
)
_CREDENTIAL_FILE = (
    r"(?:(?:~|\$home|\$\{home\}|/root|/home/[\w.-]+|%userprofile%)?[\\/])?"
    r"(?:\.env(?:\.(?!example|sample|template|dist|defaults?\b)[\w-]+)?(?![\w.-])"
    r"|\.netrc|_netrc|\.git-credentials|\.pgpass|\.pypirc|\.npmrc|\.dockercfg|\.docker/config\.json"
    r"|\.aws(?:/credentials|/config)?|\.azure/[\w./-]*|\.config/gcloud[\w./-]*|\.kube/config"
    r"|\.ssh/(?:id_(?:rsa|dsa|ecdsa|ed25519)(?!\.pub)|[\w.-]*_key(?!\.pub)\b)|\.gnupg[\w./-]*"
    r"|/etc/shadow|\.bash_history|\.zsh_history|\.config/gh/hosts\.yml"
    r"|id_(?:rsa|dsa|ecdsa|ed25519)(?![\w.])|credentials\.json|service[-_]account[\w-]*\.json)"
)
_READ_FILE = lazy(
    r"(?:cat|less|more|head|tail|type|get-content|gc|base64|xxd|od|strings|bat|"
    r"nl|tac|sed\s+-n\s+\S+|awk\s+\S+|grep\s+(?:-\w+\s+)*\S+|cp|scp|tar\s+\S+)\s+(?:-\S+\s+)*"
    r"[\"']?" + _CREDENTIAL_FILE + r"|open\(\s*[\"'][^\"']*" + _CREDENTIAL_FILE + r"[\"']"
)
_UPLOAD_FILE = lazy(
    r"(?:@|<\s*|--upload-file\s+|-t\s+|--data-binary\s+@?)[\"']?" + _CREDENTIAL_FILE
)


# Literals one of which every credential file name above contains (the text is folded to lower
# case): looked up among the needles the text holds before the file pattern runs.
_CREDENTIAL_FILE_HINTS = frozenset((
    ".env", "netrc", "credential", "pgpass", "pypirc", "npmrc", "dockercfg", ".docker", ".aws",
    ".azure", "gcloud", ".kube", ".ssh", "id_r", "id_d", "id_e", "gnupg", "shadow", "_history",
    "hosts.yml", "account",
))  # fmt: skip
needles.register(_CREDENTIAL_FILE_HINTS)


def _command_starts(text: str, pattern: re.Pattern[str]) -> list[re.Match[str]]:
    """Matches of `pattern` that start a token (not inside a word, a path or a name)."""
    found = []
    for match in pattern.finditer(text):
        before = text[match.start() - 1] if match.start() else " "
        if not (before.isalnum() or before in "_.-/"):
            found.append(match)
    return found


def _statement(text: str, index: int) -> tuple[int, str]:
    """The logical line around `index` (backslash continuations joined) and its offset."""
    start = index
    while True:
        start = text.rfind("\n", 0, start) + 1
        if start < 2 or text[start - 2] != "\\":
            break
        start -= 1
    end = index
    while True:
        end = text.find("\n", end)
        if end < 0:
            end = len(text)
            break
        if end == 0 or text[end - 1] != "\\":
            break
        end += 1
    return start, text[start:end]


def scan(view: FoldedText) -> list[Hit]:
    """Hits for credential exfiltration in the folded text (spans in the original)."""
    text = view.text
    hits: list[Hit] = []

    def add(rule: str, start: int, end: int, message: str) -> None:
        o_start, o_end = view.to_original(start, end)
        hits.append(Hit(rule, CATEGORY, o_start, o_end, message))

    present = needles.in_folded(view)
    hinted = not present.isdisjoint(_CREDENTIAL_FILE_HINTS)
    reads = _command_starts(text, _READ_FILE()) if hinted else []
    for match in reads:
        add(
            "exfiltration.read-credential-file",
            match.start(),
            match.end(),
            "prints or copies a credential file",
        )
    if present.isdisjoint(_NETWORK_NEEDLES):
        return hits
    seen: set[int] = set()
    for network in _command_starts(text, _NETWORK()):
        offset, line = _statement(text, network.start())
        if offset in seen:
            continue
        seen.add(offset)
        for var in _SECRET_VAR().finditer(line):
            if _AUTH_CONTEXT().search(line[max(0, var.start() - 60) : var.start()]):
                continue  # a key used with the API it belongs to, in a header or -u
            add(
                "exfiltration.secret-to-network",
                offset + var.start(),
                offset + var.end(),
                "sends a credential variable to a network command",
            )
        for dump in _ENV_DUMP().finditer(line):
            add(
                "exfiltration.env-dump",
                offset + dump.start(),
                offset + dump.end(),
                "sends the whole environment to a network command",
            )
        for upload in _UPLOAD_FILE().finditer(line):
            add(
                "exfiltration.upload-credential-file",
                offset + upload.start(),
                offset + upload.end(),
                "uploads a credential file",
            )
    return hits
