"""`tether history`: cases the twenty-third held-out accuracy round found (bench/anchors/truth,
`held_out_round: 23`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

EACH = (
    "var each = exports.each = function(fn) {\n"
    "  var i = 0, len = this.length;\n"
    "  while (i < len && fn.call(this[i], i, this[i]) !== false) ++i;\n"
    "  return this;\n"
    "};\n"
)


def test_a_function_declared_and_exported_in_one_line(tmp_path: Path) -> None:
    """cheerio wrote its methods `var each = exports.each = function(fn)` until 1d89eda9
    dropped the local alias (`exports.each = function(fn)`): the form was not indexed, and the
    history stopped there. It is named as its export, and dropping the alias changes its
    signature."""
    r = Repo(tmp_path / "r")
    r.write("lib/traversing.js", EACH)
    born = r.commit("traversing.coffee => traversing.js")
    r.write("lib/traversing.js", EACH.replace("++i;", "i++;"))
    edited = r.commit("each: postfix")
    r.write("lib/traversing.js", EACH.replace("++i;", "i++;").replace("var each = ", ""))
    dropped = r.commit("Remove unused API method references")
    history = symbol_history(r.path, "lib/traversing.js", "exports.each")
    assert changes(history.commits) == [
        (dropped, ("signature",)),
        (edited, ("body",)),
        (born, ("introduced",)),
    ]


UPDATE = (
    "var update = exports{qualifier}.update = function(arr, parent) {{\n"
    "  if (!Array.isArray(arr)) arr = [arr];\n"
    "  parent.children = arr;\n"
    "  for (var i = 0; i < arr.length; i++) arr[i].parent = parent;\n"
    "  return parent;\n"
    "}};\n"
)


def test_a_file_deleted_and_its_function_written_into_a_new_one_the_next_commit(
    tmp_path: Path,
) -> None:
    """cheerio's 3a08b06c deleted lib/api/parse.js, and aac4ec44 ("moved parse", seven
    seconds later) wrote its `exports.parse.update` word for word into the new lib/parse.js
    as `exports.update`: the file moved in two commits (git pairs the two files across both,
    so a file-rename, as a whole file moved in one commit is). That path had been
    lib/api/parse.js's before it was renamed away (525a1dfd): a file renamed away is not a
    deleted one written back."""
    r = Repo(tmp_path / "r")
    r.write("lib/parse.js", UPDATE.format(qualifier=""))
    born = r.commit("parse")
    (r.path / "lib/parse.js").unlink()
    r.write("lib/api/parse.js", UPDATE.format(qualifier=".parse"))
    refactored = r.commit("Refactored the entire lib")
    r.write(
        "lib/api/parse.js", UPDATE.format(qualifier=".parse").replace("arr = [arr]", "arr = [a]")
    )
    edited = r.commit("edit")
    r.git("rm", "-q", "lib/api/parse.js")
    r.write("lib/cheerio.js", "var x = 1;\n")
    r.commit("manipulate now works")
    r.write("lib/parse.js", UPDATE.format(qualifier="").replace("arr = [arr]", "arr = [a]"))
    moved = r.commit("moved parse")
    history = symbol_history(r.path, "lib/parse.js", "exports.update")
    assert changes(history.commits) == [
        (moved, ("rename", "file-rename")),
        (edited, ("body",)),
        (refactored, ("rename", "file-rename")),
        (born, ("introduced",)),
    ]
    assert history.commits[1].path == "lib/api/parse.js"


def test_a_function_of_a_deleted_file_written_among_much_else_the_next_commit(
    tmp_path: Path,
) -> None:
    """The same two commits, but the new file holds much else beside the function: git does
    not pair the two files, so the function moved (not its file)."""
    r = Repo(tmp_path / "r")
    r.write("lib/api/parse.js", UPDATE.format(qualifier=".parse"))
    born = r.commit("parse")
    r.git("rm", "-q", "lib/api/parse.js")
    r.write("lib/cheerio.js", "var x = 1;\n")
    r.commit("manipulate now works")
    others = "".join(
        f"exports.step{index} = function(node, depth) {{\n"
        f"  node.weight = {index} * node.weight + depth;\n"
        f"  return render(node, 'step {index}', depth + {index});\n"
        "};\n"
        for index in range(12)
    )
    r.write("lib/dom.js", others + UPDATE.format(qualifier=""))
    moved = r.commit("moved parse into dom")
    history = symbol_history(r.path, "lib/dom.js", "exports.update")
    assert changes(history.commits) == [
        (moved, ("rename", "move")),
        (born, ("introduced",)),
    ]


EXECUTOR = "package redis.clients.jedis{package};\n\npublic class {cls} {{\n{methods}}}\n"
HANDLE = (
    "    private synchronized <T> T handleClusterFailover(CommandObject<T> commandObject,\n"
    "        CircuitBreaker circuitBreaker) {\n"
    "        Cluster cluster = provider.getCluster();\n"
    "        if (cluster.getCircuitBreaker().getState() == State.OPEN) {\n"
    "            provider.iterateActiveCluster();\n"
    "            cluster.incrementFailovers();\n"
    "        }\n"
    "        return executeCommand(commandObject);\n"
    "    }\n"
)
FAILOVER = (
    "    protected synchronized void clusterFailover(CircuitBreaker circuitBreaker) {\n"
    "        Cluster cluster = provider.getCluster();\n"
    "        if (cluster.getCircuitBreaker().getState() == State.OPEN) {\n"
    "            provider.iterateActiveCluster();\n"
    "            cluster.incrementFailovers();\n"
    "        }\n"
    "    }\n"
)
WRAPPER = (
    "    private <T> T handleClusterFailover(CommandObject<T> commandObject,\n"
    "        CircuitBreaker circuitBreaker) {\n"
    "        clusterFailover(circuitBreaker);\n"
    "        return executeCommand(commandObject);\n"
    "    }\n"
)
SHARED = "".join(
    f"    protected void step{index}(Cluster cluster) {{\n"
    f"        cluster.setWeight({index} * cluster.getWeight() + {index});\n"
    f'        provider.notify(cluster, "step {index}");\n'
    "    }\n"
    for index in range(6)
)
EXECUTE = (
    "    public <T> T executeCommand(CommandObject<T> commandObject) {\n"
    "        return connection.executeCommand(commandObject);\n"
    "    }\n"
)


def test_a_method_made_out_of_one_that_went_on_in_another_file(tmp_path: Path) -> None:
    """jedis's 0d772988 renamed CircuitBreakerCommandExecutor.java (git pairs it at 53%) to
    CircuitBreakerFailoverBase.java, where `handleClusterFailover` became `clusterFailover`,
    and moved the class to a new file with a `handleClusterFailover` that calls it: the old
    method went on there, and `clusterFailover` was made out of it, introduced."""
    r = Repo(tmp_path / "r")
    old = "src/main/java/redis/clients/jedis/executors/CircuitBreakerCommandExecutor.java"
    r.write(
        old,
        EXECUTOR.format(
            package=".executors",
            cls="CircuitBreakerCommandExecutor",
            methods=HANDLE + SHARED + EXECUTE,
        ),
    )
    born = r.commit("circuit breaker")
    (r.path / old).unlink()
    base = old.replace("executors/CircuitBreakerCommandExecutor", "FailoverBase")
    r.write(base, EXECUTOR.format(package="", cls="FailoverBase", methods=FAILOVER + SHARED))
    moved = old.replace("executors/", "activeactive/")
    r.write(
        moved,
        EXECUTOR.format(
            package=".activeactive",
            cls="CircuitBreakerCommandExecutor",
            methods=WRAPPER + EXECUTE,
        ),
    )
    split = r.commit("active-active")
    history = symbol_history(r.path, base, "FailoverBase.clusterFailover")
    assert changes(history.commits) == [(split, ("introduced",))]
    history = symbol_history(r.path, moved, "CircuitBreakerCommandExecutor.handleClusterFailover")
    assert [sha for sha, _ in changes(history.commits)] == [split, born]


def test_a_path_renamed_away_then_added_again_is_not_written_back(tmp_path: Path) -> None:
    """A file renamed away lived on under its new name: a file added later at its old path,
    with a copy of one of its functions, starts that function's history there."""
    r = Repo(tmp_path / "r")
    r.write("lib/parse.js", UPDATE.format(qualifier=""))
    r.commit("parse")
    (r.path / "lib/parse.js").unlink()
    r.write("lib/api/parse.js", UPDATE.format(qualifier=""))
    r.commit("into api/")
    r.write("README.md", "parse\n")
    r.commit("readme")
    r.write("lib/parse.js", UPDATE.format(qualifier=""))
    copied = r.commit("a copy for the old path")
    history = symbol_history(r.path, "lib/parse.js", "exports.update")
    assert changes(history.commits) == [(copied, ("introduced",))]
