"""`tether history`: cases the twelfth held-out accuracy round found (bench/anchors/truth,
`held_out_round: 12`), each a synthetic history in a real git repository, walked the three ways of
tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

CALL = (
    "    fn call(&mut self, req: Request) -> Self::Future {{\n"
    "        let handler = self.handler.clone();\n"
    "        let state = self.state.clone();\n"
    "        let future = Handler::call(handler, req, state);\n"
    "        let future = future.map({wrap} as _);\n"
    "        IntoServiceFuture::new(future)\n"
    "    }}\n"
)

# What stays of `with_state.rs` in `service.rs`: enough for git to pair the two files.
SHARED = "".join(
    f"    pub fn helper_{n}(&self) -> usize {{\n        self.count + {n}\n    }}\n\n"
    for n in range(12)
)


def _impl(name: str, call: str, shared: bool = True) -> str:
    return (
        f"pub struct {name}<H> {{\n    handler: H,\n    state: S,\n    count: usize,\n}}\n\n"
        + (f"impl<H> {name}<H> {{\n{SHARED}}}\n\n" if shared else "")
        + f"impl<H> Service<Request> for {name}<H> {{\n"
        "    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {\n"
        + "        Poll::Ready(Ok(()))\n    }\n\n"
        + f"{call}}}\n"
    )


def test_a_file_rename_whose_namesake_only_delegated_yields_to_a_deleted_files_verbatim_one(
    tmp_path: Path,
) -> None:
    """axum's 9196c09f merged `IntoService` and `WithState` into `HandlerService`: it deleted
    `into_service.rs`, whose `call` the new one is word for word, and git paired `with_state.rs`
    (R052) with the new `service.rs`, whose `call` only delegated (0.36 alike). The method moved
    from the deleted file; the one-line delegation is another history."""
    r = Repo(tmp_path / "r")
    r.write("src/into_service.rs", _impl("IntoService", CALL.format(wrap="Ok"), shared=False))
    born = r.commit("into service")
    r.write(
        "src/into_service.rs", _impl("IntoService", CALL.format(wrap="Result::Ok"), shared=False)
    )
    changed = r.commit("wrap")
    delegate = "    fn call(&mut self, req: Request) -> Self::Future {\n        self.service.call(req)\n    }\n"
    r.write("src/with_state.rs", _impl("WithState", delegate))
    r.commit("with state")
    r.write("src/with_state.rs", _impl("WithState", delegate.replace("req)", "req.map(f))")))
    r.commit("with state map")
    r.git("rm", "-q", "src/into_service.rs")
    r.git("mv", "src/with_state.rs", "src/service.rs")
    r.write("src/service.rs", _impl("HandlerService", CALL.format(wrap="Result::Ok")))
    merged = r.commit("merge into HandlerService")
    history = symbol_history(r.path, "src/service.rs", "HandlerService.call")
    assert changes(history.commits) == [
        (merged, ("rename", "move")),
        (changed, ("body",)),
        (born, ("introduced",)),
    ]
    assert history.commits[-1].symbol == "IntoService.call"
    assert history.commits[-1].path == "src/into_service.rs"
