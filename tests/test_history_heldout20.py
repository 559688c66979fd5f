"""`tether history`: cases the twentieth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 20`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from anchors.history_compare import flat_text
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

PARSE = (
    "def parse_multipart_form(body, boundary):\n"
    "    files = {}\n"
    "    fields = {}\n"
    "    for form_part in body.split(boundary)[1:-1]:\n"
    "        file_name = None\n"
    "        content_type = 'text/plain'\n"
    "        post_data = form_part[4:-2]\n"
    "        if file_name:\n"
    "{FILE}"
    "            files.setdefault(field_name, []).append(form_file)\n"
    "        else:\n"
    "            fields[field_name] = post_data.decode('utf-8')\n"
    "    return fields, files\n"
)
ONE_LINE = "            form_file = File(type=content_type, name=file_name, body=post_data)\n"
JOINED = (
    "            form_file = \\\n"
    "                File(type=content_type, name=file_name, body=post_data)\n"
)
WRAPPED = (
    "            form_file = File(\n"
    "                type=content_type, name=file_name, body=post_data\n"
    "            )\n"
)


def test_a_line_joined_by_a_backslash_is_layout(tmp_path: Path) -> None:
    """sanic's 48d45f1c broke `form_file = File(...)` after the `=` with a backslash, and
    e083224d wrapped the call in its parentheses instead: a backslash ending a line only joins
    it to the next (Python's explicit line joining), no token changed, and neither commit is a
    change of `parse_multipart_form`. Changing the call's arguments still is."""
    r = Repo(tmp_path / "r")
    r.write("request.py", PARSE.replace("{FILE}", ONE_LINE))
    born = r.commit("multipart")
    r.write("request.py", PARSE.replace("{FILE}", JOINED))
    r.commit("line length")
    r.write("request.py", PARSE.replace("{FILE}", WRAPPED))
    r.commit("black")
    r.write("request.py", PARSE.replace("{FILE}", WRAPPED.replace("body=", "data=")))
    renamed = r.commit("File takes data")
    history = symbol_history(r.path, "request.py", "parse_multipart_form")
    assert changes(history.commits) == [(renamed, ("body",)), (born, ("introduced",))]


def test_flat_text_joins_lines_ended_by_a_backslash() -> None:
    assert flat_text(b"x = \\\n    f(a)\n", "") == flat_text(b"x = f(a)\n", "")
    assert flat_text(b"x = \\\r\n    f(a)\n", "") == "x=f(a)"
    # A backslash before anything else is a token (an escape), kept.
    assert flat_text(b's = "a\\tb"\n', "") == 's="a\\tb"'


CLI = (
    "{TARGET} = function(opts) {\n"
    "  if (opts.version) {\n"
    "    console.log(Handlebars.VERSION);\n"
    "    return;\n"
    "  }\n"
    "  var template = [0];\n"
    "  if (!opts.templates.length) {\n"
    "    throw new Handlebars.Exception('Must define at least one template or directory.');\n"
    "  }\n"
    "  opts.templates.forEach(function(template) { processTemplate(template, opts); });\n"
    "};\n"
)


def test_the_qualifiers_of_an_assigned_name_are_its_name_not_its_signature(
    tmp_path: Path,
) -> None:
    """handlebars' 05953229 made `module.exports = function(opts)` into
    `module.exports.cli = function(opts)` (with its file renamed), got's af341ca4
    `options.gotRetry.retries = (...) =>` into `options.retry.retries =`: what comes before the
    name in an assignment is the name's qualifiers, so those renames left the signature as it
    was."""
    r = Repo(tmp_path / "r")
    r.write("lib/precompiler.js", CLI.replace("{TARGET}", "module.exports"))
    born = r.commit("precompiler")
    r.write("lib/precompiler.js", CLI.replace("{TARGET}", "module.exports.cli"))
    renamed = r.commit("export cli")
    history = symbol_history(r.path, "lib/precompiler.js", "exports.cli")
    assert changes(history.commits) == [(renamed, ("rename",)), (born, ("introduced",))]
    # A changed parameter list still is a signature change.
    r.write(
        "lib/precompiler.js",
        CLI.replace("{TARGET}", "module.exports.run").replace("(opts)", "(options)", 1),
    )
    again = r.commit("run, options")
    history = symbol_history(r.path, "lib/precompiler.js", "exports.run")
    assert changes(history.commits)[0] == (again, ("signature", "rename"))


ERRORS = (
    "export class RequestError extends Error {\n"
    "  constructor(message, error, options) {\n"
    "    super(message);\n"
    "    Error.captureStackTrace(this, this.constructor);\n"
    "    this.name = 'RequestError';\n"
    "    this.code = error.code;\n"
    "    this.options = options;\n"
    "  }\n"
    "}\n\n"
    "export class HTTPError extends RequestError {\n"
    "  constructor(response) {\n"
    "    super(`Response code ${response.statusCode}`, {}, response.request.options);\n"
    "    this.name = 'HTTPError';\n"
    "  }\n"
    "}\n"
)


def test_a_small_file_whose_definitions_went_into_a_far_bigger_new_one_moved(
    tmp_path: Path,
) -> None:
    """got's "Rewrite Got" (286e31e0) deleted source/errors.ts (about 100 lines) and wrote
    source/core/index.ts (about 1,500), which holds its classes among the code of several other
    deleted files. All of errors.ts's names are in index.ts, but a file twelve times its size
    is not it renamed: its classes moved there."""
    r = Repo(tmp_path / "r")
    r.write("source/errors.ts", ERRORS)
    r.write("source/request.ts", "export function request(url) {\n  return fetch(url);\n}\n")
    born = r.commit("errors")
    big = "".join(
        f"export function helper{i}(value, options) {{\n"
        f"  const result = transform{i}(value, options.settings[{i}]);\n"
        f"  return result === undefined ? options.defaults[{i}] : result;\n}}\n\n"
        for i in range(60)
    )
    r.git("rm", "-q", "source/errors.ts", "source/request.ts")
    r.write(
        "source/core/index.ts",
        ERRORS.replace("super(message);", "super(message, { cause: error });") + "\n" + big,
    )
    rewritten = r.commit("rewrite got")
    history = symbol_history(r.path, "source/core/index.ts", "RequestError.constructor")
    assert [sha for sha, _ in changes(history.commits)] == [rewritten, born]
    assert "move" in history.commits[0].changes
    assert "file-rename" not in history.commits[0].changes


RUNTIME = (
    "function checkRevision(compilerInfo) {\n"
    "  var compilerRevision = compilerInfo && compilerInfo[0] || 1,\n"
    "      currentRevision = COMPILER_REVISION;\n"
    "  if (compilerRevision !== currentRevision) {\n"
    "    throw new Exception('Template was precompiled with an older version.');\n"
    "  }\n"
    "}\n"
)


def test_a_wrapper_taken_away_around_unindented_lines_renames(tmp_path: Path) -> None:
    """handlebars' runtime once wrapped its functions in `exports.attach = function(Handlebars)
    {...}` without indenting them; its ES6 modules took the wrapper away, the functions' own
    lines untouched. The merge (cb0c45b2) that brought `checkRevision` so into a line that
    never had it differs from both parents: a rename (from `exports.attach.checkRevision`);
    so is the same in a plain commit."""
    r = Repo(tmp_path / "r")
    wrapped = "exports.attach = function(Handlebars) {\n\n" + RUNTIME + "\n};\n"
    r.write("lib/runtime.js", wrapped)
    born = r.commit("runtime")
    r.write("lib/runtime.js", "import { COMPILER_REVISION } from './base';\n\n" + RUNTIME)
    unwrapped = r.commit("es6 modules")
    history = symbol_history(r.path, "lib/runtime.js", "checkRevision")
    assert changes(history.commits) == [(unwrapped, ("rename",)), (born, ("introduced",))]
    assert history.commits[1].symbol == "exports.attach.checkRevision"
