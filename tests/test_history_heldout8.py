"""`tether history`: cases the eighth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 8`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

ABSTRACT = (
    "class {name}{base}:\n"
    "    def matches(self, scope):\n"
    "        raise NotImplementedError()\n"
    "\n"
    "    def __call__(self, scope):\n"
    "        raise NotImplementedError()\n"
)

CONCRETE = (
    "class {name}({base}):\n"
    "    def __init__(self, path, app, methods=()):\n"
    "        self.path = path\n"
    "        self.app = app\n"
    "        self.methods = methods\n"
    "\n"
    "    def __call__(self, scope):\n"
    "        if self.methods and scope['method'] not in self.methods:\n"
    "            return PlainTextResponse('Method Not Allowed', status_code={status})\n"
    "        return self.app(scope)\n"
)


def _routing(abstract: str, concrete: str, base: str, status: int) -> str:
    return (
        ABSTRACT.format(name=abstract, base=base)
        + "\n\n"
        + CONCRETE.format(name=concrete, base=abstract, status=status)
    )


def test_names_passed_on_in_one_commit(tmp_path: Path) -> None:
    """starlette `Route.handle`: one commit renamed the abstract base `Route` to `BaseRoute` and
    the concrete `Path(Route)` to `Route(BaseRoute)`. The method `Route.__call__` after it is
    `Path.__call__` before it (the same code), not the base's `raise NotImplementedError()`
    that had its name: the history continues into `Path.__call__`."""
    r = Repo(tmp_path / "r")
    r.write("routing.py", _routing("Route", "Path", "", 406))
    born = r.commit("Route and Path")
    r.write("routing.py", _routing("Route", "Path", "", 405))
    edited = r.commit("405 for a method not allowed")
    r.write("routing.py", _routing("BaseRoute", "Route", "", 405))
    renamed = r.commit("routing interface: Path is Route, Route is BaseRoute")
    history = symbol_history(r.path, "routing.py", "Route.__call__")
    assert [e.commit for e in history.commits] == [renamed, edited, born]
    assert "rename" in history.commits[0].changes
    assert (history.commits[1].path, history.commits[1].symbol) == ("routing.py", "Path.__call__")

    # A namesake rewritten in place stays the symbol's past, however unlike: nothing else
    # that vanished is like the new code.
    q = Repo(tmp_path / "q")
    q.write("routing.py", ABSTRACT.format(name="Route", base=""))
    first = q.commit("abstract route")
    q.write("routing.py", CONCRETE.format(name="Route", base="object", status=405))
    rewritten = q.commit("a concrete route")
    history = symbol_history(q.path, "routing.py", "Route.__call__")
    assert changes(history.commits)[0][0] == rewritten
    assert [e.commit for e in history.commits] == [rewritten, first]


POOLS_BEFORE = (
    "class ThreadLocalRecyclerPool:\n"
    "    def acquire_buffer_recycler(self, factory):\n"
    "        return get_buffer_recycler()\n"
    "\n"
    "    def release_buffer_recycler(self, recycler):\n"
    "        pass\n"
    "\n"
    "\n"
    "def get_buffer_recycler():\n"
    "    return _local.recycler or BufferRecycler()\n"
)

POOLS_AFTER = "def get_buffer_recycler():\n    return _local.recycler or BufferRecycler()\n"

POOL_AFTER = (
    "class ThreadLocalPool(BufferRecyclerPool):\n"
    "    def acquire_buffer_recycler(self):\n"
    "        return recyclers.get_buffer_recycler()\n"
    "\n"
    "\n"
    "class LockFreePool(BufferRecyclerPool):\n"
    "    def acquire_buffer_recycler(self):\n"
    "        return self._get_recycler().with_pool(self)\n"
    "\n"
    "    def _get_recycler(self):\n"
    "        for attempt in range(3):\n"
    "            head = self.head.get()\n"
    "            if head is None:\n"
    "                return BufferRecycler()\n"
    "        return BufferRecycler()\n"
)


def test_a_moved_method_goes_to_the_namesake_most_like_it(tmp_path: Path) -> None:
    """jackson-core `LockFreePoolBase.acquirePooled`: one commit moved a pool class with its
    method `acquireBufferRecycler` into another file under a new class name, and wrote more
    pool classes there with a method of the same name. The moved method is the new
    `ThreadLocalPool`'s (most like it); `LockFreePool`'s, also alike enough to pass for a
    move of a method of its name, is new."""
    r = Repo(tmp_path / "r")
    r.write("pools.py", POOLS_BEFORE)
    r.write("pool.py", "class BufferRecyclerPool:\n    def acquire_and_link(self):\n        pass\n")
    born = r.commit("thread-local pool")
    r.write("pools.py", POOLS_AFTER)
    r.write(
        "pool.py",
        "class BufferRecyclerPool:\n    def acquire_and_link(self):\n        pass\n\n\n"
        + POOL_AFTER,
    )
    moved = r.commit("introducing BufferRecyclerPool")
    history = symbol_history(r.path, "pool.py", "LockFreePool.acquire_buffer_recycler")
    assert changes(history.commits) == [(moved, ("introduced",))]
    history = symbol_history(r.path, "pool.py", "ThreadLocalPool.acquire_buffer_recycler")
    assert [e.commit for e in history.commits] == [moved, born]
    assert "move" in history.commits[0].changes


OPTIONS = (
    "def process_define_options(node):\n"
    "    if not is_call_of(node, DEFINE_OPTIONS):\n"
    "        return False\n"
    "    if has_define_options_call:\n"
    "        error(f'duplicate {DEFINE_OPTIONS}() call', node)\n"
    "    has_define_options_call = True\n"
    "    options_runtime_decl = node.arguments[0]\n"
    "    options_type_decl = node.type_parameters\n"
    "    props_type_decl = options_type_decl.props\n"
    "    emit_type_decl = options_type_decl.emit\n"
    "    return True\n"
)

PROPS = (
    "def process_define_props(node):\n"
    "    if not is_call_of(node, DEFINE_PROPS):\n"
    "        return False\n"
    "    if has_define_props_call:\n"
    "        error(f'duplicate {DEFINE_PROPS}() call', node)\n"
    "    has_define_props_call = True\n"
    "    props_runtime_decl = node.arguments[0]\n"
    "    props_type_decl = node.type_parameters\n"
    "    return True\n"
)

EMIT = (
    "def process_define_emit(node):\n"
    "    if not is_call_of(node, DEFINE_EMIT):\n"
    "        return False\n"
    "    if has_define_emit_call:\n"
    "        error(f'duplicate {DEFINE_EMIT}() call', node)\n"
    "    emit_type_decl = node.type_parameters\n"
    "    return True\n"
)


def test_a_split_whose_parts_share_the_declaration_line(tmp_path: Path) -> None:
    """vue `processDefineEmits`: `processDefineOptions` was split into `processDefineProps`
    and `processDefineEmit`, both declared `function processDefineX(node: Node): boolean {`,
    so the old declaration line, renamed, is a line of each. That line tells nothing: the part
    most like the old function (props) is its later name, and the other part is new."""
    r = Repo(tmp_path / "r")
    r.write("script.py", OPTIONS + "\n\ndef walk(node):\n    process_define_options(node)\n")
    born = r.commit("defineOptions")
    r.write(
        "script.py",
        PROPS
        + "\n\n"
        + EMIT
        + "\n\ndef walk(node):\n    process_define_props(node) or process_define_emit(node)\n",
    )
    split = r.commit("defineOptions -> defineProps + defineEmit")
    history = symbol_history(r.path, "script.py", "process_define_emit")
    assert changes(history.commits) == [(split, ("introduced",))]
    history = symbol_history(r.path, "script.py", "process_define_props")
    assert [e.commit for e in history.commits] == [split, born]
    assert "rename" in history.commits[0].changes


def test_renames_declared_alike_in_one_commit(tmp_path: Path) -> None:
    """gin `Context.GetQuery` (third round), kept right by the rule above: one commit renamed
    `form_value` to `query` (and changed its body) and `post_form_value` to `post_form`, both
    declared alike. `form_value`'s declaration renamed reads as `post_form`'s too, but that line
    is `post_form_value`'s: `query` is still `form_value` renamed."""
    r = Repo(tmp_path / "r")
    form = (
        "class Context:\n"
        "    def form_value(self, key):\n"
        "        req = self.request\n"
        "        values = req.form.get(key)\n"
        "        if values:\n"
        "            return values[0], True\n"
        "        return '', False\n"
        "\n"
        "    def post_form_value(self, key):\n"
        "        req = self.request\n"
        "        values = req.post_form.get(key)\n"
        "        if values:\n"
        "            return values[0], True\n"
        "        return '', False\n"
    )
    r.write("context.py", form)
    born = r.commit("form values")
    renamed = (
        form.replace("def form_value", "def query")
        .replace("req.form.get(key)", "req.url.query().get(key)")
        .replace("def post_form_value", "def post_form")
    )
    r.write("context.py", renamed)
    commit = r.commit("renames new API for query and postform")
    history = symbol_history(r.path, "context.py", "Context.query")
    assert [e.commit for e in history.commits] == [commit, born]
    assert "rename" in history.commits[0].changes


