"""Live-looking secrets: known formats from detect-secrets, plus the generic shapes around them.

Known formats (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, PyPI, JWT, private keys, ...) come from
detect-secrets' regex plugins, read at import and run over the whole text once each. Around them,
in the manner of gitleaks' generic rules: a credential-named key assigned a live-looking value
(`JIRA_TOKEN=dt9q...`, `"client_secret": "..."`), a literal `Authorization:` header, `curl -u
user:password`, credentials in a URL, and bare high-entropy tokens. Placeholders (`$API_KEY`,
`<token>`, `xxxx`, `changeme`, `AKIA...EXAMPLE`) and public keys pass: they are not secrets.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from anchors.rules.folding import FoldedText
from anchors.rules.hit import Hit

CATEGORY = "secret"

# detect-secrets plugins that are not about secrets in a note: a public IP address is not one.
# The private-key plugin fires on a bare "BEGIN ... PRIVATE KEY" header, which notes about keys
# quote; `_PRIVATE_KEY` below asks for the key material too. The Cloudant, IBM and SoftLayer
# plugins look for `<vendor>_password = value`, which `secret.assigned-credential` covers for any
# vendor; their look-behind patterns also cost more than all the other plugins together.
_SKIPPED_PLUGINS = frozenset(
    {
        "IPPublicDetector",
        "PrivateKeyDetector",
        "CloudantDetector",
        "IbmCloudIamDetector",
        "IbmCosHmacDetector",
        "SoftlayerDetector",
    }
)
# Literal words without which a plugin's patterns cannot match (checked with `in` first).
_PLUGIN_NEEDLES = {
    "ArtifactoryDetector": re.compile(r"AKC|AP[\dA-F]"),
    "MailchimpDetector": re.compile(r"-us\d"),
}
_PRIVATE_KEY = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,30} PRIVATE KEY(?: BLOCK)?-----\s*(?:[\w-]+:[^\n]*\n\s*)*"
    r"[A-Za-z0-9+/=]{40,}"
    r"|PuTTY-User-Key-File-\d+:[^\n]*\n(?:[^\n]*\n){0,4}?Private-Lines:\s*\d+\s*\n[A-Za-z0-9+/=]{40,}"
)
_PLACEHOLDER_WORDS = frozenset(
    [
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "test",
        "testing",
        "example",
        "sample",
        "dummy",
        "fake",
        "mock",
        "changeme",
        "change_me",
        "placeholder",
        "redacted",
        "hidden",
        "removed",
        "none",
        "null",
        "nil",
        "true",
        "false",
        "undefined",
        "user",
        "username",
        "admin",
        "root",
        "foo",
        "bar",
        "baz",
        "qux",
        "value",
        "key",
        "apikey",
        "api_key",
        "string",
        "your_token",
        "your_key",
        "my_token",
        "my_password",
        "mypassword",
        "secretpassword",
        "supersecret",
        "letmein",
    ]
)
_PLACEHOLDER_MARKS = re.compile(
    r"^[$%]|\$\{|\$\(|\{\{|<[^>]*>|\[[A-Z_ ]+\]|\.\.\.|\*{3,}|x{4,}|X{4,}|#{4,}|"
    r"example|sample|placeholder|dummy|redacted|changeme|your[_-]|[_-]here\b|"
    r"1234567|abcdefg|0{6,}|(?:token|key|string|secret|password|value)here\b|^\{.*\}$|^<",
    re.IGNORECASE,
)
_CODE_REFERENCE = re.compile(
    r"[()\[\]]|^(?:os\.|env\.|process\.env|getenv|secrets\.|vars\.|config\.|settings\.|self\.)",
    re.IGNORECASE,
)


def entropy(value: str) -> float:
    """Shannon entropy of `value` in bits per character."""
    if not value:
        return 0.0
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def is_placeholder(value: str) -> bool:
    """A value that stands for a secret without being one (`$TOKEN`, `<key>`, `xxxx`, `changeme`)."""
    stripped = value.strip("\"'`[](){}<>")
    if not stripped:
        return True
    if stripped.lower() in _PLACEHOLDER_WORDS:
        return True
    if _PLACEHOLDER_MARKS.search(value):
        return True
    # One character repeated, or two alternating: "aaaaaaaa", "abababab"; a short unit repeated
    # ("123123123"); a run of the alphabet or of digits ("klmnop", "34567").
    if len(set(stripped)) <= 2:
        return True
    repeated = _REPEATED_UNIT.search(stripped)
    if repeated and len(repeated.group()) * 2 >= len(stripped):
        return True
    return _has_ascending_run(stripped.lower(), 5)


_REPEATED_UNIT = re.compile(r"(.{2,4})\1{3,}")


def _has_ascending_run(value: str, length: int) -> bool:
    run = 1
    for previous, current in zip(value, value[1:], strict=False):
        run = run + 1 if ord(current) == ord(previous) + 1 and current.isalnum() else 1
        if run >= length:
            return True
    return False


_DOTTED_NAME = re.compile(r"[a-z0-9_\-]{1,19}(?:\.[a-z0-9_\-]{1,19})+")
# Keys that name an identifier, a file or a reference, not the secret itself.
_KEY_IS_A_NAME = re.compile(
    r"(?:id|ids|name|names|file|path|url|uri|type|version|ref|arn|field|len|length)$", re.IGNORECASE
)


def _looks_live(value: str, minimum: int = 8) -> bool:
    """A value that could be a real credential: long enough, varied enough, not code or a path."""
    if len(value) < minimum or is_placeholder(value) or _CODE_REFERENCE.search(value):
        return False
    if value.startswith(("/", "./", "../", "~/", "http://", "https://")):
        return False
    if _DOTTED_NAME.fullmatch(value):
        return False  # var.db_password, host.example.com, settings.API_KEY
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    if value.isdigit():
        return len(value) >= 12 and entropy(value) >= 2.8
    if value.isalpha() and value.islower() and len(value) < 24:
        return False  # a word or a run of words, not a key
    return classes >= 2 and entropy(value) >= 3.0


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


_KnownFormat = tuple[
    str, str, re.Pattern[str], Callable[[str], bool] | None, re.Pattern[str] | None
]


@lru_cache(maxsize=1)
def _known_formats() -> list[_KnownFormat]:
    """(rule, description, pattern, validator) for each regex of detect-secrets' format plugins."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.jwt import JwtTokenDetector

    formats: list[_KnownFormat] = []
    plugins: dict[str, Any] = dict(get_mapping_from_secret_type_to_class())
    for secret_type, plugin in plugins.items():
        if not issubclass(plugin, RegexBasedDetector) or plugin.__name__ in _SKIPPED_PLUGINS:
            continue
        validator = JwtTokenDetector.is_formally_valid if plugin is JwtTokenDetector else None
        needles = _PLUGIN_NEEDLES.get(plugin.__name__)
        for pattern in plugin.denylist:
            formats.append(
                (f"secret.{_slug(secret_type)}", secret_type, pattern, validator, needles)
            )
    return formats


