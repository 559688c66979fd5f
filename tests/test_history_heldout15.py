"""`tether history`: cases the fifteenth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 15`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)


def _helpers(first: str, second: str, serve: str) -> str:
    return f"package mux\n\n{first}\n\n{second}\n\nfunc Serve(req *Request) {{\n{serve}}}\n"


def test_two_helpers_renamed_together_each_follow_its_switched_call(tmp_path: Path) -> None:
    """mux's f395758 rewrote the one-liners `setVars` and `setCurrentRoute` in their places as
    `requestWithVars` and `requestWithRoute` (each equally alike to both: they differ in one
    key) and switched their calls: each new one is its own old one renamed (both histories
    stopped there)."""
    r = Repo(tmp_path / "r")
    old_vars = "func setVars(r *Request, val interface{}) *Request {\n\treturn contextSet(r, varsKey, val)\n}"
    old_route = (
        "func setCurrentRoute(r *Request, val interface{}) *Request {\n"
        "\treturn contextSet(r, routeKey, val)\n}"
    )
    calls = "\treq = setVars(req, match.Vars)\n\treq = setCurrentRoute(req, match.Route)\n"
    r.write("mux.go", _helpers(old_vars, old_route, calls))
    born = r.commit("context helpers")
    r.write("mux.go", _helpers(old_vars, old_route.replace("val)", "val) // the route"), calls))
    r.commit("a comment")
    r.write("mux.go", _helpers(old_vars, old_route.replace("(r, routeKey", "(r,  routeKey"), calls))
    new_vars = (
        "func requestWithVars(r *Request, vars map[string]string) *Request {\n"
        "\tctx := context.WithValue(r.Context(), varsKey, vars)\n\treturn r.WithContext(ctx)\n}"
    )
    new_route = (
        "func requestWithRoute(r *Request, route *Route) *Request {\n"
        "\tctx := context.WithValue(r.Context(), routeKey, route)\n\treturn r.WithContext(ctx)\n}"
    )
    calls = "\treq = requestWithVars(req, match.Vars)\n\treq = requestWithRoute(req, match.Route)\n"
    r.write("mux.go", _helpers(new_vars, new_route, calls))
    cleanup = r.commit("remove request context helpers")
    for symbol, was in (("requestWithRoute", "setCurrentRoute"), ("requestWithVars", "setVars")):
        history = symbol_history(r.path, "mux.go", symbol)
        assert [sha for sha, _ in changes(history.commits)] == [cleanup, born], symbol
        assert "rename" in history.commits[0].changes
        assert history.commits[-1].symbol == was


def _field(name: str, difference: str) -> str:
    return (
        f"package org.chrono;\n\nclass {name} extends ImpreciseField {{\n"
        f"    {name}(Chronology chronology) {{\n        super(chronology);\n    }}\n\n"
        "    public int get(long instant) {\n        return iChronology.getYear(instant);\n    }\n\n"
        "    public long add(long instant, int years) {\n"
        "        return iChronology.setYear(instant, get(instant) + years);\n    }\n\n"
        "    public long set(long instant, int year) {\n"
        "        FieldUtils.verifyValueBounds(this, year, getMinimumValue(), getMaximumValue());\n"
        "        return iChronology.setYear(instant, year);\n    }\n\n"
        "    public boolean isLeap(long instant) {\n"
        "        return iChronology.isLeapYear(get(instant));\n    }\n\n"
        "    public long roundFloor(long instant) {\n"
        "        return iChronology.getYearMillis(get(instant));\n    }\n\n"
        f"    public long getDifferenceAsLong(long minuend, long subtrahend) {{\n{difference}    }}\n"
        "}\n"
    )


DIFFERENCE = (
    "        int minuendYear = get(minuend);\n"
    "        int subtrahendYear = get(subtrahend);\n"
    "        long minuendRem = minuend - iChronology.getYearMillis(minuendYear);\n"
    "        long subtrahendRem = subtrahend - iChronology.getYearMillis(subtrahendYear);\n"
    "        int difference = minuendYear - subtrahendYear;\n"
    "        if (minuendRem < subtrahendRem) {\n            difference--;\n        }\n"
    "        return difference;\n"
)


def test_a_method_extracted_from_one_in_a_renamed_file_is_new(tmp_path: Path) -> None:
    """joda-time's 7b7cb445 renamed `CopticYearDateTimeField.java` (and its class) to
    `BasicYearDateTimeField.java`, whose `getDifferenceAsLong` became a one-line wrapper of
    the new `CopticChronology.getYearDifference`, written from its body: the old method lives on
    under the renamed class, so the new one is extracted (introduced), not moved (the history
    took in the wrapper's past)."""
    r = Repo(tmp_path / "r")
    chronology = (
        "package org.chrono;\n\nclass CopticChronology extends BaseChronology {{\n"
        "    public int getYear(long instant) {{\n        return (int) (instant / 365);\n    }}\n"
        "{extra}}}\n"
    )
    r.write("src/CopticChronology.java", chronology.format(extra=""))
    r.write("src/CopticYearDateTimeField.java", _field("CopticYearDateTimeField", DIFFERENCE))
    r.commit("coptic")
    r.write(
        "src/CopticYearDateTimeField.java",
        _field("CopticYearDateTimeField", DIFFERENCE.replace("difference--", "difference -= 1")),
    )
    r.commit("decrement")
    (r.path / "src/CopticYearDateTimeField.java").unlink()
    wrapper = "        return iChronology.getYearDifference(minuend, subtrahend);\n"
    r.write("src/BasicYearDateTimeField.java", _field("BasicYearDateTimeField", wrapper))
    extracted = (
        "\n    long getYearDifference(long minuend, long subtrahend) {\n"
        + DIFFERENCE.replace("get(", "getYear(").replace("iChronology.", "")
        + "    }\n"
    )
    r.write("src/CopticChronology.java", chronology.format(extra=extracted))
    refactor = r.commit("refactor chronology classes")
    history = symbol_history(
        r.path, "src/CopticChronology.java", "CopticChronology.getYearDifference"
    )
    assert changes(history.commits) == [(refactor, ("introduced",))]


def _response(owner: str, inspect_body: str) -> str:
    return (
        "var delegate = require('delegates');\n\n"
        f"{owner} = {{\n"
        "  get status() {\n    return this.res.statusCode;\n  },\n\n"
        "  redirect: function (url) {\n    this.set('Location', url);\n    this.status = 302;\n  },\n\n"
        f"  inspect: function () {{\n{inspect_body}  }},\n\n"
        "  toJSON: function () {\n    return { status: this.status };\n  }\n"
        "};\n"
    )


def test_an_object_literal_assigned_to_another_name_renames_its_methods(tmp_path: Path) -> None:
    """koa's 0be1442 turned `Response.prototype = {` into `module.exports = {`: every method of
    the literal was renamed on that line alone, `Response.inspect` to `exports.inspect` (the
    history stopped short of it, the method's own lines untouched)."""
    r = Repo(tmp_path / "r")
    r.write("lib/response.js", _response("Response.prototype", "    return this.toJSON();\n"))
    born = r.commit("response")
    body = "    var o = this.toJSON();\n    o.body = this.body;\n    return o;\n"
    r.write("lib/response.js", _response("Response.prototype", body))
    with_body = r.commit("inspect the body")
    r.write("lib/response.js", _response("module.exports", body))
    exposed = r.commit("expose app-specific prototypes")
    history = symbol_history(r.path, "lib/response.js", "exports.inspect")
    assert changes(history.commits) == [
        (exposed, ("rename",)),
        (with_body, ("body",)),
        (born, ("introduced",)),
    ]
    assert history.commits[-1].symbol == "Response.inspect"


def _server(name: str, init_body: str, subclass: str = "") -> str:
    return (
        f"class {name}:\n\n"
        f"    def __init__(self, host, protocol, version):\n{init_body}\n"
        "    def send_headers(self):\n        self.protocol.write(self.headers)\n\n"
        "    def write(self, data):\n        self.protocol.write(data)\n\n"
        "    def write_eof(self):\n        self.protocol.write_eof()\n"
        f"{subclass}"
    )


INIT = (
    "        self.host = host\n        self.protocol = protocol\n"
    "        self.version = version\n        self.headers = {}\n        self.status = 200\n"
)


def test_a_class_renamed_whose_name_a_new_class_took_keeps_its_methods(tmp_path: Path) -> None:
    """aiohttp's 980a8e254 renamed `ServerResponse` to `ServerStreamResponse` in place and
    declared a new `ServerResponse(ServerStreamResponse)` with an `__init__` of its own: the
    renamed class's `__init__` is the old one (0.8 alike; the new namesake 0.2), though its
    old name lives on (the history stopped there)."""
    r = Repo(tmp_path / "r")
    r.write("web.py", _server("ServerResponse", INIT))
    born = r.commit("server response")
    r.write(
        "web.py", _server("ServerResponse", INIT.replace("200", "200\n        self.length = None"))
    )
    length = r.commit("content length")
    init = INIT.replace("self.length", "self.length").replace(
        "200", "200\n        self.length = None"
    )
    subclass = (
        "\n\nclass ServerResponse(ServerStreamResponse):\n\n"
        "    def __init__(self, request):\n        super().__init__(request)\n"
        "        self.body = None\n"
    )
    r.write(
        "web.py",
        _server(
            "ServerStreamResponse", init.replace("self.status = 200", "self.status = 201"), subclass
        ),
    )
    refactor = r.commit("refactor webserver code")
    history = symbol_history(r.path, "web.py", "ServerStreamResponse.__init__")
    assert [sha for sha, _ in changes(history.commits)] == [refactor, length, born]
    assert "rename" in history.commits[0].changes
    assert history.commits[-1].symbol == "ServerResponse.__init__"
    # The new class's own `__init__` is new.
    history = symbol_history(r.path, "web.py", "ServerResponse.__init__")
    assert changes(history.commits) == [(refactor, ("introduced",))]