def test_a_method_that_took_in_a_helper_keeps_its_name(tmp_path: Path) -> None:
    """jackson-core `LockFreePool.acquireBufferRecycler`: a commit inlined the helper
    `_get_recycler` into it and moved its old one-line body (`return
    self._get_recycler().with_pool(self)`) to a new method of the base class. The method is
    a change under its own name, not `_get_recycler` renamed: only names passed along with
    their classes (the rule above) make a namesake not the symbol's past."""
    r = Repo(tmp_path / "r")
    loop = (
        "        for attempt in range(3):\n"
        "            head = self.head.get()\n"
        "            if head is None:\n"
        "                return BufferRecycler()\n"
        "            if self.head.compare_and_set(head, head.next):\n"
        "                return head.value\n"
        "        return BufferRecycler()\n"
    )
    r.write(
        "pool.py",
        "class Pool:\n    def release(self, recycler):\n        pass\n\n\n"
        "class LockFreePool(Pool):\n"
        "    def acquire(self):\n        return self._get_recycler().with_pool(self)\n\n"
        "    def _get_recycler(self):\n" + loop,
    )
    born = r.commit("lock-free pool")
    r.write(
        "pool.py",
        "class Pool:\n    def release(self, recycler):\n        pass\n\n"
        "    def acquire_and_link(self):\n        return self.acquire().with_pool(self)\n\n\n"
        "class LockFreePool(Pool):\n"
        "    def acquire(self):\n" + loop,
    )
    inlined = r.commit("external pool pluggability")
    history = symbol_history(r.path, "pool.py", "LockFreePool.acquire")
    assert changes(history.commits) == [(inlined, ("body",)), (born, ("introduced",))]


