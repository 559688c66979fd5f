"""Live-looking secrets: known formats from detect-secrets, plus the generic shapes around them.

Known formats (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, PyPI, JWT, ...) come from detect-secrets'
regex plugins, read from the installed package's source (`anchors.rules.known_formats`: importing
detect-secrets costs 100-200 ms) and compiled when a text first needs them. Around them, in the
manner of gitleaks' generic rules: a credential-named key assigned a live-looking value
(`JIRA_TOKEN=dt9q...`, `"client_secret": "..."`) or any quoted literal that is not a placeholder
(`password = "rootpasswd"`), a literal `Authorization:` header, `curl -u user:password`,
credentials in a URL, private keys, and bare random-looking tokens. Placeholders (`$API_KEY`,
`<token>`, `xxxx`, `changeme`, `AKIA...EXAMPLE`) and public keys pass: they are not secrets.

Each check is gated by a cheap test (a literal with `in`, one combined alternation), so a note
without the characters a check needs costs a few substring tests.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from functools import lru_cache

from anchors.rules import needles
from anchors.rules.folding import FoldedText
from anchors.rules.hit import Hit
from anchors.rules.lazy_regex import lazy

CATEGORY = "secret"

_PRIVATE_KEY = lazy(
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
_PLACEHOLDER_MARKS = lazy(
    r"^[$%]|\$\{|\$\(|\{\{|<[^>]*>|\[[A-Z_ ]+\]|\.\.\.|\*{3,}|x{4,}|X{4,}|#{4,}|"
    r"example|sample|placeholder|dummy|redacted|changeme|your[_-]|[_-]here\b|"
    r"1234567|abcdefg|0{6,}|(?:token|key|string|secret|password|value)here\b|^\{.*\}$|^<",
    re.IGNORECASE,
)
_CODE_REFERENCE = lazy(
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


# `_PLACEHOLDER_MARKS` as literals and three small patterns, for ASCII values: the one
# case-insensitive alternation costs ~5 us a value (no literal prefix to skip ahead by), and the
# secret rules ask about every candidate. Non-ASCII values take the alternation.
_MARKS_AS_WRITTEN = ("${", "$(", "{{", "...", "***", "####")
_MARKS_LOWERED = (
    "xxxx", "example", "sample", "placeholder", "dummy", "redacted", "changeme", "your_", "your-",
    "1234567", "abcdefg", "000000",
)  # fmt: skip
_MARK_BRACKETED = lazy(r"\[[a-z_ ]+\]")
_MARK_HERE = lazy(r"(?:[_-]|token|key|string|secret|password|value)here\b")
_MARK_BRACED = lazy(r"\{.*\}$")


def _has_placeholder_mark(value: str) -> bool:
    """`_PLACEHOLDER_MARKS().search(value)`, answered with literal checks for ASCII values."""
    if not value.isascii():
        return _PLACEHOLDER_MARKS().search(value) is not None
    if value[:1] in ("$", "%", "<") or any(map(value.__contains__, _MARKS_AS_WRITTEN)):
        return True
    lowered = value.lower()
    if any(map(lowered.__contains__, _MARKS_LOWERED)):
        return True
    opening = value.find("<")
    if opening >= 0 and value.find(">", opening + 1) >= 0:
        return True
    if "[" in value and _MARK_BRACKETED().search(lowered):
        return True
    if "here" in lowered and _MARK_HERE().search(lowered):
        return True
    return value[:1] == "{" and _MARK_BRACED().match(value) is not None


def is_placeholder(value: str) -> bool:
    """A value that stands for a secret without being one (`$TOKEN`, `<key>`, `xxxx`, `changeme`)."""
    stripped = value.strip("\"'`[](){}<>")
    if not stripped:
        return True
    if stripped.lower() in _PLACEHOLDER_WORDS:
        return True
    if _has_placeholder_mark(value):
        return True
    # One character repeated, or two alternating: "aaaaaaaa", "abababab"; a short unit repeated
    # ("123123123"); a run of the alphabet or of digits ("klmnop", "34567").
    if len(set(stripped)) <= 2:
        return True
    repeated = _REPEATED_UNIT().search(stripped)
    if repeated and len(repeated.group()) * 2 >= len(stripped):
        return True
    return _has_ascending_run(stripped.lower(), 5)


_REPEATED_UNIT = lazy(r"(.{2,4})\1{3,}")


# Every run of five consecutive ASCII code points whose last four are letters or digits ("abcde",
# "/0123"): one search instead of a loop over the characters.
_ASCENDING = lazy(
    "|".join(
        re.escape("".join(map(chr, range(first, first + 5))))
        for first in range(0x20, 0x7B)
        if all(chr(code).isalnum() for code in range(first + 1, first + 5))
    )
)


def _has_ascending_run(value: str, length: int) -> bool:
    if length == 5 and value.isascii():
        return _ASCENDING().search(value) is not None
    run = 1
    for previous, current in zip(value, value[1:], strict=False):
        run = run + 1 if ord(current) == ord(previous) + 1 and current.isalnum() else 1
        if run >= length:
            return True
    return False


_ENV_NAME = lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # DB_PASSWORD: the name of a variable
_DOTTED_NAME = lazy(r"[a-z0-9_\-]{1,19}(?:\.[a-z0-9_\-]{1,19})+")
# Keys that name an identifier, a file or a reference, not the secret itself.
_KEY_IS_A_NAME = lazy(
    r"(?:id|ids|name|names|file|path|url|uri|type|version|ref|arn|field|len|length)$", re.IGNORECASE
)


def _looks_live(value: str, minimum: int = 8) -> bool:
    """A value that could be a real credential: long enough, varied enough, not code or a path."""
    if len(value) < minimum or is_placeholder(value) or _CODE_REFERENCE().search(value):
        return False
    if value.startswith(("/", "./", "../", "~/", "http://", "https://")):
        return False
    if _DOTTED_NAME().fullmatch(value) or _ENV_NAME().fullmatch(value):
        return False  # var.db_password, host.example.com, settings.API_KEY, DB_PASSWORD
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


class _KnownFormat:
    """One detect-secrets pattern as the scanner runs it: compiled on first use, gated by needles."""

    __slots__ = ("rule", "description", "pattern", "needles", "folded", "validator")

    def __init__(self, plugin: str, secret_type: str, pattern: str, flags: int) -> None:
        from anchors.rules.known_formats import jwt_is_formally_valid, required_literals

        self.rule = f"secret.{_slug(secret_type)}"
        self.description = secret_type
        self.pattern = lazy(pattern, flags)
        # Literals one of which every match contains, read from the pattern itself (None: the
        # pattern always runs). Case-insensitive patterns are gated on the lower-cased text.
        self.needles = required_literals(pattern, flags)
        self.folded = bool(flags & re.IGNORECASE)
        self.validator: Callable[[str], bool] | None = (
            jwt_is_formally_valid if plugin == "JwtTokenDetector" else None
        )


@lru_cache(maxsize=1)
def _known_formats() -> tuple[_KnownFormat, ...]:
    """Each regex of detect-secrets' format plugins, with the rule id named after its plugin."""
    # Imported here: reading the plugin sources waits for the first text that is scanned.
    from anchors.rules.known_formats import plugin_patterns

    return tuple(_KnownFormat(*found) for found in plugin_patterns())


