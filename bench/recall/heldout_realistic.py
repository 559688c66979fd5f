"""A second held-out question set for the recall benchmark, written blind to recall's results.

Why a fourth set: the realistic set (realistic.py) is close to how developers ask, but the BM25
weight of the hybrid fusion was read off a grid that included it, so its figures are not untouched.
These questions were written by someone who had never seen recall's output on these learnings:
before writing them, no recall, benchmark or search over the corpus was run, and neither the tuning
and held-out questions in targets.py nor the realistic questions were read (only each target's
category and learning text). The file was committed before it was wired into the benchmark, and
neither recall nor the questions were changed after the first run.

How they were made: one question per target, indexed like TARGETS, in one pass, in four styles
assigned by position (index mod 10), as developers and coding agents ask a project memory:
- 0, 1, 2 "in the code": names an identifier, path, config key, table or tool the asker would be
  looking at (when the learning has one; else the domain noun), in the asker's own sentence;
- 3, 4, 5 "domain words and symptoms": the domain's ordinary nouns and what the asker observes,
  no code identifier copied, own phrasing;
- 6, 7 "agent query": what a coding agent passes to a recall tool, 2-6 keywords, no sentence;
- 8, 9 "paraphrase": as far as possible no content word of the learning.
No question copies three or more consecutive words of its learning (checked mechanically against
the learning's words only). Each was written to have one right answer among the 100 targets: where
two targets touch the same subject (idempotent jobs and idempotent Kafka consumers; money as
integers, rounding, Decimal in the tax module and the Money value; the two download-link notes;
the two analytics notes; the two i18n notes), the question names what only one of them says.
"""

from __future__ import annotations

STYLES = ("in the code", "in the code", "in the code", "domain words", "domain words",
          "domain words", "agent query", "agent query", "paraphrase", "paraphrase")  # fmt: skip


def style(index: int) -> str:
    """The style a question was written in, from its position in HELDOUT_REALISTIC."""
    return STYLES[index % 10]


