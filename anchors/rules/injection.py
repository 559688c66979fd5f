"""Prompt injection: text written to steer the agent that will later read it.

A learning is read by coding agents as trusted project knowledge, so a note may say "agents must run
`make lint` before committing" (that is what memory is for) but not: override the instructions the
agent already has, claim a new identity or authority for itself, fake a system/assistant/tool turn,
hide instructions where a person reviewing the note will not see them, or dictate what the agent's
reply must contain (the canary-token pattern: "start your response with X").

Patterns start with a literal word where they can (the regex engine then skips ahead by first
character) and carry needle groups, so a text without the words a rule needs costs one `in` check.
"""

from __future__ import annotations

from anchors.rules.folding import FoldedText
from anchors.rules.hit import Hit
from anchors.rules.lazy_regex import lazy
from anchors.rules.phrases import GAP, fillers, rule, run, seq, words

CATEGORY = "injection"

_SMALL_WORDS = (
    "all",
    "any",
    "of",
    "the",
    "these",
    "those",
    "and",
    "or",
    "every",
    "each",
    "my",
    "our",
)
_EARLIER_WORDS = (
    "previous", "prior", "above", "earlier", "preceding", "foregoing", "former", "original",
    "initial", "system", "safety", "developer", "your", "existing", "old", "current",
)  # fmt: skip
_SMALL = words(*_SMALL_WORDS)
_EARLIER = words(*_EARLIER_WORDS)
_ORDERS = (
    r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guardrails|constraints|"
    r"context|commands?|orders|programming|policies|restrictions|training|messages|system\W{0,3}prompt)"
)
_REPLY = r"(?:responses?|repl(?:y|ies)|answers?|outputs?|messages?|completions?)"
_BOT = r"(?:agent|assistant|model|ai|llm|bot)(?:'s|s)?"
_ADDRESSEE = r"(?:the\W{1,3}" + _BOT + "|" + _BOT + ")"

_ORDER_STEMS = (
    "instruct", "prompt", "direct", "rule", "guideline", "guardrail", "constraint", "context",
    "command", "order", "programming", "polic", "restrict", "training", "message",
)  # fmt: skip
_REPLY_STEMS = ("respons", "repl", "answer", "output", "message", "completion")
_LINE_START = r"(?:^|\n)[ \t>#*]*"

