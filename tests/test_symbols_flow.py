"""JavaScript with Flow's type annotations (React, graphql-js until 2021): JavaScript's grammar
gives up on them, often for the whole file, so the symbol index reads such a file with
TypeScript's grammar when that one recovers from less (`anchors.symbols.parse_source`). Anchors
on it resolve, follow edits in an open buffer, and `tether add --anchor` finds its definitions;
plain JavaScript reads as before."""

from __future__ import annotations

import json
from pathlib import Path

from anchors.incremental import ParsedDocument, resolve_in_document
from anchors.languages import parser_for
from anchors.specs import resolve_spec
from anchors.symbols import error_bytes, extract_symbols, parse_source
from tests.conftest import RunTether, git

FLOW = """/* @flow strict */
import type { ObjMap } from '../jsutils/ObjMap';

export type ExecutionArgs = {|
  schema: GraphQLSchema,
  rootValue?: mixed,
|};

export function execute(args: ExecutionArgs): PromiseOrValue<ExecutionResult> {
  const { schema, rootValue } = args;
  return executeImpl(schema, (rootValue: any));
}

function buildResponse(
  exeContext: ExecutionContext,
  data: PromiseOrValue<ObjMap<mixed> | null>,
): PromiseOrValue<ExecutionResult> {
  return { errors: exeContext.errors, data };
}

export class Runner {
  count: number = 0;

  run(name: string): void {
    this.count += 1;
  }
}
"""

PLAIN = """function add(a, b) {
  return a + b;
}

class Box {
  get size() {
    return this.items.length;
  }
}
"""


def test_flow_file_yields_its_definitions() -> None:
    source = FLOW.encode()
    javascript = parser_for("javascript").parse(source)
    # The test means something: JavaScript's own grammar loses these definitions.
    assert javascript.root_node.has_error
    tree, grammar = parse_source(source, "javascript")
    assert grammar == "typescript"
    assert error_bytes(tree.root_node) < error_bytes(javascript.root_node)
    names = [s.name for s in extract_symbols(source, "javascript")]
    for name in ("execute", "buildResponse", "Runner", "Runner.run"):
        assert name in names


def test_plain_javascript_keeps_its_grammar_and_reads_the_same_either_way() -> None:
    source = PLAIN.encode()
    assert parse_source(source, "javascript")[1] == "javascript"
    as_javascript = extract_symbols(source, "javascript")
    as_typescript = extract_symbols(source, "typescript")
    assert [s.name for s in as_javascript] == ["add", "Box", "Box.size"]
    assert [(s.name, s.signature_fp, s.body_norm) for s in as_javascript] == [
        (s.name, s.signature_fp, s.body_norm) for s in as_typescript
    ]
    # A plain file with a syntax error is still read, whichever grammar recovers from less.
    broken = (PLAIN + "\nfunction (( {\n").encode()
    assert "add" in [s.name for s in extract_symbols(broken, "javascript")]


def _flow_repo(repo: Path) -> Path:
    (repo / "src").mkdir()
    (repo / "src" / "execute.js").write_text(FLOW)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "execute")
    return repo


def test_anchor_on_flow_code_resolves_and_follows_the_buffer(repo: Path) -> None:
    _flow_repo(repo)
    anchor = resolve_spec(repo, "src/execute.js::buildResponse", cwd=repo).anchor
    assert anchor.symbol == "buildResponse" and anchor.span is not None
    doc = ParsedDocument("src/execute.js", FLOW, "javascript", root=repo)
    assert doc.grammar == "typescript"
    assert resolve_in_document(doc, anchor).status == "fresh"
    # An edit above it, re-parsed incrementally with the same grammar: lines shift, still fresh.
    doc.apply_change(1, 0, 1, 0, "// a note\n// another\n")
    verdict = resolve_in_document(doc, anchor)
    assert verdict.status == "fresh" and verdict.location is not None
    assert verdict.location.span == [anchor.span[0] + 2, anchor.span[1] + 2]
    doc.replace(FLOW.replace("errors: exeContext.errors", "errors: []"))
    assert resolve_in_document(doc, anchor).status == "stale"


def test_tether_add_and_stale_on_a_flow_file(repo: Path, run_tether: RunTether) -> None:
    _flow_repo(repo)
    assert run_tether(["init"], repo).returncode == 0
    added = run_tether(
        ["add", "execute returns a promise only when a resolver does", "--anchor",
         "src/execute.js::execute", "--json"],
        repo,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    (repo / "src" / "execute.js").write_text(FLOW.replace("executeImpl(", "runImpl("))
    stale = run_tether(["stale", "--json", "--no-record"], repo)
    assert stale.returncode in (0, 1), stale.stderr
    verdicts = [
        a["verdict"] for item in json.loads(stale.stdout)["learnings"] for a in item["anchors"]
    ]
    assert verdicts == ["stale"]
