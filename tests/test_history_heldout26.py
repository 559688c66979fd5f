"""`tether history`: cases the twenty-sixth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 26`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

HANDSHAKE = (
    "func doHandshake({params}tlsConn *tls.Conn, cfg *tls.Config) error {{\n"
    "\tif err := tlsConn.{call}; err != nil {{\n"
    "\t\treturn err\n"
    "\t}}\n"
    "\tif !cfg.InsecureSkipVerify {{\n"
    "\t\tif err := tlsConn.VerifyHostname(cfg.ServerName); err != nil {{\n"
    "\t\t\treturn err\n"
    "\t\t}}\n"
    "\t}}\n"
    "\treturn nil\n"
    "}}\n"
)


def test_copies_for_two_builds_share_the_past(tmp_path: Path) -> None:
    """websocket's bcef843 deleted client.go's `doHandshake` and wrote it into two build-tagged
    files, tls_handshake.go (go1.17, `HandshakeContext(ctx)`) and tls_handshake_116.go (the
    old call): each is a copy of it, and each goes on into it, not only the likest."""
    r = Repo(tmp_path / "r")
    dial = "func Dial(url string) error {\n\treturn nil\n}\n"
    old = HANDSHAKE.format(params="", call="Handshake()")
    r.write("client.go", "package websocket\n\n" + dial + "\n" + old)
    born = r.commit("tls handshake")
    r.write("client.go", "package websocket\n\n" + dial)
    r.write(
        "tls_handshake.go",
        "//go:build go1.17\n\npackage websocket\n\n"
        + HANDSHAKE.format(params="ctx context.Context, ", call="HandshakeContext(ctx)"),
    )
    r.write(
        "tls_handshake_116.go",
        "//go:build !go1.17\n\npackage websocket\n\n"
        + HANDSHAKE.format(params="ctx context.Context, ", call="Handshake()"),
    )
    split = r.commit("Use context.Context in TLS handshake")
    for path in ("tls_handshake.go", "tls_handshake_116.go"):
        history = symbol_history(r.path, path, "doHandshake")
        assert [sha for sha, _ in changes(history.commits)] == [split, born], path
        assert "move" in history.commits[0].changes


PARSE_HEADER = (
    "function parseHeader(str) {\n"
    "  var lines = str.split(/\\r?\\n/);\n"
    "  var fields = {};\n"
    "  for (var i = 0, len = lines.length; i < len; ++i) {\n"
    "    var line = lines[i];\n"
    "    var index = line.indexOf(':');\n"
    "    fields[line.slice(0, index).toLowerCase()] = line.slice(index + 1).trim();\n"
    "  }\n"
    "  return fields;\n"
    "}\n"
)
BABEL = '"use strict";\n\nfunction parseHeader(str) {\n  return compiled(str);\n}\n'


def test_sources_moved_while_their_old_folder_became_build_output(tmp_path: Path) -> None:
    """superagent's 47f1d28 moved its sources from lib/ to src/, added `lib` to .gitignore and
    committed babel's output of src/ in lib/ (deleted from git later): lib/client.js kept a
    `parseHeader`, but as build output. The history goes on in lib/client.js, the commit a
    file rename; without the ignore line, src/client.js would be a copy, introduced."""
    r = Repo(tmp_path / "r")
    r.write(".gitignore", "node_modules\n")
    r.write("lib/client.js", "var request = {};\n\n" + PARSE_HEADER)
    born = r.commit("client")
    r.write("lib/client.js", "var request = {};\n\n" + PARSE_HEADER.replace("++i", "i++"))
    edited = r.commit("postfix")
    r.write(".gitignore", "node_modules\nlib\n")
    r.write("src/client.js", "const request = {};\n\n" + PARSE_HEADER.replace("++i", "i++"))
    r.write("lib/client.js", BABEL)
    moved = r.commit("feat: modern rewrite and refactoring")
    history = symbol_history(r.path, "src/client.js", "parseHeader")
    assert changes(history.commits) == [
        (moved, ("file-rename",)),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]


def test_a_copy_beside_its_original_starts_its_history(tmp_path: Path) -> None:
    """The same commit without the ignore line: lib/client.js is still a source, its
    `parseHeader` lives on, and the one in src/client.js is a copy of it."""
    r = Repo(tmp_path / "r")
    r.write("lib/client.js", "var request = {};\n\n" + PARSE_HEADER)
    r.commit("client")
    r.write("src/client.js", "const request = {};\n\n" + PARSE_HEADER)
    r.write("lib/client.js", BABEL)
    copied = r.commit("a second client")
    history = symbol_history(r.path, "src/client.js", "parseHeader")
    assert changes(history.commits) == [(copied, ("introduced",))]
