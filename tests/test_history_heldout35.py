"""`tether history`: cases the thirty-fifth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 35`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from anchors.history_compare import Found, Version, similarity
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

OLD = (
    "// notBlank is the validation function for validating if the current field\n"
    "// has a value or length greater than zero, or is not a space only string.\n"
    "func notBlank(fl FieldLevel) bool {\n"
    "\tfield := fl.Field()\n"
    "\tswitch field.Kind() {\n"
    "\tcase reflect.String:\n"
    "\t\treturn len(strings.TrimSpace(field.String())) > 0\n"
    "\tcase reflect.Chan, reflect.Map, reflect.Slice, reflect.Array:\n"
    "\t\treturn field.Len() > 0\n"
    "\tdefault:\n"
    "\t\treturn hasValue(fl)\n"
    "\t}\n"
    "}\n"
)
NEW = (
    "// NotBlank is the validation function for validating if the current field\n"
    "// has a value or length greater than zero, or is not a space only string.\n"
    "func NotBlank(fl validator.FieldLevel) bool {\n"
    "\tfield := fl.Field()\n"
    "\tswitch field.Kind() {\n"
    "\tcase reflect.String:\n"
    "\t\treturn len(strings.TrimSpace(field.String())) > 0\n"
    "\tcase reflect.Chan, reflect.Map, reflect.Slice, reflect.Array:\n"
    "\t\treturn field.Len() > 0\n"
    "\tcase reflect.Ptr, reflect.Interface, reflect.Func:\n"
    "\t\treturn !field.IsNil()\n"
    "\tdefault:\n"
    "\t\treturn field.IsValid() && field.Interface() != reflect.Zero(field.Type()).Interface()\n"
    "\t}\n"
    "}\n"
)
OTHERS = "".join(
    f"func is{name}(fl FieldLevel) bool {{\n\treturn fl.Field().Len() > {index}\n}}\n\n"
    for index, name in enumerate(("Lte", "Gte", "Eq"))
)


def test_a_go_function_exported_as_it_moved_to_another_package(tmp_path: Path) -> None:
    """go-playground/validator's 1d286c8 moved baked_in.go's `notBlank` (the file stays) into
    a package of its own as `NotBlank`, with `hasValue`'s body written into it (0.74 alike).
    In Go the two are one name, exported: the move search now holds it to the threshold of a
    move under its own name, not another's."""
    r = Repo(tmp_path / "r")
    r.write("baked_in.go", "package validator\n\n" + OTHERS + OLD)
    born = r.commit("notblank")
    r.write("baked_in.go", "package validator\n\n" + OTHERS)
    r.write("non-standard/validators/notblank.go", "package validators\n\n" + NEW)
    moved = r.commit("Define NotBlank as non standard validator")
    history = symbol_history(r.path, "non-standard/validators/notblank.go", "NotBlank")
    assert [sha for sha, _ in changes(history.commits)] == [moved, born]
    assert {"move", "rename"} <= set(history.commits[0].changes)
    assert history.commits[1].symbol == "notBlank"


def test_the_two_are_under_the_threshold_of_a_move_under_another_name() -> None:
    """(What makes the case above one: the two are under the 0.75 of another name's move.)"""
    old = Version("", ("package validator\n\n" + OLD).encode(), "go")
    new = Version("", ("package validators\n\n" + NEW).encode(), "go")
    score = similarity(Found(old.symbols[0], old), Found(new.symbols[0], new))
    assert 0.4 <= score < 0.75