_KEY_WORDS = (
    r"api[_.\-]?key|apikey|access[_.\-]?key|secret(?!s)|token|passwd|password|passphrase|pwd|"
    r"private[_.\-]?key|auth[_.\-]?key|credentials?|bearer|access[_.\-]?id"
)
_KEY_WORD = lazy(_KEY_WORDS)  # searched in the lower-cased text (IGNORECASE is slow)
# Matched from the end of a credential word: the rest of the key, a closing quote or bracket
# (`os.environ['X_TOKEN'] = ...`), a separator, then the value.
_ASSIGNED_VALUE = lazy(
    r"(?P<rest>[\w.\-]*)(?P<close>[\"'\]]{0,2})"
    r"(?P<sep>\s*(?::=|=>|->|={1,3}|!==?|:)\s*|\s+is\s+|\s*\(\s*|\s+value\s*=\s*|\s*,\s*|\s+)"
    r"(?P<open>[\"'`]|(?:[\w.]+\()?)?(?P<value>[^\s\"'`,;)]{4,})",
    re.IGNORECASE,
)
# The key names the secret itself (it ends with a credential word), so any quoted literal it is
# given is the secret: `password = "rootpasswd"`, `"apiKey": "k3y"`. Not `token_type`, `tokenizer`.
_CREDENTIAL_KEY_END = lazy(
    r"(?:password|passwd|passphrase|pwd|pass|secret|token|api[_.\-]?key|apikey|access[_.\-]?key|"
    r"secret[_.\-]?key|private[_.\-]?key|auth[_.\-]?key|credentials?|access[_.\-]?(?:key[_.\-]?)?id)"
    r"[_.\-]?\d*$"
)
# An access id is half of a credential pair (AWS's access key id, Sumo Logic's access id): a
# random literal given to one is a leak, although keys ending in "id" usually name identifiers.
_ACCESS_ID_KEY = lazy(r"access[_.\-]?(?:key[_.\-]?)?id$")
# Literals that describe a credential field rather than fill it (schemas, forms, docs).
_DESCRIPTIVE_WORDS = frozenset(
    [
        "required", "optional", "string", "text", "hidden", "masked", "sensitive", "secret",
        "boolean", "integer", "number", "empty", "unset", "default", "auto", "generated",
        "random", "env", "environment", "vault", "keychain", "keyring", "bearer", "basic",
        "oauth", "oauth2", "jwt", "token", "password", "none", "null", "disabled", "enabled",
        "write", "read", "readonly", "public", "private", "internal", "inherit", "prompt",
    ]
)  # fmt: skip
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_AUTH_HEADER_PATTERN = (
    r"(?:authorization|x-[\w\-]*(?:api[_\-]?key|token|auth)[\w\-]*|api[_\-]?key)\s*:\s*"
    r"(?:(?:bearer|basic|token|api-token|apikey|sso-key|digest|otp)\s+)?(?P<value>[^\s\"'\\]{6,})"
)
_AUTH_HEADER = lazy(_AUTH_HEADER_PATTERN)  # on lower-cased text: IGNORECASE is slow
_AUTH_HEADER_CASED = lazy(_AUTH_HEADER_PATTERN, re.IGNORECASE)
_INLINE_USER = lazy(
    r"(?:\s-u|--user)\s*[=\s]\s*[\"']?(?P<user>[^\s:\"'$]+):(?P<value>[^\s\"']*)", re.IGNORECASE
)
# user:password@ in a URL (detect-secrets' basic-auth pattern leaves out passwords with !, $, ...).
_URL_CREDENTIALS = lazy(r"://[^/\s:@\"'<>]{1,64}:(?P<value>[^/\s@\"'<>]{1,128})@[\w.\-\[]")
# Candidate tokens stop at "/", "." and "=", so a URL, a path or `key=value` is judged part by
# part. A token may start with "-" or "_" (`-zxt1p9...`, `=_2uyda...`) when that is where the
# run of key characters starts. Runs of 16-19 characters are judged as short random strings
# (`t6u772etb6ljjy1l7`), 20 and more as keys: one pass over the text finds both.
_TOKEN = lazy(r"(?<![\w+~\-])[A-Za-z0-9~_\-][A-Za-z0-9_\-+~]{15,}={0,3}(?![\w+~\-])")
_FILE_SUFFIX = lazy(r"\.[A-Za-z][A-Za-z0-9]{1,4}\b")
_EMAIL_DOMAIN = lazy(
    r"@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)
# Lower-case only: the keys with vendor prefixes print their hex in lower case, while upper-case
# hex after a word is usually an id in a URL (API-BD80F56C...).
_LOWER_HEX = lazy(r"[0-9a-f]+")
_REDACTED = lazy(r"[-_]?[#*xX.]{3,}")
_PREFIXED_HEX = lazy(r"0x[0-9a-fA-F]+")  # addresses and hashes written as numbers
_SEGMENT_SPLIT = lazy(r"[-_~+]+")
_WORDLIKE = lazy(r"[a-z]+|[A-Z][a-z]*|[A-Z]+|\d+|[A-Za-z0-9]{1,4}|[0-9a-f]{6,}|[0-9A-F]{6,}")
_DIGIT_RUN = lazy(r"\d+")
_LETTER_RUN = lazy(r"[A-Za-z]+")
_LOWER_RUN = lazy(r"[a-z]+")
_CASE_SWITCH = lazy(r"(?=[a-z][A-Z]|[A-Z][a-z])")
# One case only: digests are printed in one case, keys that happen to be hex flip it at random.
_HEX_OR_UUID = lazy(r"[0-9a-f\-~:_]+|[0-9A-F\-~:_]+")
_INTEGRITY_PREFIX = lazy(r"(?:sha1|sha256|sha384|sha512|h1|md5)[-:=]$", re.IGNORECASE)
# Words that say the random material glued after them is a credential: `access-production-<uuid>`
# (Plaid), `session-<uuid>`, `token_<hex>`.
_CREDENTIAL_PREFIX_WORDS = frozenset(
    ["access", "secret", "token", "key", "auth", "session", "bearer", "apikey", "password", "pat"]
)
# A Kubernetes Secret manifest: its `data:` values are base64 credentials.
_KUBE_SECRET = lazy(r"^\s*kind:\s*[\"']?secret\b", re.IGNORECASE | re.MULTILINE)
_KUBE_DATA_VALUE = lazy(
    r"^[ \t]+[\w.\-]+:[ \t]*[\"']?(?P<value>[A-Za-z0-9+/]{12,}={0,2})[\"']?[ \t]*$", re.MULTILINE
)
_PUBLIC_MATERIAL = lazy(
    r"(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[0-9A-Za-z+/]+=*"
    r"|\bage1[02-9ac-hj-np-z]{58}\b"
    r"|-----BEGIN (?:PUBLIC KEY|CERTIFICATE|PGP PUBLIC KEY BLOCK|SSH2 PUBLIC KEY)-----.*?-----END[^-]*-----",
    re.DOTALL,
)


@lru_cache(maxsize=1)
def _format_index() -> tuple[dict[str, list[int]], dict[str, list[int]], list[int]]:
    """The formats each needle gates (by position), as written and lower-cased (for
    case-insensitive patterns), and the formats without needles."""
    cased: dict[str, list[int]] = {}
    folded: dict[str, list[int]] = {}
    always: list[int] = []
    for position, known in enumerate(_known_formats()):
        if known.needles is None:
            always.append(position)
            continue
        into = folded if known.folded else cased
        for needle in known.needles:
            into.setdefault(needle, []).append(position)
    return cased, folded, always


def _format_needles() -> list[str]:
    cased, folded, _ = _format_index()
    return [*cased, *folded]


needles.register_later(_format_needles)


def _known_format_hits(
    view: FoldedText, lowered: str, public: list[tuple[int, int]]
) -> Iterator[Hit]:
    # Only the formats one of whose needles the text holds run their regex; which needles it
    # holds comes from the pass shared by all the families.
    text = view.original
    formats = _known_formats()
    cased, folded, always = _format_index()
    chosen = set(always)
    for needle in needles.in_original(view):
        chosen.update(cased.get(needle, ()))
    for needle in needles.in_lowered(view, lowered):
        chosen.update(folded.get(needle, ()))
    for position in sorted(chosen):
        known = formats[position]
        for match in known.pattern().finditer(text):
            whole = match.group()
            value = match.group(match.lastindex) if match.lastindex else whole
            if not value or is_placeholder(whole) or is_placeholder(value):
                continue
            if entropy(whole) < 2.6 or (known.validator and not known.validator(value)):
                continue
            if _inside(match.start(), public) or _REDACTED().match(text, match.end()):
                continue  # a key shown up to where it was redacted: xoxp-1234-####
            yield Hit(
                known.rule, CATEGORY, match.start(), match.end(), f"{known.description} in the text"
            )


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in spans)