_KEY_WORDS = (
    r"api[_.\-]?key|apikey|access[_.\-]?key|secret(?!s)|token|passwd|password|passphrase|pwd|"
    r"private[_.\-]?key|auth[_.\-]?key|credentials?|bearer"
)
_KEY_WORD = re.compile(_KEY_WORDS)  # searched in the lower-cased text (IGNORECASE is slow)
# Matched from the end of a credential word: the rest of the key, a separator, then the value.
_ASSIGNED_VALUE = re.compile(
    r"(?P<rest>[\w.\-]*)[\"'\]]?"
    r"(?P<sep>\s*(?::=|=>|->|=|:)\s*|\s+is\s+|\s*\(\s*|\s+value\s*=\s*|\s+)"
    r"(?:[\"'`]|(?:[\w.]+\()?)?(?P<value>[^\s\"'`,;)]{8,})",
    re.IGNORECASE,
)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_AUTH_HEADER_PATTERN = (
    r"(?:authorization|x-[\w\-]*(?:api[_\-]?key|token|auth)[\w\-]*|api[_\-]?key)\s*:\s*"
    r"(?:(?:bearer|basic|token|api-token|apikey|sso-key|digest|otp)\s+)?(?P<value>[^\s\"'\\]{6,})"
)
_AUTH_HEADER = re.compile(_AUTH_HEADER_PATTERN)  # on lower-cased text: IGNORECASE is slow
_AUTH_HEADER_CASED = re.compile(_AUTH_HEADER_PATTERN, re.IGNORECASE)
_INLINE_USER = re.compile(
    r"(?:\s-u|--user)\s*[=\s]\s*[\"']?(?P<user>[^\s:\"'$]+):(?P<value>[^\s\"']*)", re.IGNORECASE
)
# Candidate tokens stop at "/" and ".", so a URL or a path is judged segment by segment.
# user:password@ in a URL (detect-secrets' basic-auth pattern leaves out passwords with !, $, ...).
_URL_CREDENTIALS = re.compile(r"://[^/\s:@\"'<>]{1,64}:(?P<value>[^/\s@\"'<>]{1,128})@[\w.\-\[]")
_TOKEN = re.compile(r"(?<![\w+~\-])[A-Za-z0-9~][A-Za-z0-9_\-+~]{19,}={0,3}(?![\w+~\-])")
_FILE_SUFFIX = re.compile(r"\.[A-Za-z][A-Za-z0-9]{1,4}\b")
# Lower-case only: the keys with vendor prefixes print their hex in lower case, while upper-case
# hex after a word is usually an id in a URL (API-BD80F56C...).
_LONG_HEX = re.compile(r"[0-9a-f]{24,}")
_REDACTED = re.compile(r"[-_]?[#*xX.]{3,}")
_PREFIXED_HEX = re.compile(r"0x[0-9a-fA-F]+")  # addresses and hashes written as numbers
_SEGMENT_SPLIT = re.compile(r"[-_~+]+")
_WORDLIKE = re.compile(r"[a-z]+|[A-Z][a-z]*|[A-Z]+|\d+|[A-Za-z0-9]{1,4}|[0-9a-f]{6,}|[0-9A-F]{6,}")
# One case only: digests are printed in one case, keys that happen to be hex flip it at random.
_HEX_OR_UUID = re.compile(r"[0-9a-f\-~:_]+|[0-9A-F\-~:_]+")
_INTEGRITY_PREFIX = re.compile(r"(?:sha1|sha256|sha384|sha512|h1|md5)[-:=]$", re.IGNORECASE)
# A Kubernetes Secret manifest: its `data:` values are base64 credentials.
_KUBE_SECRET = re.compile(r"^\s*kind:\s*[\"']?secret\b", re.IGNORECASE | re.MULTILINE)
_KUBE_DATA_VALUE = re.compile(
    r"^[ \t]+[\w.\-]+:[ \t]*[\"']?(?P<value>[A-Za-z0-9+/]{12,}={0,2})[\"']?[ \t]*$", re.MULTILINE
)
_PUBLIC_MATERIAL = re.compile(
    r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[0-9A-Za-z+/]+=*"
    r"|\bage1[02-9ac-hj-np-z]{58}\b"
    r"|-----BEGIN (?:PUBLIC KEY|CERTIFICATE|PGP PUBLIC KEY BLOCK|SSH2 PUBLIC KEY)-----.*?-----END[^-]*-----",
    re.DOTALL,
)


