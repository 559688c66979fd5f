"""`tether history`: cases the forty-first held-out accuracy round found (bench/anchors/truth,
`held_out_round: 41`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

BODY = (
    "        if attr is None:\n"
    "            attr = '__call__'\n"
    "        wrapped = _map_view(view, attr, renderer_name)\n"
    "        wrapped = _authdebug_view(wrapped, permission)\n"
    "        wrapped = _predicate_wrap(wrapped, predicates)\n"
    "        return _attr_wrap(wrapped, accept, order, phash)\n"
)


def test_a_function_made_a_wrapper_of_the_method_written_from_it(tmp_path: Path) -> None:
    """pyramid's e06153d2 took the line importing `derive_view` out of registry.py and wrote
    `Registry.derive_view` there with the function's body, while view.py's `derive_view` lived
    on, rewritten as a wrapper that calls the method: the method is extracted from it
    (introduced), not it moved (the rule for a definition written in place of its import,
    where the imported one was left as it was)."""
    r = Repo(tmp_path / "r")
    function = "def derive_view(view, attr=None, renderer_name=None, permission=None):\n"
    r.write("bfg/view.py", function + BODY.replace("        ", "    "))
    r.write(
        "bfg/registry.py",
        "from bfg.view import derive_view\n\n\nclass Registry:\n"
        "    def register(self, view):\n        self.views.append(derive_view(view))\n",
    )
    r.commit("views")
    r.write(
        "bfg/view.py",
        function + "    return get_registry().derive_view(view, attr=attr)\n",
    )
    r.write(
        "bfg/registry.py",
        "class Registry:\n"
        "    def register(self, view):\n        self.views.append(self.derive_view(view))\n\n"
        "    def derive_view(self, view, attr=None, renderer_name=None, permission=None):\n" + BODY,
    )
    extracted = r.commit("Failing one test.")
    history = symbol_history(r.path, "bfg/registry.py", "Registry.derive_view")
    assert changes(history.commits) == [(extracted, ("introduced",))]


FOR_PATTERN = (
    "    public LinkedRuleBuilder forPattern(String pattern) {{\n"
    "        final String keyPattern;\n"
    "        if (pattern == null) {{\n"
    '            throw new IllegalArgumentException("Null pattern not allowed");\n'
    "        }}\n"
    "        keyPattern = pattern;\n"
    "        return new LinkedRuleBuilder(this, {provider}, keyPattern);\n"
    "    }}\n"
)
INTERFACE = (
    "package binder;\n\npublic interface RulesBinder {\n\n"
    "    LinkedRuleBuilder forPattern(String pattern);\n\n}\n"
)


def test_code_moved_out_of_a_class_made_an_interface_again(tmp_path: Path) -> None:
    """digester's 68a02385 made the interface RulesBinder a class, giving `forPattern` its
    code there first (a declaration without a body is no earlier version of it), and 13b28340
    made RulesBinder an interface again, its code moved into the new DefaultRulesBinder: the
    declaration left in the interface keeps none of it, and the method moved."""
    r = Repo(tmp_path / "r")
    r.write("binder/RulesBinder.java", INTERFACE)
    r.commit("rules binder")
    as_class = "package binder;\n\npublic final class RulesBinder {{\n\n{method}\n}}\n"
    r.write(
        "binder/RulesBinder.java", as_class.format(method=FOR_PATTERN.format(provider="this.rules"))
    )
    classed = r.commit("a class")
    loaded = FOR_PATTERN.format(provider="this.rules, this.classLoader")
    r.write("binder/RulesBinder.java", as_class.format(method=loaded))
    edited = r.commit("class loader")
    r.write("binder/RulesBinder.java", INTERFACE)
    helpers = "".join(
        f"    private void check{n}(String value) {{\n"
        f'        if (value == null) {{\n            throw new IllegalStateException("{n}");\n'
        f"        }}\n    }}\n\n"
        for n in range(8)
    )
    r.write(
        "binder/DefaultRulesBinder.java",
        "package binder;\n\nfinal class DefaultRulesBinder implements RulesBinder {\n\n"
        + helpers
        + loaded
        + "\n}\n",
    )
    moved = r.commit("extracted RulesBinder interface")
    history = symbol_history(
        r.path, "binder/DefaultRulesBinder.java", "DefaultRulesBinder.forPattern"
    )
    assert changes(history.commits) == [
        (moved, ("rename", "move")),
        (edited, ("body",)),
        (classed, ("introduced",)),
    ]


HANDLERS = (
    "package nsqadmin\n\n"
    "func (s *httpServer) routes(router *Router) {{\n"
    '\trouter.Handle("GET", "/api/topics", Decorate(s.{topics}, log))\n'
    '\trouter.Handle("GET", "/api/topics/:topic", Decorate(s.{topic}, log))\n'
    '\trouter.Handle("GET", "/api/nodes", Decorate(s.{nodes}, log))\n'
    "}}\n\n"
    "func (s *httpServer) {topics}(w ResponseWriter, req *Request, ps Params) (interface{{}}, error) {{\n"
    "\ttopics, err := s.ci.GetLookupdTopics(s.ctx.nsqadmin.opts.LookupdHTTPAddresses)\n"
    "\treturn struct {{ Topics []string }}{{topics}}, err\n"
    "}}\n\n"
    "func (s *httpServer) {topic}(w ResponseWriter, req *Request, ps Params) (interface{{}}, error) {{\n"
    "{body}"
    "}}\n\n"
    "func (s *httpServer) {nodes}(w ResponseWriter, req *Request, ps Params) (interface{{}}, error) {{\n"
    "\tproducers, err := s.ci.GetProducers(s.ctx.nsqadmin.opts.LookupdHTTPAddresses)\n"
    "\treturn struct {{ Nodes Producers }}{{producers}}, err\n"
    "}}\n"
)


def test_handlers_declared_alike_renamed_together(tmp_path: Path) -> None:
    """nsq's 58969a94 renamed every handler `doX` to `xHandler`, `doTopic`'s body extended to
    under half alike: each declaration line reads as any of the old ones renamed (they are
    declared alike), but the route that named `s.doTopic` names `s.topicHandler`, and reads
    so for no other."""
    r = Repo(tmp_path / "r")
    old_body = (
        '\ttopicName := ps.ByName("topic")\n'
        "\tproducers, err := s.ci.GetTopicProducers(topicName, s.lookupd)\n"
        "\treturn producers, err\n"
    )
    names = {"topics": "doTopics", "topic": "doTopic", "nodes": "doNodes"}
    r.write("http.go", HANDLERS.format(body=old_body, **names))
    born = r.commit("add /topics/:topic")
    new_body = (
        "\tvar messages []string\n"
        '\ttopicName := ps.ByName("topic")\n'
        "\tproducers, err := s.ci.GetTopicProducers(topicName, s.lookupd)\n"
        "\tif err != nil {\n"
        "\t\tpe, ok := err.(PartialErr)\n"
        "\t\tif !ok {\n"
        '\t\t\treturn nil, NewDeprecatedError(502, "UPSTREAM_ERROR")\n'
        "\t\t}\n"
        "\t\tmessages = append(messages, pe.Error())\n"
        "\t}\n"
        "\tstats, _, err := s.ci.GetNSQDStats(producers, topicName)\n"
        "\tif err != nil {\n"
        "\t\tmessages = append(messages, err.Error())\n"
        "\t}\n"
        "\treturn struct {\n\t\tStats   []*TopicStats\n\t\tMessage string\n"
        "\t}{stats, maybeWarnMsg(messages)}, nil\n"
    )
    names = {"topics": "topicsHandler", "topic": "topicHandler", "nodes": "nodesHandler"}
    r.write("http.go", HANDLERS.format(body=new_body, **names))
    renamed = r.commit("return PartialErr")
    history = symbol_history(r.path, "http.go", "httpServer.topicHandler")
    assert changes(history.commits) == [(renamed, ("body", "rename")), (born, ("introduced",))]
