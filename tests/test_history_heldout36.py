"""`tether history`: cases the thirty-sixth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 36`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

WEEKS = (
    "import {{ isLeapYear, daysInYear }} from './util';\n\n"
    "export class {cls} {{\n"
    "  static {name}(weekData) {{\n"
    "    const {{ weekYear, weekNumber, weekday }} = weekData;\n"
    "    const weekdayOfJan4 = dayOfWeek(weekYear, 1, 4);\n"
    "    const yearInDays = daysInYear(weekYear);\n"
    "    let ordinal = weekNumber * 7 + weekday - weekdayOfJan4 - 3, year;\n"
    "    if (ordinal < 1) {{\n"
    "      year = weekYear - 1;\n"
    "      ordinal += daysInYear(year);\n"
    "    }} else if (ordinal > yearInDays) {{\n"
    "      year = weekYear + 1;\n"
    "      ordinal -= daysInYear(weekYear);\n"
    "    }} else {{\n"
    "      year = weekYear;\n"
    "    }}\n"
    "    return {last};\n"
    "  }}\n"
    "}}\n"
)


def test_a_file_renamed_in_two_commits_with_its_method(tmp_path: Path) -> None:
    """luxon's c0299464 deleted weeks.js, and the next commit, 9823db63 ("add missing file"),
    added conversions.js, which git pairs with it across the two commits: `Weeks.toGregorian`
    is `Conversions.weekToGregorian` there (0.89 alike). The search for a file moved in two
    commits looked only for the symbol's own name in the deleted files."""
    r = Repo(tmp_path / "r")
    r.write(
        "src/impl/weeks.js",
        WEEKS.format(cls="Weeks", name="toGregorian", last="ordinalToGregorian(year, ordinal)"),
    )
    born = r.commit("weeks")
    r.git("rm", "-q", "src/impl/weeks.js")
    r.write("src/datetime.js", "import { Conversions } from './impl/conversions';\n")
    r.commit("use conversions")
    r.write(
        "src/impl/conversions.js",
        WEEKS.format(
            cls="Conversions",
            name="weekToGregorian",
            last="Object.assign({ year }, uncomputeOrdinal(year, ordinal))",
        ),
    )
    added = r.commit("add missing file")
    history = symbol_history(r.path, "src/impl/conversions.js", "Conversions.weekToGregorian")
    assert changes(history.commits) == [
        (added, ("body", "rename", "file-rename")),
        (born, ("introduced",)),
    ]
    assert history.commits[1].symbol == "Weeks.toGregorian"
