"""`tether history`: cases the twenty-first held-out accuracy round found (bench/anchors/truth,
`held_out_round: 21`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

FILTER_NODE = (
    "func (this *Selection) FilterNode(node *html.Node) *Selection {\n"
    "\tif isInSlice(this.Nodes, node) {\n"
    "\t\treturn newSingleSelection(node, this.document)\n"
    "\t}\n"
    "\treturn newEmptySelection(this.document)\n"
    "}\n"
)
FILTER_NODES = (
    "func (this *Selection) FilterNodes(nodes ...*html.Node) *Selection {\n"
    "\treturn pushStack(this, winnowNodes(this, nodes, true))\n"
    "}\n"
)
NOTS = (
    "func (this *Selection) Not(selector string) *Selection {\n"
    "\treturn pushStack(this, winnow(this, selector, false))\n"
    "}\n\n"
    "func (this *Selection) NotNodes(nodes ...*html.Node) *Selection {\n"
    "\treturn pushStack(this, winnowNodes(this, nodes, false))\n"
    "}\n"
)
FILTER = (
    "func (this *Selection) Filter(selector string) *Selection {\n"
    "\treturn pushStack(this, winnow(this, selector, true))\n"
    "}\n"
)


def test_a_rename_written_in_the_old_ones_place_among_alike_new_ones(tmp_path: Path) -> None:
    """goquery's e4467e0 replaced `FilterNode(node)` by `FilterNodes(nodes...)` where it was,
    its body rewritten (0.49 alike), and wrote `Not` and `NotNodes`, as alike, elsewhere in the
    file: the one written in the old one's place is its rename; the others are new."""
    r = Repo(tmp_path / "r")
    r.write("filter.go", "package goquery\n\n" + FILTER + "\n" + FILTER_NODE)
    born = r.commit("filter")
    r.write(
        "filter.go",
        "package goquery\n\n" + FILTER + "\n" + FILTER_NODE.replace("this.document", "this.doc"),
    )
    edited = r.commit("doc")
    r.write("filter.go", "package goquery\n\n" + NOTS + "\n" + FILTER + "\n" + FILTER_NODES)
    renamed = r.commit("panic on error, instead of empty selection")
    history = symbol_history(r.path, "filter.go", "Selection.FilterNodes")
    assert [sha for sha, _ in changes(history.commits)] == [renamed, edited, born]
    assert "rename" in history.commits[0].changes
    assert history.commits[1].symbol == "Selection.FilterNode"
    history = symbol_history(r.path, "filter.go", "Selection.NotNodes")
    assert changes(history.commits) == [(renamed, ("introduced",))]


HELP = (
    "function help () {\n"
    "  console.log(['SemVer ' + version, '', 'A JavaScript implementation of semver',\n"
    "    '', 'Usage: semver [options] <version> [<version> [...]]'].join('\\n'))\n"
    "}\n"
)


def test_a_script_without_an_extension_renamed_to_one_with(tmp_path: Path) -> None:
    """node-semver's 24af4615 renamed bin/semver, a script with no extension (its language
    known only from its `#!/usr/bin/env node`), to bin/semver.js, byte for byte: a file
    rename, and the history goes on in bin/semver, read as JavaScript."""
    r = Repo(tmp_path / "r")
    script = "#!/usr/bin/env node\nvar argv = process.argv.slice(2)\n\n"
    r.write("bin/semver", script + HELP)
    born = r.commit("semver cli")
    r.write("bin/semver", script + HELP.replace("'', 'Usage", "'Usage"))
    edited = r.commit("shorter help")
    r.git("mv", "bin/semver", "bin/semver.js")
    renamed = r.commit("add .js to bin")
    history = symbol_history(r.path, "bin/semver.js", "help")
    assert changes(history.commits) == [
        (renamed, ("file-rename",)),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]
    assert history.commits[1].path == "bin/semver"


