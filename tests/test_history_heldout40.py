"""`tether history`: cases the fortieth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 40`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

LINKED = (
    "package pgconn\n\n"
    'import "errors"\n\n'
    "// linkedError connects two errors as if err wrapped next.\n"
    "type linkedError struct {{\n\terr  error\n\tnext error\n}}\n\n"
    "func (le *linkedError) Error() string {{\n\treturn {body}\n}}\n\n"
    "func (le *linkedError) Is(target error) bool {{\n\treturn errors.Is(le.err, target)\n}}\n\n"
    "func (le *linkedError) Unwrap() error {{\n\treturn le.next\n}}\n"
)

REFACTORED = (
    "package pgconn\n\n"
    'import "fmt"\n\n'
    "type connLockError struct {\n\tstatus string\n}\n\n"
    "func (e *connLockError) Error() string {\n\treturn e.status\n}\n\n"
    "type writeError struct {\n\terr         error\n\tsafeToRetry bool\n}\n\n"
    "func (e *writeError) Error() string {\n"
    '\treturn fmt.Sprintf("write failed: %s", e.err.Error())\n}\n\n'
    "type contextAlreadyDoneError struct {\n\terr error\n}\n\n"
    "func (e *contextAlreadyDoneError) Error() string {\n"
    '\treturn fmt.Sprintf("context already done: %s", e.err.Error())\n}\n'
)


def test_one_of_several_namesakes_written_in_place_of_a_type(tmp_path: Path) -> None:
    """pgx's 138254da ("Refactor errors") deleted the type `linkedError` and wrote several error
    types in its place, each with an `Error` method about as like the old one-line
    `linkedError.Error`: the name tells none of them apart, and the new `writeError.Error` is
    new, not the old one renamed."""
    r = Repo(tmp_path / "r")
    r.write("errors.go", LINKED.format(body="le.err.Error()"))
    r.commit("link errors")
    r.write("errors.go", LINKED.format(body="le.next.Error()"))
    r.commit("outer error")
    r.write("errors.go", REFACTORED)
    refactored = r.commit("Refactor errors")
    history = symbol_history(r.path, "errors.go", "writeError.Error")
    assert changes(history.commits) == [(refactored, ("introduced",))]


def test_a_type_renamed_with_its_namesake_method(tmp_path: Path) -> None:
    """Where one definition of the name appeared, the name is still the evidence: the
    type renamed, its `Error` rewritten, is the old `Error`."""
    r = Repo(tmp_path / "r")
    r.write("errors.go", LINKED.format(body="le.err.Error()"))
    born = r.commit("link errors")
    r.write(
        "errors.go",
        'package pgconn\n\nimport "fmt"\n\n'
        "type writeError struct {\n\terr         error\n\tsafeToRetry bool\n}\n\n"
        "func (e *writeError) Error() string {\n"
        '\treturn fmt.Sprintf("write failed: %s", e.err.Error())\n}\n',
    )
    renamed = r.commit("write errors")
    history = symbol_history(r.path, "errors.go", "writeError.Error")
    assert changes(history.commits)[0][0] == renamed
    assert changes(history.commits)[-1] == (born, ("introduced",))


CORESTATS = (
    "import datetime\n\n\n"
    "class CoreStats:\n"
    "    def __init__(self, stats):\n"
    "        self.stats = stats\n\n"
    "    def {name}(self, spider, reason):\n"
    "        self.stats.set_value('finish_time', datetime.datetime.utcnow(), spider=spider)\n"
    "        self.stats.set_value('finish_reason', reason, spider=spider)\n"
)

TEST_STATS = (
    "class StatsCollectorTest:\n"
    "    def test_collector(self):\n"
    "        assert self.stats.get_value('anything') is None\n\n"
    "    def test_signals(self):\n"
    "        def spider_closed(spider, reason, spider_stats):\n"
    "            assert spider is self.spider\n"
    "            assert reason == 'testing'\n"
    "            assert spider_stats == {'test': 1}\n"
    "            signals_catched.add(stats_spider_closed)\n\n"
    "        self.crawler.signals.connect(spider_closed, signal=stats_spider_closed)\n"
    "        self.stats.close_spider(self.spider, 'testing')\n"
)


def test_a_rename_in_place_beats_a_namesake_that_left_a_test(tmp_path: Path) -> None:
    """scrapy's 81ed2d2d renamed `CoreStats.stats_spider_closing` to `spider_closed`, its body
    unchanged, and deleted a test holding a nested `spider_closed` made of asserts: the walk
    took that one for the method moved here, and followed the test's history."""
    r = Repo(tmp_path / "r")
    r.write("scrapy/corestats.py", CORESTATS.format(name="stats_spider_closing"))
    r.write("tests/test_stats.py", TEST_STATS)
    born = r.commit("core stats")
    r.write("scrapy/corestats.py", CORESTATS.format(name="spider_closed"))
    r.write("tests/test_stats.py", TEST_STATS.split("    def test_signals")[0])
    renamed = r.commit("major Stats Collection refactoring")
    history = symbol_history(r.path, "scrapy/corestats.py", "CoreStats.spider_closed")
    assert changes(history.commits) == [(renamed, ("rename",)), (born, ("introduced",))]


def test_copies_of_a_method_written_into_two_classes_share_its_past(tmp_path: Path) -> None:
    """walkdir's trait method `WalkDirIterator.filter_entry` went word for word into two impls,
    `IntoIter` and `FilterEntry`: both copies are as like it, and (copies, REPLACED_SIMILARITY
    alike) share its past rather than neither having it."""
    method = (
        "    def filter_entry(self, predicate):\n"
        "        entries = [entry for entry in self.walk() if predicate(entry)]\n"
        "        return FilterEntry(iter(entries), predicate)\n"
    )
    r = Repo(tmp_path / "r")
    r.write("walk.py", "class WalkDirIterator:\n" + method)
    born = r.commit("filter entries")
    r.write("walk.py", "class IntoIter:\n" + method + "\n\nclass FilterEntry:\n" + method)
    split = r.commit("no trait")
    history = symbol_history(r.path, "walk.py", "IntoIter.filter_entry")
    assert changes(history.commits) == [(split, ("rename",)), (born, ("introduced",))]