def _overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(s < end and start < e for s, e in spans)


def _is_random_token(token: str) -> bool:
    """A bare token that reads as generated key material rather than a name, hash or path."""
    if _HEX_OR_UUID().fullmatch(token) or _PREFIXED_HEX().fullmatch(token):
        return False  # commit ids, digests and UUIDs are everyday engineering text
    segments = [s for s in _SEGMENT_SPLIT().split(token) if s]
    if not segments:
        return False  # a rule of dashes or underscores
    longest = max(segments, key=len)
    hex_segments = [s for s in segments if _LOWER_HEX().fullmatch(s)]
    if (
        len(longest) >= 24
        and longest in hex_segments
        and not _LOWER_HEX().fullmatch(segments[0])
        and (segments[0].isalpha() or len(segments[0]) <= 8)
        and all(s in hex_segments for s in segments if len(s) >= 13)
    ):
        return True  # a vendor prefix glued to a long key: shppa_9f37..., PMAK-b667..., p8e-0887...
    if (
        sum(map(len, hex_segments)) >= 24
        and _CREDENTIAL_PREFIX_WORDS.intersection(s.lower() for s in segments)
        and all(s in hex_segments or s.isalpha() for s in segments)
    ):
        return True  # a credential word glued to a UUID or hex key: access-production-c00f...
    if all(_WORDLIKE().fullmatch(s) for s in segments):
        return False  # words, numbers and digests joined: api_org_96726c78_4ae3, 2018-250-xoxo
    letters = sum(map(str.isalpha, token))
    if letters < len(token) * 0.15:
        return False
    digit_runs = len(_DIGIT_RUN().findall(token))
    case_switches = len(_CASE_SWITCH().findall(longest))
    # Names keep digits together (curve25519, base64, v2) and change case at word starts
    # (TestGenericApiKey); generated keys scatter digits and flip case all along.
    if digit_runs < 3:
        # Without scattered digits only case can tell: a key flips it all along, while an
        # identifier keeps whole words in lower case (NewObjectWithALongName).
        longest_lower = max((len(r) for r in _LOWER_RUN().findall(longest)), default=0)
        if case_switches < len(longest) * 0.4 or longest_lower > 4:
            return False
    threshold = 3.5 if len(token) < 32 else 3.8
    return entropy(token) >= threshold


