"""`tether history`: the move search reads only the files whose text can hold where the symbol
came from (`Walker._cannot_hold`, `Walker._may_have_taken`, `still_kept` in `moved_from`), and
finds the same origins as reading every file would. Walked the three ways of tests/test_history."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchors import history_walk
from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)


def _module(count: int, changed: int = -1) -> str:
    """A module of `count` small functions, big enough for the text checks to be asked."""
    parts = []
    for index in range(count):
        step = index + 1 if index != changed else index + 2
        parts.append(
            f"def helper_{index}(rows, limit):\n"
            f"    picked = [row for row in rows if row.weight > {step}]\n"
            "    picked.sort(key=lambda row: row.weight)\n"
            f"    return picked[:limit] + [{index}]\n"
        )
    return "\n\n".join(parts)


TOTALS = (
    "def {name}(orders, currency):\n"
    "    grand = 0\n"
    "    for order in orders:\n"
    "        if order.currency != currency:\n"
    "            converted = exchange(order.amount, order.currency, currency)\n"
    "        else:\n"
    "            converted = order.amount\n"
    "        grand += converted - order.discount\n"
    "    return round(grand, 2)\n"
)


@pytest.mark.parametrize("renamed", [False, True])
def test_a_function_moved_out_of_big_modules_is_found(tmp_path: Path, renamed: bool) -> None:
    """A function moved from one big module into another (under its own name, or under a new
    one, found by its words), in a commit that also changed two other big modules: its history
    goes on in the module it left."""
    name = "sum_totals" if renamed else "compute_totals"
    r = Repo(tmp_path / "r")
    r.write("billing.py", _module(120) + "\n\n" + TOTALS.format(name="compute_totals"))
    r.write("reports.py", _module(90))
    r.write("ledger.py", "def post(entry):\n    return entry\n")
    born = r.commit("billing")
    assert len((r.path / "billing.py").read_bytes()) >= history_walk.MOVE_DIFF_BYTES
    r.write("billing.py", _module(120, changed=7))
    r.write("reports.py", _module(90, changed=3))
    # (Under a new name, also one line changed: found by most, not all, of its words.)
    totals = TOTALS.format(name=name)
    if renamed:
        totals = totals.replace("round(grand, 2)", "Decimal(grand).quantize(CENTS)")
    r.write("ledger.py", "def post(entry):\n    return entry\n\n\n" + totals)
    moved = r.commit("totals belong to the ledger")
    history = symbol_history(r.path, "ledger.py", name)
    kinds = {"move", "rename", "body"} if renamed else {"move"}
    assert [(sha, set(k)) for sha, k in changes(history.commits)] == [
        (moved, kinds),
        (born, {"introduced"}),
    ]
    assert history.commits[-1].path == "billing.py"


def test_a_function_whose_body_went_elsewhere_is_not_taken_for_a_move(tmp_path: Path) -> None:
    """A function of another name that vanished from a big module, whose code went whole into a
    new function of another file of the commit, became that one (`became_another`, which now
    reads only the files whose added text holds enough of its words): the symbol beside it,
    less like it, is new."""
    r = Repo(tmp_path / "r")
    r.write("billing.py", _module(120) + "\n\n" + TOTALS.format(name="compute_totals"))
    r.write("reports.py", _module(90))
    r.write("ledger.py", "def post(entry):\n    return entry\n")
    r.commit("billing")
    r.write("billing.py", _module(120, changed=7))
    r.write("reports.py", _module(90, changed=3) + "\n\n" + TOTALS.format(name="report_totals"))
    almost = TOTALS.format(name="ledger_totals").replace(
        "        grand += converted - order.discount\n",
        "        grand += converted\n        grand -= order.fee\n",
    )
    r.write("ledger.py", "def post(entry):\n    return entry\n\n\n" + almost)
    written = r.commit("totals in the reports, a ledger variant")
    history = symbol_history(r.path, "ledger.py", "ledger_totals")
    assert changes(history.commits) == [(written, ("introduced",))]
    history = symbol_history(r.path, "reports.py", "report_totals")
    assert history.commits[-1].path == "billing.py"
