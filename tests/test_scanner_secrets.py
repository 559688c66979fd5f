"""Generic secret rules: a credential-named key given a literal, tokens by shape, and what passes.

Each leak has a benign twin that differs in what makes it a leak (a literal vs a reference, a
random value vs a description), written by hand for these rules.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchors.rules import secrets
from anchors.scanner import scan_text

LEAKS = [
    # A credential-named key given any quoted literal: the literal is the secret.
    'password       = "rootpasswd"',
    'db_password: "hunter2hunter"',
    '{"apiKey": "k3yk3yk3y"}',
    "export default { clientSecret: 'noodle-soup' }",
    # A quoted credential name before a comma is a key: getenv-with-default and friends.
    'token = os.getenv("API_TOKEN", "dafa7817-e246-48f3-91a7-e87653d587b8")',
    # The key closed by a quote and a bracket.
    "os.environ['HF_API_TOKEN'] = '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'",
    # An access id is half of a credential pair.
    'vendor.accessId = "su9OL59biWiJu7"',
    "vendor_access_id = 'sug5XpdpaoxtOH'",
    # Tokens after "=" or starting with "-".
    "-zxt1p9epeb-k88oo7qfjm75sm-6gdu9y_c-jxerkt2x4vqx5w8-btg9n3-m4ifw",
    "e68369d2042890.atlasv1.fs8uxg7as28=_2uyda__th8jar580vy8l1rwra298diba8hj-n=lqmcw_9zldnga8z",
    # A vendor prefix glued to long hex, in one or several parts.
    "PMAK-b6672e88fad6a95522b2ceff-6068f10da50a37ecbfb7e1d3180c14e1b4",
    'client := "p8e-0887427629413ff7fb15078a6ccc1696"',
    # A credential word glued to a UUID.
    "access-production-c00f3869-9179-8a54-5372-8149913e56ba",
    # A short random string: letters and digits alternating.
    "t6u772etb6ljjy1l7",
    # A random token as the user or password of a URL: a credential, not an e-mail address.
    "git clone https://R8Yk3Lm2Qx9Vb7Nw4Tz6Pd1Hs5Jf0Ga2K@git.example.com/team/repo",
    "psql postgres://app:R8Yk3Lm2Qx9Vb7Nw4Tz6Pd1Hs5Jf0Ga2K@db.example.com/shop",
]

PASSING = [
    "read AWS_SECRET_ACCESS_KEY from the env, never log it",
    'password = "<from the vault>"',
    'password: "${DB_PASSWORD}"',
    'password = "changeme"',
    'api_key = "xxxxxxxxxxxx"',
    'secret: "***"',
    'password = "example-password"',
    'password: "DB_PASSWORD"',  # the name of a variable
    '{"password": "required", "tokenizer": "whitespace", "token_type": "bearer"}',
    'secret_name: "payments-db-credentials"',
    'token = os.getenv("API_TOKEN", "")',
    'settings.get("api_token", "changeme")',
    "the password is in 1Password under 'staging db'",
    'partner.accountId = "acme-prod-eu"',
    "--skip-integration-tests-on-ci-runners",
    "-----------------------------------------",
    "grep the logs for req-5c1f2e9a-3b7d-4e8f-9a0b-1c2d3e4f5a6b",
    "fixed in 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
    "the build is x86_64 with utf8mb4, sha256sum and base64url",
    "commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b, UUID 123e4567-e89b-12d3-a456-426614174000",
    # GitHub's no-reply addresses, as git history and team profiles carry them.
    "- Email: 11172084+97littleleaf11@users.noreply.github.com",
    "ask <41898282+github-actions[bot]@users.noreply.github.com>",
]


@pytest.mark.parametrize("text", LEAKS)
def test_leaks_are_rejected_as_secrets(text: str) -> None:
    assert "secret" in {f.category for f in scan_text(text)}, text


@pytest.mark.parametrize("text", PASSING)
def test_references_placeholders_and_descriptions_pass(text: str) -> None:
    found = [(f.rule, text[f.start : f.end]) for f in scan_text(text)]
    assert found == [], found


def test_the_finding_points_at_the_literal_and_names_the_key() -> None:
    text = 'password       = "rootpasswd"'
    [finding] = scan_text(text)
    assert finding.rule == "secret.assigned-credential"
    assert text[finding.start : finding.end] == "rootpasswd"
    assert "'password'" in finding.message


# Characters and words the placeholder marks are made of, and a few that fold oddly in case.
_MARK_PIECES = st.sampled_from(
    [*"$%<>{}[]()._-*#xX0aAbcdefgKkEeHhRr1234567 \n", "example", "Sample", "HERE", "here", "token"]
    + ["TOKEN", "value", "xxXx", "{{", "${", "your_", "ChangeMe", "[A_B]", "[a b]", "İ", "ſ"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_MARK_PIECES, max_size=10).map("".join))
def test_the_literal_placeholder_checks_agree_with_the_mark_pattern(value: str) -> None:
    # ASCII values are judged with literal checks instead of the case-insensitive alternation.
    assert secrets._has_placeholder_mark(value) == bool(secrets._PLACEHOLDER_MARKS().search(value))