def _is_short_random_word(word: str) -> bool:
    """16-19 letters and digits that alternate like generated material, not a name or a number."""
    if _HEX_OR_UUID().fullmatch(word) or word.isdigit() or word.isalpha():
        return False
    digit_runs = _DIGIT_RUN().findall(word)
    letter_runs = _LETTER_RUN().findall(word)
    if len(digit_runs) < 4 or len(letter_runs) < 4:
        return False
    # Words keep letters together; a version or a model name keeps digits together.
    if max(map(len, letter_runs)) > 5 or max(map(len, digit_runs)) > 4:
        return False
    return entropy(word) >= 3.3 and not is_placeholder(word)


def _token_hits(
    text: str, public: list[tuple[int, int]], claimed: list[tuple[int, int]]
) -> Iterator[Hit]:
    for match in _TOKEN().finditer(text):
        token = match.group()
        start = match.start()
        core = token.rstrip("=")
        if len(core) < 20:
            # A short random string: letters and digits only, not a path or a file name part.
            if not (core.isascii() and core.isalnum()) or not _is_short_random_word(core):
                continue
            if start and text[start - 1] in "./":
                continue
            end = start + len(core)
            if end < len(text) and text[end] == "/":
                continue
            message = "a short random-looking string that reads like a key"
        else:
            if not _is_random_token(token) or is_placeholder(token.strip("-_")):
                continue
            if _INTEGRITY_PREFIX().search(text, max(0, start - 8), start):
                continue
            end = match.end()
            message = "a random-looking token that reads like a live key"
        if _overlaps(start, end, public + claimed):
            continue
        if _FILE_SUFFIX().match(text, end):
            continue  # a generated file name: api-c99e353f.gif, avatar-f0eb1acf.png
        if _is_email_local_part(text, start, end):
            continue  # an address, not a key: 11172084+name@users.noreply.github.com
        yield Hit("secret.high-entropy-token", CATEGORY, start, end, message)