@lru_cache(maxsize=1)
def _any_known_format() -> re.Pattern[str]:
    """All format patterns in one alternation: one search tells whether any can match at all."""
    plain = [p.pattern for _, _, p, _, _ in _known_formats() if p.flags == re.UNICODE]
    return re.compile("|".join(f"(?:{pattern})" for pattern in plain))


def _known_format_hits(text: str, public: list[tuple[int, int]]) -> Iterator[Hit]:
    # Patterns compiled with flags of their own (IGNORECASE, VERBOSE) are not in the alternation
    # and always run.
    # Worth it for a note (one search instead of ~30); a long document runs each pattern anyway.
    plain_may_match = len(text) > 4000 or _any_known_format().search(text) is not None
    for rule, description, pattern, validator, needles in _known_formats():
        if pattern.flags == re.UNICODE and not plain_may_match:
            continue
        if needles is not None and not needles.search(text):
            continue
        for match in pattern.finditer(text):
            whole = match.group()
            value = match.group(match.lastindex) if match.lastindex else whole
            if not value or is_placeholder(whole) or is_placeholder(value):
                continue
            if entropy(whole) < 2.6 or (validator and not validator(value)):
                continue
            if _inside(match.start(), public) or _REDACTED.match(text, match.end()):
                continue  # a key shown up to where it was redacted: xoxp-1234-####
            yield Hit(rule, CATEGORY, match.start(), match.end(), f"{description} in the text")


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in spans)


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(s < end and start < e for s, e in spans)


def _is_random_token(token: str) -> bool:
    """A bare token that reads as generated key material rather than a name, hash or path."""
    if _HEX_OR_UUID.fullmatch(token) or _PREFIXED_HEX.fullmatch(token):
        return False  # commit ids, digests and UUIDs are everyday engineering text
    segments = [s for s in _SEGMENT_SPLIT.split(token) if s]
    if (
        len(segments) > 1
        and segments[0].isalpha()
        and _LONG_HEX.fullmatch(max(segments, key=len))
        and sum(len(s) >= 13 for s in segments) == 1
    ):
        return True  # a vendor prefix glued to one long key: shppa_9f37..., PMAK-b667...
    if all(_WORDLIKE.fullmatch(s) for s in segments):
        return False  # words, numbers and digests joined: api_org_96726c78_4ae3, 2018-250-xoxo
    longest = max(segments, key=len)
    letters = sum(c.isalpha() for c in token)
    if letters < len(token) * 0.15:
        return False
    digit_runs = len(re.findall(r"\d+", token))
    case_switches = len(re.findall(r"(?=[a-z][A-Z]|[A-Z][a-z])", longest))
    # Names keep digits together (curve25519, base64, v2) and change case at word starts
    # (TestGenericApiKey); generated keys scatter digits and flip case all along.
    if digit_runs < 3:
        # Without scattered digits only case can tell: a key flips it all along, while an
        # identifier keeps whole words in lower case (NewObjectWithALongName).
        longest_lower = max((len(r) for r in re.findall(r"[a-z]+", longest)), default=0)
        if case_switches < len(longest) * 0.4 or longest_lower > 4:
            return False
    threshold = 3.5 if len(token) < 32 else 3.8
    return entropy(token) >= threshold


