"""A writable matplotlib config directory on hosts without one (imported by the package).

matplotlib refuses to import without a writable config directory: a host with no HOME and a
read-only temporary directory would crash the Task weights page (static map downloads). When
``MPLCONFIGDIR`` is unset and HOME is not writable, the first writable of the temporary
directory, ``/dev/shm`` and the working directory gets ``benchuq-matplotlib``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["ensure_config_dir", "writable_config_dir"]


def writable_config_dir(candidates: Iterable[str | Path]) -> str | None:
    """The first candidate under which ``benchuq-matplotlib`` can be made and written, else None."""
    for base in candidates:
        path = Path(base) / "benchuq-matplotlib"
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / ".probe"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError:
            continue
        return str(path)
    return None


def ensure_config_dir() -> None:
    """Set ``MPLCONFIGDIR`` when it is unset and HOME is missing or read-only (see the module)."""
    if "MPLCONFIGDIR" in os.environ:
        return
    home = os.environ.get("HOME")
    if home and os.access(home, os.W_OK):
        return
    try:
        tmp = tempfile.gettempdir()
    except (OSError, FileNotFoundError):
        tmp = "/tmp"
    found = writable_config_dir([tmp, "/dev/shm", os.getcwd()])
    if found:
        os.environ["MPLCONFIGDIR"] = found