def _is_email_local_part(text: str, start: int, end: int) -> bool:
    """The token is the part before @ of an e-mail address. Not when it follows `:` or `/`:
    `https://user:KEY@host` and `https://KEY@host` carry a credential in a URL."""
    if start and text[start - 1] not in " \t\n<(\"',;=[":
        return False
    return _EMAIL_DOMAIN().match(text, end) is not None


def _is_quoted_secret(key: str, match: re.Match[str]) -> bool:
    """A credential-named key given a quoted literal that is not a placeholder or a description."""
    opening = match.group("open")
    value = match.group("value")
    if opening not in ('"', "'", "`"):
        return False
    end = match.end("value")
    if end >= len(match.string) or match.string[end] != opening:
        return False  # the literal goes on past what was read (spaces): prose in quotes
    if len(value) < 6 or not _CREDENTIAL_KEY_END().search(key.lower()):
        return False
    if value.lower() in _DESCRIPTIVE_WORDS or is_placeholder(value):
        return False
    if _CODE_REFERENCE().search(value) or _DOTTED_NAME().fullmatch(value):
        return False  # a reference: settings.API_KEY, os.environ[...]
    if _ENV_NAME().fullmatch(value):
        return False  # the name of a variable: DB_PASSWORD
    return not value.startswith(("/", "./", "../", "~/", "http://", "https://", "$", "%"))


