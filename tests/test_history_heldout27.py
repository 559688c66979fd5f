"""`tether history`: cases the twenty-seventh held-out accuracy round found (bench/anchors/truth,
`held_out_round: 27`), each a synthetic history in a real git repository, walked the three ways
of tests/test_history."""

from __future__ import annotations

from pathlib import Path

from anchors.history import symbol_history
from tests.test_history import Repo, changes, log_kind  # noqa: F401  (log_kind: autouse)

C_SCALAR = (
    "static int\n"
    "yaml_emitter_write_plain_scalar(yaml_emitter_t *emitter,\n"
    "        yaml_char_t *value, size_t length, int allow_breaks)\n"
    "{\n"
    "    int spaces = 0;\n"
    "    if (!emitter->whitespace) {\n"
    "        if (!PUT(emitter, ' ')) return 0;\n"
    "    }\n"
    "    emitter->whitespace = 0;\n"
    "    return 1;\n"
    "}\n"
)
GO_SCALAR = (
    "func yaml_emitter_write_plain_scalar(emitter *yaml_emitter_t, value []byte,"
    " allow_breaks bool) bool {\n"
    "\tspaces := false\n"
    "\tif !emitter.whitespace {\n"
    "\t\tif !put(emitter, ' ') {\n"
    "\t\t\treturn false\n"
    "\t\t}\n"
    "\t}\n"
    "\temitter.whitespace = false\n"
    "\treturn true\n"
    "}\n"
)


def test_a_port_to_another_language_is_new(tmp_path: Path) -> None:
    """yaml's 4cdd993 ("C is gone") deleted libyaml's emitter.c and wrote its Go port in
    emitter_c.go, every function under its C name: a translation is new code, not a move."""
    r = Repo(tmp_path / "r")
    r.write("libyaml/emitter.c", '#include "yaml_private.h"\n\n' + C_SCALAR)
    r.commit("vendored libyaml")
    r.git("rm", "-q", "-r", "libyaml")
    r.write("emitter_c.go", "package goyaml\n\n" + GO_SCALAR)
    ported = r.commit("C is gone")
    history = symbol_history(r.path, "emitter_c.go", "yaml_emitter_write_plain_scalar")
    assert changes(history.commits) == [(ported, ("introduced",))]


def _listener(receiver: str, body: str) -> str:
    return (
        f"impl TcpListener {{\n"
        f"    pub fn accept(&{receiver}) -> io::Result<(TcpStream, SocketAddr)> {{\n"
        f"{body}"
        f"    }}\n\n"
        f"    pub fn local_addr(&self) -> io::Result<SocketAddr> {{\n"
        f"        self.inner.local_addr()\n"
        f"    }}\n"
        f"}}\n"
    )


NET_ACCEPT = (
    "        self.sys.accept().map(|(sys, addr)| {\n"
    "            (TcpStream { sys, selector_id: SelectorId::new() }, addr)\n"
    "        })\n"
)
SYS_ACCEPT = (
    "        let (stream, addr) = self.inner.accept()?;\n"
    "        Ok((TcpStream::new(stream), addr))\n"
)


def test_of_two_namesakes_split_out_the_one_that_went_here(tmp_path: Path) -> None:
    """mio's 19d5ebe6 split net/tcp.rs and sys/unix/tcp.rs alike, each `TcpListener.accept`
    going to a new tcp_listener.rs beside it: net/tcp_listener.rs's came from net/tcp.rs,
    though sys/unix/tcp.rs's is likelier to it, since that one went whole to
    sys/unix/tcp_listener.rs (0.90 alike to it, 0.46 to net/tcp.rs's)."""
    r = Repo(tmp_path / "r")
    # (The streams are most of each file: git pairs tcp.rs with tcp_stream.rs, as in mio.)
    stream = (
        "pub struct TcpStream {\n    sys: sys::TcpStream,\n}\n\nimpl TcpStream {\n"
        + "".join(
            f"    pub fn set_option_{i}(&self, on: bool) -> io::Result<()> {{\n"
            f"        self.sys.set_option({i}, on)\n    }}\n"
            for i in range(12)
        )
        + "}\n\n"
    )
    r.write("src/net/tcp.rs", stream + _listener("self", NET_ACCEPT))
    r.write("src/sys/unix/tcp.rs", stream + _listener("self", SYS_ACCEPT))
    born = r.commit("tcp")
    r.write("src/net/tcp.rs", stream + _listener("self", NET_ACCEPT.replace("new()", "new(1)")))
    edited = r.commit("selector ids")
    (r.path / "src/net/tcp.rs").unlink()
    (r.path / "src/sys/unix/tcp.rs").unlink()
    r.write("src/net/tcp_stream.rs", stream)
    r.write("src/sys/unix/tcp_stream.rs", stream)
    r.write(
        "src/net/tcp_listener.rs",
        _listener(
            "self",
            "        let (sys, addr) = self.sys.accept()?;\n        Ok((TcpStream::new(sys), addr))\n",
        ),
    )
    r.write("src/sys/unix/tcp_listener.rs", _listener("self", SYS_ACCEPT))
    split = r.commit("misc cleanup")
    history = symbol_history(r.path, "src/net/tcp_listener.rs", "TcpListener.accept")
    assert [sha for sha, _ in changes(history.commits)] == [split, edited, born]
    assert history.commits[1].path == "src/net/tcp.rs"