_RULES = [
    rule(
        "injection.ignore-instructions",
        CATEGORY,
        r"\b"
        + seq(
            words(
                "ignore",
                "disregard",
                "forget",
                "neglect",
                "bypass",
                "discard",
                "abandon",
                "do not follow",
                "don't follow",
                "stop following",
                "do not obey",
                "stop obeying",
            ),
            fillers(_SMALL, 3) + _EARLIER,
            fillers(words(*_SMALL_WORDS, *_EARLIER_WORDS), 3) + _ORDERS,
        )
        + r"\b",
        "tells the reader to ignore the instructions it already has",
        needles=(
            (
                "ignore",
                "disregard",
                "forget",
                "neglect",
                "bypass",
                "discard",
                "abandon",
                "follow",
                "obey",
            ),
            _ORDER_STEMS,
        ),
    ),
    rule(
        "injection.ignore-instructions",
        CATEGORY,
        r"\bforget"
        + GAP
        + words("everything", "all")
        + GAP
        + words("you were told", "you know", "above", "before", "i said", "we discussed", "so far"),
        "tells the reader to forget what it was told",
        needles=(("forget",),),
    ),
    rule(
        "injection.override-authority",
        CATEGORY,
        r"\b"
        + seq(
            words(
                "supersedes?",
                "overrides?",
                "replaces?",
                "takes? precedence over",
                "trumps",
                "cancels?",
                "invalidates?",
            ),
            fillers(_SMALL, 2)
            + words(
                "system prompt",
                "system instructions?",
                "system messages?",
                "developer instructions?",
                "developer messages?",
                "safety guidelines",
                "(?:previous|prior|original|all|any|other) (?:instructions|prompts?|directives)",
            ),
        ),
        "claims to override the system prompt or earlier instructions",
        needles=(
            ("supersede", "override", "replace", "precedence", "trump", "cancel", "invalidate"),
            ("system", "developer", "safety", "instruction", "prompt", "directive"),
        ),
    ),
    rule(
        "injection.override-authority",
        CATEGORY,
        r"\b"
        + seq(
            words("ignore", "bypass", "disable", "turn off", "remove", "circumvent", "evade"),
            fillers(_SMALL, 2)
            + words("your", "the", "any", "all")
            + GAP
            + words("safety", "content", "ethical", "moral", "ethics", "alignment"),
            words(
                "guardrails?",
                "filters?",
                "restrictions?",
                "safeguards?",
                "guidelines",
                "policies",
                "rules",
                "training",
                "protocols?",
            ),
        ),
        "asks the reader to switch off its safety rules",
        needles=(
            ("ignore", "bypass", "disable", "turn", "remove", "circumvent", "evade"),
            ("safety", "content", "ethic", "moral", "alignment"),
        ),
    ),
    rule(
        "injection.new-instructions",
        CATEGORY,
        r"\byour"
        + GAP
        + words(
            "new",
            "real",
            "actual",
            "true",
            "updated",
            "hidden",
            "only",
            "primary",
            "sole",
            "secret",
        )
        + GAP
        + words(
            "task",
            "instructions?",
            "goal",
            "objective",
            "purpose",
            "job",
            "mission",
            "role",
            "directive",
            "orders",
            "priority",
        )
        + GAP
        + words("is", "are", "will be", "now", ":"),
        "gives the reader a new task or identity",
        needles=(
            ("your",),
            (
                "task",
                "instruction",
                "goal",
                "objective",
                "purpose",
                "job",
                "mission",
                "role",
                "directive",
                "order",
                "priority",
            ),
        ),
    ),
    rule(
        "injection.new-instructions",
        CATEGORY,
        r"\b"
        + seq(
            "new",
            words("mandatory", "system", "secret", "hidden", "priority", "overriding"),
            words("rules?", "instructions?", "directives?", "polic(?:y|ies)", "orders?"),
        ),
        "announces new mandatory rules for the reader",
        needles=(("new",), ("mandatory", "system", "secret", "hidden", "priority", "overriding")),
    ),
    rule(
        "injection.role-hijack",
        CATEGORY,
        r"\b"
        + seq(
            "from now on", "you", words("are", "will be", "will act", "must act", "shall be", "act")
        ),
        "tries to give the reader another identity",
        needles=(("now",),),
    ),
    rule(
        "injection.role-hijack",
        CATEGORY,
        r"\b"
        + seq(
            "you",
            "are",
            words("now", "no longer"),
            words(
                "an?",
                "the",
                "in",
                "my",
                "free",
                "not",
                "dan",
                "unrestricted",
                "jailbroken",
                "unfiltered",
                "bound",
                "allowed",
                "evil",
                "developer",
            ),
        ),
        "tries to give the reader another identity",
        needles=(("now", "longer"),),
    ),
    rule(
        "injection.role-hijack",
        CATEGORY,
        r"\b" + seq("pretend", r"(?:that\W{1,3})?" + words("you are", "you're", "to be an? ai")),
        "tries to give the reader another identity",
        needles=(("pretend",),),
    ),
    rule(
        "injection.role-hijack",
        CATEGORY,
        r"\b"
        + seq(
            words("act", "behave", "respond", "roleplay", "role-play", "pose"),
            "as",
            r"(?:if\W{1,3}you\W{1,3}(?:are|were)\W{1,3})?(?:an?\W{1,3})?"
            + words(
                "unrestricted",
                "unfiltered",
                "uncensored",
                "jailbroken",
                "evil",
                "dan",
                "ai without",
                "assistant without",
                "model without",
            ),
        ),
        "tries to give the reader an unrestricted identity",
        needles=(
            ("unrestricted", "unfiltered", "uncensored", "jailbroken", "evil", "dan", "without"),
        ),
    ),
    rule(
        "injection.role-hijack",
        CATEGORY,
        r"\b(?:"
        + seq(
            words("developer", "dan", "god", "jailbreak", "unrestricted", "sudo"),
            "mode",
            words("enabled", "activated", "on", "engaged"),
        )
        + "|"
        + seq(
            words("enable", "enter", "activate", "switch to"),
            words("developer", "dan", "god", "jailbreak", "unrestricted"),
            "mode",
        )
        + ")",
        "tries to unlock a restricted mode",
        needles=(("mode",),),
    ),
    rule(
        "injection.role-hijack",
        CATEGORY,
        r"\bdo" + GAP + "anything" + GAP + r"now\b",
        "the 'do anything now' jailbreak",
        needles=(("anything",),),
    ),
    rule(
        "injection.fake-turn",
        CATEGORY,
        r"<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|begin_of_text|start_header_id|"
        r"end_header_id|eot_id|tool|end)\s*\|>|\[/?inst\]|<</?sys>>",
        "contains chat-template tokens that fake a conversation turn",
        needles=(("<|", "inst]", "<<sys", "<</sys"),),
    ),
    rule(
        "injection.fake-turn",
        CATEGORY,
        r"(?:human|assistant|ai assistant)[ \t]*:[ \t]*\S",
        "fakes a human or assistant turn",
        needles=(("human", "assistant"),),
        before=_LINE_START,
    ),
    rule(
        "injection.fake-turn",
        CATEGORY,
        r"system[ \t]*(?:prompt|message|instructions?)?[ \t]*:[ \t]*"
        r"(?:you|ignore|new|from|always|never|the user|do not|don't|as an?|your)\b",
        "fakes a system turn",
        needles=(("system",),),
        before=_LINE_START,
    ),
    rule(
        "injection.fake-turn",
        CATEGORY,
        r"<\s*/?\s*(?:system|assistant|human|developer|sys|instructions?|system[_-]?prompt|"
        r"tool[_-]?(?:response|result|output|call|use)[\w-]*|function[_-]?(?:results?|calls?)|"
        r"[\w-]*(?:injection|instruction|directive)[\w-]*)\s*(?:\s[^<>]{0,100})?>",
        "contains a tag that fakes a system, assistant or tool message",
        needles=(
            ("<",),
            (
                "system",
                "assistant",
                "human",
                "developer",
                "sys",
                "instruction",
                "tool",
                "function",
                "injection",
                "directive",
            ),
        ),
    ),
    rule(
        "injection.hidden-comment",
        CATEGORY,
        r"(?:<!--|\[//\]:\s*#|\[comment\]:\s*<>)(?:(?!-->).){0,2000}?"
        r"(?:\binstructions?\b|\bdirectives?\b|\bignore\b|\bdisregard\b|\boverride\b|system prompt|"
        r"\bprompt\b|\bagents?\b|\bassistants?\b|\bai\b|\bllms?\b|\bchatbot\b|\bcopilot\b|\bclaude\b|"
        r"\bgpt\b|you must|your (?:response|reply|output|answer|first)|\bprepend\b|\brespond\b|"
        r"\breply\b|\binjection\b|\b(?:output|print|echo|say|emit|write)\b[^.>]{0,40}\bfirst\b)",
        "hides instructions for the reader in a comment a person will not see rendered",
        needles=(("<!--", "[//]", "[comment]"),),
    ),
    rule(
        "injection.hidden-html",
        CATEGORY,
        r"<[a-z][^<>]{0,200}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|"
        r"opacity\s*:\s*0(?![.\d]*[1-9])|\shidden(?=[\s>=/]))[^<>]*>",
        "hides text from the rendered view",
        needles=(("<",), ("display", "visibility", "font-size", "opacity", "hidden")),
    ),
    rule(
        "injection.response-directive",
        CATEGORY,
        r"\b"
        + seq(
            words(
                "start",
                "begin",
                "prefix",
                "preface",
                "prepend",
                "open",
                "lead",
                "starting",
                "beginning",
                "prefixing",
                "prepending",
                "opening",
            ),
            fillers(words("always", "all", "of", "each", "any"), 2)
            + words(
                "every",
                "each",
                "all",
                "any",
                "your",
                "the next",
                "next",
                "the first",
                "its",
                _ADDRESSEE,
            ),
            fillers(r"[a-z']+", 2) + _REPLY,
            words("with", "by"),
        ),
        "dictates how the reader's reply must begin",
        needles=(("start", "begin", "prefix", "preface", "prepend", "open", "lead"), _REPLY_STEMS),
    ),
    rule(
        "injection.response-directive",
        CATEGORY,
        r"\b"
        + seq(
            words(
                "your",
                "the agent",
                "the assistant",
                "the model",
                "the ai",
                "the llm",
                "agent",
                "assistant",
                "model",
                "llm",
            )
            + r"(?:'s|s)?",
            fillers(words("very", "first", "next", "initial", "opening", "every", "each"), 2)
            + _REPLY,
            words(
                "must",
                "should",
                "shall",
                "will",
                "has to",
                "have to",
                "needs? to",
                "is to",
                "are to",
            ),
            r"(?:always\W{1,6})?"
            + words("be", "begin", "start", "contain", "include", "say", "read", "end", "open"),
        ),
        "dictates what the reader's reply must contain",
        needles=(
            ("must", "should", "shall", "will", "has to", "have to", "need", "is to", "are to"),
            _REPLY_STEMS,
        ),
    ),
    rule(
        "injection.response-directive",
        CATEGORY,
        r"\b"
        + seq(
            words("all", "every", "each", "any"),
            fillers(r"[a-z']+", 1) + _REPLY,
            words("must", "should", "shall", "need to", "have to", "are to"),
            r"(?:always\W{1,6})?" + words("begin", "start", "be prefixed", "open"),
            "with",
            r"(?:\w+\W{1,6}){0,3}?"
            + words(
                "token", "word", "string", "phrase", "identifier", "marker", "code word", "prefix"
            ),
        ),
        "dictates what the reader's reply must contain",
        needles=(
            ("must", "should", "shall", "need", "have to", "are to"),
            _REPLY_STEMS,
            ("token", "word", "string", "phrase", "identifier", "marker", "prefix"),
        ),
    ),
    rule(
        "injection.response-directive",
        CATEGORY,
        r"\b"
        + seq(
            words(
                "output",
                "print",
                "echo",
                "say",
                "write",
                "emit",
                "type",
                "repeat",
                "return",
                "reply with",
                "respond with",
                "answer with",
                "send",
            ),
            r"(?:\w+\W{1,6}){0,5}?"
            + words(
                "before responding",
                "before answering",
                "before replying",
                "before summari[sz]ing",
                "before you (?:respond|answer|reply)",
                "before (?:any|every|your) (?:other )?(?:response|reply|answer)",
                "prior to (?:responding|answering|replying)",
                "before processing (?:this|the) (?:tool|result|response|request|data|content)",
                "as (?:your|the) (?:very )?(?:first|opening|initial) (?:token|word|output|line|thing)",
                "to acknowledge",
                "as (?:a )?confirmation",
                "as (?:an )?acknowledg(?:e)?ment",
                "to confirm (?:that )?you (?:have )?(?:read|received|saw|seen|understood|processed)",
                "to validate this (?:tool|call|request|instruction)",
            ),
        ),
        "tells the reader to emit something before or instead of answering",
        needles=(
            (
                "output",
                "print",
                "echo",
                "say",
                "write",
                "emit",
                "type",
                "repeat",
                "return",
                "reply",
                "respond",
                "answer",
                "send",
            ),
            ("before", "prior", "as your", "as the", "acknowledg", "confirm", "validate"),
        ),
    ),
    rule(
        "injection.response-directive",
        CATEGORY,
        r"\bprepend"
        + GAP
        + r"(?:\w+\W{1,6}){0,4}?to"
        + GAP
        + words("your", "the", "every", "each", "all", "any", _ADDRESSEE)
        + GAP
        + fillers(r"[a-z']+", 1)
        + _REPLY,
        "tells the reader what to put in its reply",
        needles=(("prepend",),),
    ),
    rule(
        "injection.response-directive",
        CATEGORY,
        r"\b(?:prefix|token|marker)"
        + GAP
        + words("in", "to", "at the start of")
        + GAP
        + _ADDRESSEE
        + GAP
        + _REPLY,
        "tells the reader what to put in its reply",
        needles=(
            ("prefix", "token", "marker"),
            ("agent", "assistant", "model", "ai", "llm", "bot"),
        ),
    ),
    rule(
        "injection.response-directive",
        CATEGORY,
        r"\b(?:regardless|irrespective)"
        + GAP
        + "of"
        + GAP
        + r"(?:the\W{1,3})?"
        + words("user", "user's", "users'", "what the user")
        + GAP
        + words(
            "input",
            "request",
            "instructions?",
            "says",
            "asks",
            "prompt",
            "query",
            "message",
            "wants",
            "question",
        )
        + r"[^.\n]{0,60}?\b(?:you|your)\b",
        "tells the reader to act regardless of what the user asks",
        needles=(("regardless", "irrespective"),),
    ),
    rule(
        "injection.hidden-directive",
        CATEGORY,
        words(
            "hidden", "secret", "shadow", "embedded", "covert", "mandatory", "concealed", "injected"
        )
        + GAP
        + words("directives?", "instructions?", "commands?", "prompts?"),
        "marks itself as a hidden directive for the reader",
        needles=(
            (
                "hidden",
                "secret",
                "shadow",
                "embedded",
                "covert",
                "mandatory",
                "concealed",
                "injected",
            ),
            ("directive", "instruction", "command", "prompt"),
        ),
        before=r"(?:^|\n|[\[(<{])[ \t#*_\"]*",
    ),
    rule(
        "injection.hidden-directive",
        CATEGORY,
        r"\b(?:carries|contains|includes)"
        + GAP
        + r"an?"
        + GAP
        + words("hidden", "secret", "embedded", "covert")
        + GAP
        + words("instructions?", "directives?"),
        "says it carries a hidden directive for the reader",
        needles=(("hidden", "secret", "embedded", "covert"), ("instruction", "directive")),
    ),
    rule(
        "injection.system-marker",
        CATEGORY,
        words(
            "system",
            "admin",
            "administrator",
            "developer",
            "tool metadata",
            "metadata",
            "agent",
            "ai",
            "assistant",
            "root",
            "sudo",
        )
        + GAP
        + words(
            "override",
            "notice",
            "directive",
            "instructions?",
            "commands?",
            "configuration update",
            "config update",
            "policy update",
            "alert",
        )
        + r"\b\s*[:\]]",
        "poses as a message from the system or an administrator",
        needles=(
            (
                "system",
                "admin",
                "developer",
                "metadata",
                "agent",
                "ai",
                "assistant",
                "root",
                "sudo",
            ),
            (
                "override",
                "notice",
                "directive",
                "instruction",
                "command",
                "configuration",
                "config",
                "policy",
                "alert",
            ),
        ),
        before=r"(?:^|[\n.!:\]]|\[)\s*[ \t#*]*",
    ),
]