def test_parallel_renames_beside_a_new_helper(tmp_path: Path) -> None:
    """zod `ZodNumber.setLimit` (first round), kept right by the rules above: `min` and `max`,
    declared alike, became `gte` and `lte`, thin wrappers of the new `set_limit`, which took
    their bodies. `min`'s declaration renamed reads as `gte`'s (and as `lte`'s, as `max`'s
    does): that line still says `min` became one of them, not `set_limit`, which is new."""
    r = Repo(tmp_path / "r")
    check = (
        "        return self._add_check(\n"
        "            {{'kind': {kind}, 'value': value, 'inclusive': {inclusive},\n"
        "             'message': to_string(message)}}\n"
        "        )\n"
    )
    r.write(
        "number.py",
        "class ZodNumber:\n"
        "    def min(self, value, message=None):\n"
        + check.format(kind="'min'", inclusive="True")
        + "\n    def max(self, value, message=None):\n"
        + check.format(kind="'max'", inclusive="True"),
    )
    r.commit("min and max")
    r.write(
        "number.py",
        "class ZodNumber:\n"
        "    def gte(self, value, message=None):\n"
        "        return self.set_limit('min', value, True, message)\n"
        "\n    def lte(self, value, message=None):\n"
        "        return self.set_limit('max', value, True, message)\n"
        "\n    def set_limit(self, kind, value, inclusive, message):\n"
        + check.format(kind="kind", inclusive="inclusive"),
    )
    limits = r.commit("gt, gte, lt, lte")
    history = symbol_history(r.path, "number.py", "ZodNumber.set_limit")
    assert changes(history.commits) == [(limits, ("introduced",))]