def _assigned_hits(text: str, lowered: str, public: list[tuple[int, int]]) -> Iterator[Hit]:
    # Lower-casing keeps offsets unless a character changes length ("İ"): then match ignoring case.
    words = (
        _KEY_WORD().finditer(lowered)
        if len(lowered) == len(text)
        else re.finditer(_KEY_WORDS, text, re.IGNORECASE)
    )
    for word in words:
        match = _ASSIGNED_VALUE().match(text, word.end())
        if match is None:
            continue
        if _inside(match.start("value"), public):
            continue
        key_start = word.start()
        while key_start > 0 and text[key_start - 1] in _KEY_CHARS:
            key_start -= 1
        key = text[key_start : match.end("rest")]
        sep = match.group("sep").strip()
        if not sep and not key.startswith("-"):
            continue  # "token abc..." is prose; "--token abc..." is a command-line option
        if sep == "," and not match.group("close").startswith(("'", '"')):
            continue  # only a quoted key before a comma is a key: getenv("API_TOKEN", "...")
        value = match.group("value")
        access_id = _ACCESS_ID_KEY().search(key.lower()) is not None
        if _KEY_IS_A_NAME().search(key) and not access_id:
            continue
        if _looks_live(value, minimum=10 if access_id else 8):
            message = f"{key!r} is given a live-looking value"
        elif _is_quoted_secret(key, match):
            message = f"{key!r} is given a literal value"
        else:
            continue
        yield Hit(
            "secret.assigned-credential",
            CATEGORY,
            match.start("value"),
            match.end("value"),
            message,
        )


# Literals the checks in `scan` are gated by, as written in the text and lower-cased.
_ORIGINAL_GATES = ("AAAA", "age1", "-----BEGIN", "PRIVATE KEY", "PuTTY", ":", "-u", "://")
_LOWERED_GATES = ("kind", "auth", "key", "token", "--user")
# One of which every match of `_KEY_WORDS` holds (password, passwd and passphrase hold "pass").
_KEY_WORD_GATES = frozenset(
    ("api", "access", "secret", "token", "pass", "pwd", "private", "auth", "credential", "bearer")
)
needles.register(_ORIGINAL_GATES)
needles.register(_LOWERED_GATES)
needles.register(_KEY_WORD_GATES)


def scan(view: FoldedText) -> list[Hit]:
    """Hits for secrets in the original text (secrets are matched as written, not folded)."""
    text = view.original
    lowered = text.lower()
    cased = needles.in_original(view)
    folded = needles.in_lowered(view, lowered)
    public = (
        [(m.start(), m.end()) for m in _PUBLIC_MATERIAL().finditer(text)]
        if "AAAA" in cased or "age1" in cased or "-----BEGIN" in cased
        else []
    )
    hits = list(_known_format_hits(view, lowered, public))
    if "kind" in folded and _KUBE_SECRET().search(text):
        for match in _KUBE_DATA_VALUE().finditer(text):
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
    if "PRIVATE KEY" in cased or "PuTTY" in cased:
        for match in _PRIVATE_KEY().finditer(text):
            hits.append(
                Hit("secret.private-key", CATEGORY, match.start(), match.end(), "a private key")
            )
    if len(lowered) != len(text) or not folded.isdisjoint(_KEY_WORD_GATES):
        hits.extend(_assigned_hits(text, lowered, public))
    # Header names match in the lower-cased text; values are read from the original.
    if ":" in cased and ("auth" in folded or "key" in folded or "token" in folded):
        header_text = lowered if len(lowered) == len(text) else text
        for found in _AUTH_HEADER().finditer(header_text):
            match = _AUTH_HEADER_CASED().match(text, found.start()) or found
            value = match.group("value")
            if _looks_live(value, minimum=6):
                if _CODE_REFERENCE().search(value):
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
    if "-u" in cased or "--user" in folded:
        for match in _INLINE_USER().finditer(text):
            # "-u KEY:" passes a key as the user
            value = match.group("value") or match.group("user")
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
    if "://" in cased:
        for match in _URL_CREDENTIALS().finditer(text):
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