# "[SYSTEM]", "[OVERRIDE]", "[DATA EXFIL REQUEST]": a bracketed directive tag. Lower-case
# "[system]" is a TOML/INI section, so the tag must be upper-case in the original or name more
# than one word.
_BRACKET_TAG = lazy(
    r"\[\s*((?:[a-z]+\s+){0,2}(?:system|override|directive|instructions?|exfil[a-z]*|jailbreak)"
    r"(?:\s+[a-z]+){0,2})\s*\]"
)


def _bracket_tags(view: FoldedText) -> list[Hit]:
    hits: list[Hit] = []
    if "[" not in view.text:
        return hits
    for match in _BRACKET_TAG().finditer(view.text):
        start, end = view.to_original(match.start(), match.end())
        written = view.original[start:end]
        letters = [c for c in written if c.isalpha()]
        if (letters and all(c.isupper() for c in letters)) or " " in match.group(1).strip():
            hits.append(
                Hit(
                    "injection.system-marker",
                    CATEGORY,
                    start,
                    end,
                    "a bracketed tag that poses as a system or override message",
                )
            )
    return hits


def scan(view: FoldedText) -> list[Hit]:
    """Hits for prompt-injection phrasings in the folded text (spans in the original)."""
    return list(run(_RULES, view)) + _bracket_tags(view)
