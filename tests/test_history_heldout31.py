"""`tether history`: cases the thirty-first held-out accuracy round found (bench/anchors/truth,
`held_out_round: 31`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

CACHE = (
    "def {name}(cache, key={key}, lock=None):\n"
    '    """Decorator to wrap a function with a memoizing callable."""\n'
    "    def decorator(func):\n"
    "        def wrapper(*args, **kwargs):\n"
    "            k = key(*args, **kwargs)\n"
    "            try:\n"
    "                return cache[k]\n"
    "            except KeyError:\n"
    "                pass\n"
    "            v = func(*args, **kwargs)\n"
    "            cache[k] = v\n"
    "            return v\n"
    "        return {update}(wrapper, func)\n"
    "    return decorator\n"
)


def test_a_rename_to_the_name_of_a_parameter(tmp_path: Path) -> None:
    """cachetools' b6bc350 renamed `def cache(cache, key=hashkey, lock=None)` to `def
    cached(cache, ...)`: the old name, read as the own, was also the parameter's, so the
    declarations differed. Read with both names as the own, they do not: a rename (and the
    body's change), no signature change."""
    r = Repo(tmp_path / "r")
    r.write(
        "cachetools/__init__.py",
        CACHE.format(name="cache", key="hashkey", update="functools.update_wrapper"),
    )
    born = r.commit("cache")
    r.write(
        "cachetools/__init__.py",
        CACHE.format(name="cached", key="hashkey", update="_update_wrapper"),
    )
    renamed = r.commit("Code/interface cleanup")
    history = symbol_history(r.path, "cachetools/__init__.py", "cached")
    assert changes(history.commits) == [
        (renamed, ("body", "rename")),
        (born, ("introduced",)),
    ]


def test_a_definition_written_in_place_of_its_import(tmp_path: Path) -> None:
    """cachetools' 1a4d59a wrote `cache` into `__init__.py` in place of `from .decorators
    import cache, cachedmethod`, the default key changed; decorators.py, unused from then on,
    was deleted later. The history goes on in decorators.py, a move; the copy left there keeps
    its own."""
    r = Repo(tmp_path / "r")
    r.write(
        "cachetools/decorators.py",
        "import functools\n\n\n"
        + CACHE.format(name="cache", key="cachekey", update="functools.update_wrapper"),
    )
    r.write(
        "cachetools/__init__.py",
        '"""Extensible memoizing collections and decorators"""\n\n'
        "from .decorators import cache, cachedmethod\n"
        "from .lru import LRUCache\n\n"
        "__all__ = ('LRUCache', 'cache', 'cachedmethod')\n",
    )
    born = r.commit("Add generic @cache decorator")
    r.write(
        "cachetools/__init__.py",
        '"""Extensible memoizing collections and decorators"""\n\n'
        "import functools\n\n"
        "from .lru import LRUCache\n\n"
        "__all__ = ('LRUCache', 'cache', 'cachedmethod')\n\n\n"
        + CACHE.format(name="cache", key="hashkey", update="functools.update_wrapper"),
    )
    moved = r.commit("Save hash value for decorator keys")
    r.git("rm", "-q", "cachetools/decorators.py")
    r.commit("Remove unused decorators.py")
    history = symbol_history(r.path, "cachetools/__init__.py", "cache")
    assert changes(history.commits) == [
        (moved, ("signature", "move")),
        (born, ("introduced",)),
    ]
    assert history.commits[1].path == "cachetools/decorators.py"


def test_a_like_definition_beside_an_import_that_stays_is_new(tmp_path: Path) -> None:
    """A file that keeps importing other names of the module and writes its own function of
    a name it never imported: new code, however like one there."""
    r = Repo(tmp_path / "r")
    r.write(
        "cachetools/decorators.py",
        CACHE.format(name="cache", key="cachekey", update="functools.update_wrapper"),
    )
    r.write("cachetools/__init__.py", "from .decorators import cachedmethod\n")
    r.commit("Add generic @cache decorator")
    r.write(
        "cachetools/__init__.py",
        "from .decorators import cachedmethod\n\n\n"
        + CACHE.format(name="cache", key="hashkey", update="functools.update_wrapper"),
    )
    written = r.commit("cache of its own")
    history = symbol_history(r.path, "cachetools/__init__.py", "cache")
    assert changes(history.commits) == [(written, ("introduced",))]


OBJECT_JS = (
    "inherits(ObjectSchema, MixedSchema, {\n"
    "  pick(keys) {\n"
    "    const picked = {};\n"
    "    for (const key of keys) {\n"
    "      if (this.fields[key]) picked[key] = this.fields[key];\n"
    "    }\n"
    "    return this.clone().withMutation(next => next.setFields(picked));\n"
    "  },\n"
    "});\n"
)
OBJECT_TS = (
    "export default class ObjectSchema extends BaseSchema {\n"
    "  pick(keys: string[]): ObjectSchema {\n"
    "    const picked: Record<string, unknown> = {};\n"
    "    for (const key of keys) {\n"
    "      if (this.fields[key]) picked[key] = this.fields[key];\n"
    "    }\n"
    "    return this.clone().withMutation((next) => next.setFields(picked));\n"
    "  }\n"
    "\n"
    "  describe() {\n"
    "    const base = super.describe();\n"
    "    base.fields = Object.keys(this.fields).map((key) => this.fields[key].describe());\n"
    "    return base;\n"
    "  }\n"
    "}\n"
)


def test_a_javascript_file_rewritten_as_typescript(tmp_path: Path) -> None:
    """yup's b97c39d deleted src/object.js and added src/object.ts, its `inherits(...)`
    methods written as a class's, too rewritten for git to pair the files: the file was
    converted, a file-rename (with the method's rename, to the class's qualifier)."""
    r = Repo(tmp_path / "r")
    r.write("src/object.js", OBJECT_JS)
    r.write("src/mixed.js", "export default function MixedSchema() {}\n")
    born = r.commit("object")
    r.git("rm", "-q", "src/object.js")
    r.write("src/object.ts", OBJECT_TS)
    converted = r.commit("feat: typescript support")
    history = symbol_history(r.path, "src/object.ts", "ObjectSchema.pick")
    assert [sha for sha, _ in changes(history.commits)] == [converted, born]
    assert "file-rename" in history.commits[0].changes
    assert "move" not in history.commits[0].changes
    assert history.commits[1].path == "src/object.js"
