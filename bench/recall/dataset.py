"""The recall benchmark's corpus: 100 hand-written target learnings (targets.py) among generated
distractors, and the questions with their expected answers (targets.py, realistic.py).

The distractors come from ~40 templates filled from one fictional codebase's vocabulary (the same
services, tables and tools the targets talk about) with a fixed seed, so they are hard negatives:
other notes about retries, caching, payments, tests and deploys that share words with the questions
without answering them. The corpus is deterministic: the same seed gives the same learnings.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bench.recall.targets import TARGETS

SERVICES = [
    "inventory", "catalog", "checkout", "billing", "search", "notifications", "accounts", "shipping",
    "returns", "reviews", "loyalty", "pricing", "reports", "admin", "storefront", "gateway",
    "warehouse", "media", "auth", "analytics", "promotions", "subscriptions", "tax", "invoices",
]  # fmt: skip
CLASSES = [
    "Client", "Service", "Repository", "Handler", "Worker", "Importer", "Exporter", "Scheduler",
    "Validator", "Serializer", "Adapter", "Resolver",
]  # fmt: skip
FUNCS = ["sync", "load", "refresh", "publish", "apply", "resolve", "compute", "reconcile", "render",
         "fetch", "store", "expire", "rebuild", "notify", "schedule", "validate"]  # fmt: skip
TABLES = ["orders", "order_lines", "products", "customers", "carts", "coupons", "shipments",
          "invoices", "payouts", "reviews", "stock_levels", "price_rules", "sessions", "webhooks"]  # fmt: skip
TOOLS = ["Redis", "Postgres", "Kafka", "Celery", "OpenSearch", "S3", "SES", "Sentry", "Grafana",
         "Terraform", "Helm", "GitHub Actions", "Vite", "Playwright", "pytest", "Alembic"]  # fmt: skip
ENVS = ["staging", "production", "the preview environments", "local docker-compose"]
NUMBERS = [2, 3, 5, 10, 15, 20, 30, 50, 100, 200, 500, 1000]

# (category, template). Slots: svc, cls, fn, table, tool, env, n, m, field.
TEMPLATES = [
    (
        "pattern",
        "{Svc}{cls}.{fn} batches writes to {table} in groups of {n}; larger batches hit the statement timeout on {env}.",
    ),
    (
        "pattern",
        "{Svc}{cls} retries {tool} calls {m} times with exponential backoff starting at {n} ms; do not add retries in callers.",
    ),
    (
        "pattern",
        "Results of {svc}.{fn}() are cached in {tool} for {n} minutes under the {svc}:{fn} prefix; invalidate on writes to {table}.",
    ),
    (
        "pattern",
        "The {svc} module exposes only {Svc}{cls}; other modules must not import its internals from {svc}/_impl.",
    ),
    (
        "pattern",
        "{Svc}{cls}.{fn} is called from a Celery beat schedule every {n} minutes; keep it under {m} seconds or runs overlap.",
    ),
    (
        "pattern",
        "When {svc} reads {table}, it selects explicit columns; SELECT * broke the {svc} serializer when {field} was added.",
    ),
    (
        "pattern",
        "{Svc} emits a {Svc}Changed event after {fn}; subscribers in {svc2} rebuild their projection from it.",
    ),
    (
        "pattern",
        "Use {svc}.testing.make_{table}() in tests that need {table} rows; it fills {field} with valid defaults.",
    ),
    (
        "architecture",
        "The {svc} service owns the {table} table; {svc2} reads it through the {svc} API, never through SQL.",
    ),
    (
        "architecture",
        "{svc} runs as {n} replicas on {env}, behind the gateway, with {tool} as its only stateful dependency.",
    ),
    (
        "architecture",
        "{Svc}{cls} talks to {svc2} over gRPC with a {n} ms deadline; on timeout it serves the last known value.",
    ),
    (
        "architecture",
        "The {svc} worker consumes the {svc2}.{table} Kafka topic and writes a denormalised copy into {tool}.",
    ),
    (
        "architecture",
        "Configuration for {svc} lives in deploy/{svc}/values.yaml; secrets are injected as environment variables by {tool}.",
    ),
    (
        "architecture",
        "{svc} keeps its own read model of {table}, rebuilt nightly from the {svc2} export at {n}:00 UTC.",
    ),
    (
        "architecture",
        "The {svc} frontend bundle is code-split per route; the {svc2} pages load lazily from the CDN.",
    ),
    (
        "error",
        "{Svc}{cls}.{fn} raised IntegrityError on duplicate {field} in {table}; the unique index is now checked before insert.",
    ),
    (
        "error",
        "{tool} connection pool exhaustion in {svc} on {env}: the pool size is {n}, and {svc}.{fn} forgot to release connections.",
    ),
    (
        "error",
        "The {svc} migration adding {field} to {table} locked the table for {m} minutes; add columns without defaults, then backfill.",
    ),
    (
        "error",
        "{Svc} tests fail when run in parallel because they share the {table} fixture; mark them with @pytest.mark.serial.",
    ),
    (
        "error",
        "On {env}, {svc} returned 500s when {tool} was restarted; {Svc}{cls} now reconnects lazily on the next call.",
    ),
    (
        "error",
        "A typo in the {svc} Helm chart set replicas to {m} on {env}; the chart schema now rejects values above {n}.",
    ),
    (
        "error",
        "{Svc}{cls}.{fn} silently dropped rows where {field} was NULL; the filter now uses IS DISTINCT FROM.",
    ),
    (
        "error",
        "Playwright tests for {svc} timed out because the {svc2} mock answered after {n} seconds; mocks now reply at once.",
    ),
    (
        "security",
        "{Svc} endpoints that change {table} require the {svc}:write scope; read-only tokens get 403.",
    ),
    (
        "security",
        "Logs from {svc} must not contain {field}; the structlog processor in {svc}/logging.py masks it.",
    ),
    (
        "security",
        "{svc} validates uploaded {table} CSV files for formula injection (cells starting with = + - @) before import.",
    ),
    (
        "security",
        "Service-to-service calls from {svc} to {svc2} use mTLS certificates rotated every {n} days by cert-manager.",
    ),
    (
        "security",
        "The {svc} admin screens are only reachable through the VPN on {env}; the gateway drops them for public traffic.",
    ),
    (
        "security",
        "{Svc}{cls} signs outgoing {svc2} callbacks with HMAC-SHA256; the shared key rotates every {n} days.",
    ),
    (
        "preference",
        "In {svc}, prefer dataclasses over dicts for values passed between {Svc}{cls} and its callers.",
    ),
    (
        "preference",
        "The {svc} team wants a short design note in the PR description for any change to {table}.",
    ),
    (
        "preference",
        "For {svc}, keep {tool}-specific code inside {svc}/adapters so it can be swapped in tests.",
    ),
    (
        "preference",
        "{svc} code uses async functions end to end; do not call blocking {tool} clients from request handlers.",
    ),
    (
        "preference",
        "Name {svc} Celery tasks {svc}.{fn}_<noun> so the dashboards in {tool2} group them.",
    ),
    (
        "general",
        "The {svc} on-call rotation is weekly; handover notes go into the {svc} channel every Monday.",
    ),
    (
        "general",
        "{Svc} load tests run from the perf/ folder with k6 against {env}; the target is {n} requests per second.",
    ),
    (
        "general",
        "{svc} dashboards live in {tool2} under the '{Svc} overview' folder; alerts page after {m} minutes of errors.",
    ),
    ("general", "The {svc} README explains how to seed {table} locally with make seed-{svc}."),
    (
        "general",
        "{Svc} was split out of the monolith in 2024; some {table} code in legacy/ still mirrors it and is being removed.",
    ),
]
FIELDS = ["email", "sku", "external_id", "tracking_number", "vat_id", "phone", "iban", "coupon_code",
          "slug", "barcode", "address_line2", "locale"]  # fmt: skip


@dataclass(frozen=True)
class Learning:
    key: str  # "t007" for targets, "d0412" for distractors
    category: str
    text: str


@dataclass(frozen=True)
class Query:
    text: str
    answer: str  # the key of the learning that answers it


def distractors(count: int, seed: int = 7, distinct: bool = True) -> list[Learning]:
    """Generated learnings. `distinct`: none nearly duplicates another (the write path would refuse
    it); checked per template, the only place near-duplicates can come from."""
    from anchors.lifecycle import DUPLICATE_SIMILARITY, similarity

    rng = random.Random(seed)
    seen: set[str] = set()
    by_template: dict[str, list[str]] = {}
    out: list[Learning] = []
    while len(out) < count:
        category, template = rng.choice(TEMPLATES)
        svc, svc2 = rng.sample(SERVICES, 2)
        tool, tool2 = rng.sample(TOOLS, 2)
        n, m = sorted(rng.sample(NUMBERS, 2))
        text = template.format(
            svc=svc, Svc=svc.capitalize(), svc2=svc2, cls=rng.choice(CLASSES), fn=rng.choice(FUNCS),
            table=rng.choice(TABLES), tool=tool, tool2=tool2, env=rng.choice(ENVS), n=n, m=m,
            field=rng.choice(FIELDS),
        )  # fmt: skip
        if text in seen:
            continue
        siblings = by_template.setdefault(template, [])
        if distinct and any(similarity(text, s) >= DUPLICATE_SIMILARITY for s in siblings):
            continue
        seen.add(text)
        siblings.append(text)
        out.append(Learning(f"d{len(out):05d}", category, text))
    return out


def corpus(size: int = 1000, seed: int = 7) -> list[Learning]:
    """The 100 targets and `size - 100` distractors, in a seeded shuffled order."""
    targets = [Learning(f"t{i:03d}", c, text) for i, (c, text, _, _) in enumerate(TARGETS)]
    items = targets + distractors(max(0, size - len(targets)), seed)
    random.Random(seed).shuffle(items)
    return items


QUESTION_SETS = ("tuning", "held_out", "realistic", "heldout_realistic")


def queries(which: str = "tuning") -> list[Query]:
    """The 100 tuning questions, the 50 held-out ones, the 100 realistic ones (realistic.py), or
    the 100 of the second held-out set, written blind to recall's results (heldout_realistic.py)."""
    if which not in QUESTION_SETS:
        raise ValueError(f"unknown question set {which!r}")
    if which == "realistic":
        from bench.recall.realistic import REALISTIC

        return [Query(text, f"t{i:03d}") for i, text in enumerate(REALISTIC)]
    if which == "heldout_realistic":
        from bench.recall.heldout_realistic import HELDOUT_REALISTIC

        return [Query(text, f"t{i:03d}") for i, text in enumerate(HELDOUT_REALISTIC)]
    out = []
    for i, (_, _, question, second) in enumerate(TARGETS):
        text = second if which == "held_out" else question
        if text:
            out.append(Query(text, f"t{i:03d}"))
    return out