FLOW = (
    "/* @flow */\n"
    "import type {{ Context }} from './context';\n"
    "import {{ invariant }} from './invariant';\n"
    "\n"
    "export function completeValue(ctx: Context, value: mixed, path: Array<string>): ?string {{\n"
    "  if (value == null) {{\n"
    "    return {empty};\n"
    "  }}\n"
    "  return String(value);\n"
    "}}\n"
    "\n"
    "function resolveField(ctx: Context, name: string): mixed {{\n"
    "  const field = ctx.fields[name];\n"
    "  invariant(field, 'no field');\n"
    "  return field.resolve(ctx);\n"
    "}}\n"
)


def test_a_history_through_flow_typed_javascript(tmp_path: Path) -> None:
    """graphql-js: until 2021 its sources were JavaScript with Flow's type annotations, which
    JavaScript's grammar cannot read (here it gives up from the first annotated function on:
    no definitions), then renamed to TypeScript. The history of a function goes on through
    the Flow versions, read with TypeScript's grammar, to where it was written."""
    r = Repo(tmp_path / "r")
    r.write("src/execute.js", FLOW.format(empty="null"))
    born = r.commit("execute")
    r.write("src/execute.js", FLOW.format(empty="undefined"))
    edited = r.commit("undefined for null")
    r.write("src/execute.js", FLOW.format(empty="undefined") + "\nexport const x = 1;\n")
    r.commit("another export")
    r.git("mv", "src/execute.js", "src/execute.ts")
    r.write(
        "src/execute.ts",
        FLOW.format(empty="undefined").replace("/* @flow */\n", "").replace("?string", "string"),
    )
    converted = r.commit("migrate to TypeScript")
    history = symbol_history(r.path, "src/execute.ts", "completeValue")
    assert [e.commit for e in history.commits] == [converted, edited, born]
    assert history.commits[-1].changes == ("introduced",)
    assert history.commits[1].path == "src/execute.js"


def test_a_merge_that_changed_a_branch_definition_the_mainline_never_had(tmp_path: Path) -> None:
    """graphql-js `buildFieldMap` (a supplement to the eighth round): a branch added a method
    and changed it; the merge into a mainline that never had it changed it again (it differs
    from both parents). The merge is a change of the symbol, as any merge that is no parent's
    version of it."""
    r = Repo(tmp_path / "r")
    r.write("lib.py", "def main():\n    return 1\n")
    r.commit("main")
    r.git("checkout", "-q", "-b", "feature")
    r.write("lib.py", "def main():\n    return 1\n\n\ndef helper(x):\n    return x + 1\n")
    added = r.commit("helper")
    r.write("lib.py", "def main():\n    return 1\n\n\ndef helper(x):\n    return x + 2\n")
    edited = r.commit("helper: two")
    r.git("checkout", "-q", "-")
    r.write("other.py", "def other():\n    return 0\n")
    r.commit("other")
    r.git("merge", "-q", "--no-commit", "--no-ff", "feature")
    r.write("lib.py", "def main():\n    return 1\n\n\ndef helper(x):\n    return x + 3\n")
    r.git("add", "-A")
    r.git("commit", "-q", "-m", "merge feature, helper three")
    merged = r.git("rev-parse", "HEAD")
    history = symbol_history(r.path, "lib.py", "helper")
    assert [e.commit for e in history.commits] == [merged, edited, added]