def _token_hits(
    text: str, public: list[tuple[int, int]], claimed: list[tuple[int, int]]
) -> Iterator[Hit]:
    for match in _TOKEN.finditer(text):
        token = match.group()
        if not _is_random_token(token) or is_placeholder(token):
            continue
        if _overlaps(match.start(), match.end(), public + claimed):
            continue
        if _INTEGRITY_PREFIX.search(text, max(0, match.start() - 8), match.start()):
            continue
        if _FILE_SUFFIX.match(text, match.end()):
            continue  # a generated file name: api-c99e353f.gif, avatar-f0eb1acf.png
        yield Hit(
            "secret.high-entropy-token",
            CATEGORY,
            match.start(),
            match.end(),
            "a random-looking token that reads like a live key",
        )


def scan(view: FoldedText) -> list[Hit]:
    """Hits for secrets in the original text (secrets are matched as written, not folded)."""
    text = view.original
    public = (
        [(m.start(), m.end()) for m in _PUBLIC_MATERIAL.finditer(text)]
        if "AAAA" in text or "age1" in text or "-----BEGIN" in text
        else []
    )
    hits = list(_known_format_hits(text, public))
    if _KUBE_SECRET.search(text):
        for match in _KUBE_DATA_VALUE.finditer(text):
            value = match.group("value")
            if not is_placeholder(value) and not value.isalpha():
                hits.append(
                    Hit(
                        "secret.kubernetes-secret-data",
                        CATEGORY,
                        match.start("value"),
                        match.end("value"),
                        "a value in the data of a Kubernetes Secret",
                    )
                )
    for match in _PRIVATE_KEY.finditer(text):
        hits.append(
            Hit("secret.private-key", CATEGORY, match.start(), match.end(), "a private key")
        )

    lowered = text.lower()
    # Lower-casing keeps offsets unless a character changes length ("İ"): then match ignoring case.
    words = (
        _KEY_WORD.finditer(lowered)
        if len(lowered) == len(text)
        else re.finditer(_KEY_WORDS, text, re.IGNORECASE)
    )
    for word in words:
        assigned = _ASSIGNED_VALUE.match(text, word.end())
        if assigned is None:
            continue
        match = assigned
        value = match.group("value")
        if not _looks_live(value) or _inside(match.start("value"), public):
            continue
        key_start = word.start()
        while key_start > 0 and text[key_start - 1] in _KEY_CHARS:
            key_start -= 1
        key = text[key_start : match.end("rest")]
        if not match.group("sep").strip() and not key.startswith("-"):
            continue  # "token abc..." is prose; "--token abc..." is a command-line option
        if _KEY_IS_A_NAME.search(key):
            continue
        hits.append(
            Hit(
                "secret.assigned-credential",
                CATEGORY,
                match.start("value"),
                match.end("value"),
                f"{key!r} is given a live-looking value",
            )
        )
    # Header names match in the lower-cased text; values are read from the original.
    header_text = lowered if len(lowered) == len(text) else text
    for found in _AUTH_HEADER.finditer(header_text):
        match = _AUTH_HEADER_CASED.match(text, found.start()) or found
        value = match.group("value")
        if _looks_live(value, minimum=6):
            if _CODE_REFERENCE.search(value):
                continue
            hits.append(
                Hit(
                    "secret.auth-header",
                    CATEGORY,
                    match.start("value"),
                    match.end("value"),
                    "a literal credential in an authorization header",
                )
            )
    for match in _INLINE_USER.finditer(text):
        value = match.group("value") or match.group("user")  # "-u KEY:" passes a key as the user
        if not is_placeholder(value) and (
            len(value) >= 6 if match.group("value") else _looks_live(value)
        ):
            hits.append(
                Hit(
                    "secret.inline-password",
                    CATEGORY,
                    match.start("value"),
                    match.end("value"),
                    "a literal password given on a command line (user:password)",
                )
            )
    if "://" in text:
        for match in _URL_CREDENTIALS.finditer(text):
            value = match.group("value")
            if len(value) >= 6 and not is_placeholder(value) and not value.startswith("$"):
                hits.append(
                    Hit(
                        "secret.url-credentials",
                        CATEGORY,
                        match.start("value"),
                        match.end("value"),
                        "a password inside a URL",
                    )
                )
    claimed = [(h.start, h.end) for h in hits]
    hits.extend(_token_hits(text, public, claimed))
    return hits