HELDOUT_REALISTIC: list[str] = [
    # 0-9
    "Is it safe to wrap PaymentClient.charge in a retry loop when the gateway call times out?",
    "where does STRIPE_SECRET_KEY get loaded, and is it OK to log it while debugging?",
    "orders/state.py: who is allowed to transition an order into the paid state?",
    "after rebasing, running the DB migrations errors out saying there are two heads; what do I"
    " do?",
    "how should I word my commit messages so they show up in the release notes?",
    "I'm storing a product price as 19.99 in a float, is that a problem?",
    "cookie attributes httponly samesite",
    "product search index sync worker",
    "Why does the end-to-end purchase suite fail now and then when the in-memory cache boots late?",
    "Deferred work can be handed out more than once; what do tasks look up first so their outcome"
    " isn't duplicated?",
    # 10-19
    "My pull request touches about 900 lines, mostly hand-written; will reviewers ask me to break"
    " it up?",
    "do we run uploaded pictures through Pillow before saving them, and what happens to EXIF?",
    "does each service behind gateway/ need its own TLS certificate?",
    "task worker RAM creeps up all day once jobs pull in the dataframe library; how do we keep it"
    " bounded?",
    "how long can a feature toggle stay in the code after it's switched on for everyone?",
    "does new Python code need type annotations, and how strict is the type checker?",
    "password hashing legacy hashes upgrade",
    "email templates rendering sending service",
    "Revenue figures land on the neighbouring calendar date for merchants in the southern"
    " hemisphere; how should points in time be persisted?",
    "Which layer owns talking to persistence; may a page controller issue queries of its own?",
    # 20-29
    "I want to write a styled-component for the new banner; is that how we style things, or what"
    " belongs to styles/base.css?",
    "in our webhook handler, is comparing the signature with == good enough?",
    "what is the inventory sweeper for, and how long is stock held for a cart?",
    "large file uploads of around 20 megabytes get rejected with 413 Request Entity Too Large"
    " before reaching our code",
    "the frontend looks at our error message strings to decide what went wrong; what should clients"
    " match on instead?",
    "what's the preferred way to create model objects for tests: fixture files, or something else?",
    "admin route authorization role check",
    "price calculation order coupons tax",
    "Our overnight dump from the stock-keeping partner stops partway once the results run into five"
    " figures; how should we walk the result set?",
    "When what we memoise for an item gets new fields, do we wipe the whole in-memory store, or is"
    " there a gentler way?",
    # 30-39
    'is logger.info(f"order {order_id} paid") acceptable, or how do we format log lines?',
    "how quickly do we have to merge a Dependabot PR that fixes a CVE?",
    "can I still add a field to the /v1 endpoints for the iOS and Android apps?",
    "two batch jobs updating orders at the same moment sometimes die with a deadlock error",
    "which HTTP client library and what timeout for slow calls to third parties?",
    "how should I name my git branch so the ticket gets linked?",
    "gdpr personal data export",
    "frontend static assets build cdn",
    "Printable bills break when a buyer's surname contains Slavic accented letters",
    "I added a new route; what contract document has to be rebuilt so the pipeline stays green?",
    # 40-49
    "Does CODEOWNERS mean I need a sign-off from every directory's owner, and who presses merge?",
    "can I write a raw SQL string outside db/reports if I build it with f-strings carefully?",
    "does every query need a WHERE shop_id filter, or is that handled somewhere?",
    "the container image won't build on my Apple Silicon Mac, the Postgres driver fails to compile",
    "how do tests control the current date and time without monkeypatching?",
    "what line width does the code formatter use, and should I reformat files I didn't touch?",
    "deployment secrets management",
    "read replica vs primary database",
    "The basket sum comes out a penny different from adding up the items; when and how do we drop"
    " fractions of a penny?",
    "If a save gets undone, could listeners already have been told about it?",
    # 50-59
    "I'm starting a new service: FastAPI, or can I write it in Go?",
    "how do I add a new storefront domain to settings.CORS_ORIGINS, can I just use *?",
    "what latency budget does checkout give the promotions gRPC call for coupons?",
    "pods get killed for running out of memory when we import a big product spreadsheet",
    "how do API consumers walk through long result lists; can they ask for page 7 directly?",
    "should button labels be spelled colour or color, and can I type them straight into the HTML?",
    "login attempts lockout limit",
    "shipping carrier integration interface",
    "On Apple laptops the suite dies complaining about descriptor exhaustion; what setting fixes"
    " it?",
    "Is it fine to grab configuration values straight from the process environment in any module?",
    # 60-69
    "Should service classes share behaviour through a base class hierarchy?",
    "can a migration delete old rows from audit_log?",
    "who tunes search/ranking.yaml weights? what gets boosted?",
    "some product photos come out as solid black previews after resizing",
    "is decimal arithmetic allowed anywhere, for example when computing VAT percentages?",
    "when I fix a bug, do I need to add a test?",
    "staff two-factor totp",
    "recommendations service down fallback",
    "Golden-file comparisons fail now and then because map entries come out in a different"
    " sequence",
    "What happens if I add euros to pounds?",
    # 70-79
    "where do ADRs go, and is there a template under docs/adr?",
    "can bucket objects be made public for downloads, or do we hand out signed URLs?",
    "who consumes the OrderPacked event and what comes back?",
    "the payment provider's notification sometimes arrives before our purchase record is saved"
    " and we get 'order not found'",
    "how much logic should live in an HTTP request handler?",
    "checking a function against twenty inputs: a for loop inside one test, or something else?",
    "CSP inline script third-party widget",
    "ERP import product drafts publish",
    "After we changed our web address, customer messages started landing in junk folders; what was"
    " missing?",
    "Are localised strings looked up by their source-language wording or by some label? How do"
    " new labels get collected?",
    # 80-89
    "Can the product detail page be a client-only React render, or does it need rendering on the"
    " server?",
    "can I attach the customer's email to the analytics event for checkout_completed?",
    "using Stripe Connect, at which moment do we keep our commission, and how often do sellers get"
    " paid out?",
    "downloading a big CSV from the back office hangs and the server's memory balloons",
    "where do we check that a shipping address is real, and is the postcode lookup cached?",
    "can I bump a library version in the same pull request as my feature?",
    "password reset link expiry reuse",
    "guest checkout account merge",
    "Rollouts were marked unhealthy because schema changes were applied as the app booted; where"
    " do they happen now?",
    "When an external vendor keeps erroring, do we stop calling it for a while, and after how many"
    " errors?",
    # 90-99
    "should a boolean attribute be named active or is_active?",
    "does the refund endpoint check the 500 EUR limit, or only the admin screen?",
    "is it ok to call Segment in the React checkout page to track purchases?",
    "every so often a proxy in front answers Bad Gateway for requests that should succeed,"
    " seemingly at random",
    "Can we hard-delete a discontinued product that past purchases still point to?",
    "how long is too long for a function, when should I split it?",
    "product description html sanitizing",
    "return merchandise authorization numbers owner",
    "How do we make sure a log-stream subscriber that crashes and comes back doesn't act on the"
    " same record a second time? Where does it keep its read position?",
    "I'm renaming a field in the database; can the previous one disappear in the same rollout as"
    " the new one appears?",
]
