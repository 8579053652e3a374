"""Per-process temporary folders that a crashed server does not leave behind (issue 19).

kaleido's chromium writes a browser profile (and kaleido its page) into fresh ``tmpXXXX``
folders of the system temporary directory, removed only on a clean exit: every crash of the app
server left one behind, indistinguishable from other programs' folders. The choice: each server
process puts them under ``<tempdir>/benchuq-<what>-<PID>``; a new server first removes the
folders of PIDs that no longer run (a live PID's folder is kept, even if the PID was reused: at
worst a folder waits for the next start), and removes its own at exit.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["process_dir", "remove_stale"]


def _prefix(what: str) -> str:
    return f"benchuq-{what}-"


def _running(pid: int) -> bool:
    """True if a process ``pid`` exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by another user
        return True
    return True


def remove_stale(what: str, root: Path | None = None) -> list[Path]:
    """Remove ``root``'s (default: the temporary directory) ``benchuq-<what>-<PID>`` folders
    whose PID no longer runs; return them."""
    root = Path(root or tempfile.gettempdir())
    prefix = _prefix(what)
    stale = [
        p
        for p in root.glob(prefix + "*")
        if p.is_dir()
        and p.name[len(prefix) :].isdigit()
        and not _running(int(p.name[len(prefix) :]))
    ]
    for p in stale:
        shutil.rmtree(p, ignore_errors=True)
    return stale


def process_dir(what: str, root: Path | None = None) -> Path:
    """Return this process's folder ``<root>/benchuq-<what>-<PID>`` (created; stale ones of dead
    processes removed first; removed again at a normal exit)."""
    root = Path(root or tempfile.gettempdir())
    remove_stale(what, root)
    folder = root / f"{_prefix(what)}{os.getpid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder
