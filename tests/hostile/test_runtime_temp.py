"""kaleido's temporary browser profiles: per process, and a crashed server's are removed at the
next start (#19, dashboard/runtime_temp.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from browser_utils import chromium_available

from benchuq.dashboard import runtime_temp


def dead_pid() -> int:
    """The PID of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_folder_of_a_dead_pid_is_removed(tmp_path: Path) -> None:
    stale = tmp_path / f"benchuq-kaleido-{dead_pid()}"
    (stale / "tmpabc" / "Default").mkdir(parents=True)
    (stale / "tmpabc" / "SingletonLock").write_text("x")
    live = tmp_path / f"benchuq-kaleido-{os.getppid()}"  # a running process: kept
    live.mkdir()
    other = tmp_path / "benchuq-kaleido-notapid"  # not ours to judge: kept
    other.mkdir()
    own = runtime_temp.process_dir("kaleido", tmp_path)
    assert own == tmp_path / f"benchuq-kaleido-{os.getpid()}" and own.is_dir()
    assert not stale.exists() and live.is_dir() and other.is_dir()
    assert runtime_temp.remove_stale("kaleido", tmp_path) == []  # our own folder is live


def wait_browser_gone(folder: Path, timeout: float = 60.0) -> None:
    """Wait until no process runs with ``folder`` in its command line (chromium's profile)."""
    deadline = time.monotonic() + timeout
    while any(str(folder).encode() in cmd for cmd in command_lines()):
        assert time.monotonic() < deadline, "kaleido's chromium outlived its server"
        time.sleep(0.2)


def command_lines() -> list[bytes]:
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            out.append(Path(f"/proc/{pid}/cmdline").read_bytes())
        except OSError:  # ended meanwhile
            continue
    return out


CRASH = textwrap.dedent(
    """
    import os
    import plotly.graph_objects as go
    from benchuq.dashboard.export import image_bytes
    assert image_bytes(go.Figure(go.Bar(y=[1, 2])), "png").startswith(b"\\x89PNG")
    print(os.getpid(), flush=True)
    os._exit(1)  # a crash: no atexit, no kaleido shutdown
    """
)


@pytest.mark.slow
def test_crashed_server_leaves_its_kaleido_profile_only_in_its_folder() -> None:
    if not chromium_available():
        if os.environ.get("CI"):
            pytest.fail("kaleido needs /usr/bin/chromium in CI")
        pytest.skip("chromium not found")
    # a short TMPDIR: chromium's socket paths under it must stay within the 108 bytes a Unix
    # socket allows (a parallel worker's tmp_path is too deep: chromium closes at once)
    tmp = Path(tempfile.mkdtemp(prefix="bq-", dir="/tmp"))
    try:
        env = {**os.environ, "TMPDIR": str(tmp)}
        out = subprocess.run(
            [sys.executable, "-c", CRASH], env=env, capture_output=True, text=True, timeout=180
        )
        assert out.stdout.strip(), f"exit {out.returncode}: {out.stderr[-2000:]}"
        pid = out.stdout.split()[0]
        folder = tmp / f"benchuq-kaleido-{pid}"
        assert folder.is_dir() and any(p.is_dir() for p in folder.iterdir())  # the left profile
        assert {p.name for p in tmp.iterdir() if p.name.startswith("tmp")} == set()
        wait_browser_gone(folder)  # the crashed server's chromium notices and exits by itself
        assert runtime_temp.remove_stale("kaleido", tmp) == [folder]
        assert not folder.exists()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