SELECTOR = (
    "pub struct Selector {\n    epfd: RawFd,\n}\n\n"
    "impl Selector {\n"
    "    pub fn register(&mut self, fd: RawFd, token: usize) -> MioResult<()> {\n"
    "        let info = EpollEvent { events: EPOLLIN, data: token as u64 };\n"
    "        epoll_ctl(self.epfd, EpollCtlAdd, fd, &info).map_err(MioError::from_sys_error)\n"
    "    }\n\n"
    "    pub fn select(&mut self, evts: &mut Events, timeout: usize) -> MioResult<()> {\n"
    "        let cnt = epoll_wait(self.epfd, evts.events.as_mut_slice(), timeout)?;\n"
    "        evts.len = cnt;\n"
    "        Ok(())\n"
    "    }\n"
    "}\n\n"
    "pub struct Events {\n    len: usize,\n    events: Vec<EpollEvent>,\n}\n"
)
POSIX = "".join(
    f"pub fn {name}(fd: RawFd, buf: &mut [u8]) -> MioResult<usize> {{\n"
    f"    let n = {name}_sys(fd, buf.as_mut_ptr(), buf.len() as size_t);\n"
    f"    if n < 0 {{ return Err(MioError::last_os_error()); }}\n"
    f"    Ok(n as usize)\n}}\n\n"
    for name in ("connect", "read", "write", "from_sockaddr")
)


def test_a_file_split_in_two_is_a_move_for_what_went_to_either(tmp_path: Path) -> None:
    """mio's c3966e52 deleted src/os_linux.rs and wrote src/os/epoll.rs (its `Selector` and
    `Events`) and src/os/posix.rs (`connect`, `read` and the rest): epoll.rs shares most of
    the deleted file's names, but the file was split, and `Selector.register` moved."""
    r = Repo(tmp_path / "r")
    r.write("src/os_linux.rs", "use std::os::unix::io::RawFd;\n\n" + SELECTOR + "\n" + POSIX)
    born = r.commit("linux selector")
    r.git("rm", "-q", "src/os_linux.rs")
    r.write(
        "src/os/epoll.rs",
        "use super::posix::*;\n\n"
        + SELECTOR.replace("EPOLLIN", "EPOLLIN | EPOLLOUT")
        + "".join(  # (much new code: git does not pair the files)
            f"\nimpl Interest{i} {{\n    pub fn bits(&self) -> u32 {{\n"
            f"        EPOLLET | (self.readable as u32) << {i}\n    }}\n}}\n"
            for i in range(12)
        ),
    )
    r.write(
        "src/os/posix.rs",
        "use libc::size_t;\n\n"
        + POSIX.replace("last_os_error()", "from_errno(errno())")
        + "".join(f"pub fn flag_{i}() -> c_int {{\n    1 << {i}\n}}\n\n" for i in range(16)),
    )
    split = r.commit("Add initial support for Darwin")
    history = symbol_history(r.path, "src/os/epoll.rs", "Selector.register")
    assert changes(history.commits) == [(split, ("body", "move")), (born, ("introduced",))]


BODY_INIT = (
    "  body = body == null ? null : String(body);\n"
    "  this.body = body;\n"
    "  this.bodyUsed = false;\n"
    "  this.size = opts.size || 0;\n"
    "  this.timeout = opts.timeout || 0;\n"
)


def _body_class(json_body: str) -> str:
    return (
        "export default class Body {\n"
        "  constructor(body, opts = {}) {\n"
        + BODY_INIT.replace("\n  ", "\n    ")[:-1]
        + "\n  }\n\n"
        "  json() {\n" + json_body + "  }\n"
        "}\n"
    )


def test_a_class_made_a_constructor_function_and_back(tmp_path: Path) -> None:
    """node-fetch's f08b120 made `class Body {constructor(...) {...}}` a `function Body` with
    prototype methods, and 924c122 made it a class again: the constructor's history goes
    through the function into the first class's constructor, not into the whole first class
    (whose `json` changed alone in 64e239b)."""
    r = Repo(tmp_path / "r")
    path = "src/body.js"
    r.write(path, _body_class("    return JSON.parse(this.body);\n"))
    born = r.commit("body class")
    r.write(
        path,
        _body_class("    if (this.status === 204) return {};\n    return JSON.parse(this.body);\n"),
    )
    json_only = r.commit("json: 204")
    function = (
        "export default function Body(body, opts = {}) {\n" + BODY_INIT + "}\n\n"
        "Body.prototype.json = function () {\n  return JSON.parse(this.body);\n};\n"
    )
    r.write(path, function)
    made_function = r.commit("Do not inherit from body")
    r.write(path, _body_class("    return JSON.parse(this.body);\n"))
    made_class = r.commit("class again")
    history = symbol_history(r.path, path, "Body.constructor")
    shas = [sha for sha, _ in changes(history.commits)]
    assert shas == [made_class, made_function, born]
    assert json_only not in shas
    assert history.commits[-1].symbol == "Body.constructor"