KY = (
    "const delay = ms => new Promise(resolve => setTimeout(resolve, ms));\n\n"
    "class HTTPError extends Error {\n"
    "\tconstructor(response) {\n"
    "\t\tsuper(response.statusText);\n"
    "\t\tthis.name = 'HTTPError';\n"
    "\t\tthis.response = response;\n"
    "\t}\n"
    "}\n\n"
    "class Ky {\n"
    "\tconstructor(input, options = {}) {\n"
    "\t\tthis._retryCount = 0;\n"
    "\t\tthis._input = input;\n"
    "\t\tthis._options = {credentials: 'same-origin', ...options};\n"
    "\t\tthis.request = new Request(this._input, this._options);\n"
    "\t}\n\n"
    "\t_calculateRetryDelay(error) {\n"
    "\t\tthis._retryCount++;\n"
    "\t\tif (this._retryCount < this._options.retry.limit && !(error instanceof TimeoutError)) {\n"
    "\t\t\tconst after = error.response.headers.get('Retry-After');\n"
    "\t\t\treturn after ? Number(after) * 1000 : 0.3 * (2 ** (this._retryCount - 1)) * 1000;\n"
    "\t\t}\n"
    "\t\treturn 0;\n"
    "\t}\n"
    "}\n"
)


MERGE = (
    "const deepMerge = (...sources) => {\n"
    "\tlet returnValue = {};\n"
    "\tfor (const source of sources) {\n"
    "\t\tif (Array.isArray(source)) {\n"
    "\t\t\treturnValue = [...returnValue, ...source];\n"
    "\t\t} else if (isObject(source)) {\n"
    "\t\t\tfor (let [key, value] of Object.entries(source)) {\n"
    "\t\t\t\tif (isObject(value) && Reflect.has(returnValue, key)) {\n"
    "\t\t\t\t\tvalue = deepMerge(returnValue[key], value);\n"
    "\t\t\t\t}\n"
    "\t\t\t\treturnValue = {...returnValue, [key]: value};\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t}\n"
    "\treturn returnValue;\n"
    "};\n"
)
HOOKS = "".join(
    f"\tprivate async _hook{i}(request: Request, options: Options): Promise<void> {{\n"
    f"\t\tfor (const hook of this._options.hooks.step{i}) {{\n"
    f"\t\t\tawait hook(request, options, {{retryCount: this._retryCount + {i}}});\n"
    f"\t\t}}\n\t}}\n\n"
    for i in range(2)
)


def test_a_javascript_file_split_among_typescript_files_is_moves(tmp_path: Path) -> None:
    """ky's "Move to TypeScript" (2d8d68ae) deleted index.js and wrote source/core/Ky.ts (which
    git pairs with it at 46%) among other .ts files that declare index.js's other definitions
    (`delay`, `HTTPError`): a file split, so its methods moved, whatever the new files'
    language. (A move from a deleted file into an added one that git pairs at 40% is a file
    rename only when the file was not split.)"""
    r = Repo(tmp_path / "r")
    r.write("index.js", MERGE + "\n" + KY)
    born = r.commit("ky")
    ky = KY.split("class Ky {", 1)[1].replace("(error)", "(error: Error): number")
    r.write(
        "source/core/Ky.ts",
        "import {delay} from '../utils/time.js';\n\nexport class Ky {\n" + HOOKS + ky,
    )
    r.write("source/utils/merge.ts", "export " + MERGE)
    r.write("source/utils/time.ts", "export " + KY.split("\n\n", 1)[0] + "\n")
    r.write("source/errors/HTTPError.ts", "export " + KY.split("\n\n")[1] + "\n")
    r.git("rm", "-q", "index.js")
    moved = r.commit("Move to TypeScript")
    history = symbol_history(r.path, "source/core/Ky.ts", "Ky._calculateRetryDelay")
    assert [sha for sha, _ in changes(history.commits)] == [moved, born]
    assert "move" in history.commits[0].changes
    assert "file-rename" not in history.commits[0].changes
