"""A closed tab stops a read in progress (issue 31): reading checks
:func:`benchuq.core.budget.checkpoint` between files, archive members and chunks, so the
condition the app sets for a session (``dashboard/runtime.py``: "is this tab still connected?")
ends the parse at the next step instead of after the whole upload. Deterministic: the condition
turns true after a counted number of checks, never after a time."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from benchuq.core.budget import Stopped, stop_when
from benchuq.core.reading.files import gather_paths
from benchuq.core.reading.loaders import read_files

HEAD = b"model,task,category,n,correct\n"


def _rows(run: int = 0) -> bytes:
    """Three models on four tasks of their own (``t<run>_<j>``)."""
    body = (f"m{i},t{run}_{j},c,100,{40 + i + j}\n" for i in range(3) for j in range(4))
    return HEAD + "".join(body).encode()


ROWS = _rows()


class Countdown:
    """A stop condition that holds from its ``after``-th check on; counts the checks."""

    def __init__(self, after: int) -> None:
        self.after, self.checks = after, 0

    def __call__(self) -> bool:
        self.checks += 1
        return self.checks >= self.after


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_an_archive_read_stops_between_members() -> None:
    members = {f"run{k}/results.csv": _rows(k) for k in range(40)}
    upload = [("runs.zip", _zip(members))]
    assert read_files(upload, name="upload").bench.models == ("m0", "m1", "m2")  # unstopped
    stop = Countdown(after=5)
    with stop_when(stop, "its browser session ended"), pytest.raises(Stopped) as err:
        read_files(upload, name="upload")
    assert stop.checks == 5  # ended at the first check that saw the tab closed
    assert "Reading the files was stopped: its browser session ended." in str(err.value)


def test_a_large_member_stops_between_chunks() -> None:
    big = ROWS + ROWS.split(b"\n", 1)[1] * (40 * 2**20 // len(ROWS))  # ~40 MB: 3 chunks
    upload = [("big.zip", _zip({"rows.csv": big}))]
    stop = Countdown(after=3)  # the archive's check, the member's, then after its first chunk
    with stop_when(stop, "its browser session ended"), pytest.raises(Stopped):
        read_files(upload, name="upload")
    assert stop.checks == 3


def test_a_stop_is_not_reported_as_a_damaged_member() -> None:
    """``Stopped`` is a ValueError, which the member reader turns into "damaged" for zlib's
    errors: it must pass through unchanged."""
    upload = [("one.zip", _zip({"a.csv": ROWS}))]
    with stop_when(lambda: True, "its browser session ended"), pytest.raises(Stopped) as err:
        read_files(upload, name="upload")
    assert "damaged" not in str(err.value)


def test_a_folder_read_stops_between_files(tmp_path: Path) -> None:
    for k in range(30):
        (tmp_path / f"r{k:02d}.csv").write_bytes(_rows(k))
    stop = Countdown(after=4)
    with stop_when(stop, "the run was cancelled"), pytest.raises(Stopped):
        gather_paths([tmp_path])
    assert stop.checks == 4
    assert len(gather_paths([tmp_path]).files) == 30  # outside the condition: read whole


def test_other_threads_keep_reading() -> None:
    """The condition is this thread's: another session's read is not stopped."""
    import threading

    upload = [("runs.zip", _zip({f"r{k}.csv": _rows(k) for k in range(5)}))]
    seen: list[tuple[str, ...]] = []
    with stop_when(lambda: True, "its browser session ended"):
        worker = threading.Thread(
            target=lambda: seen.append(read_files(upload, name="upload").bench.models)
        )
        worker.start()
        worker.join()
    assert seen == [("m0", "m1", "m2")]


def test_an_eval_log_read_stops_between_samples(tmp_path: Path) -> None:
    """An inspect_ai log without summaries is read sample by sample (one member each)."""
    pytest.importorskip("inspect_ai")
    from eval_logs import repack, write_log

    values = {"match": [["C"] if k % 2 else ["I"] for k in range(30)]}
    log = write_log(tmp_path / "a.eval", model="m/one", task="quiz", values=values)
    samples = repack(log, tmp_path / "s.eval", drop=lambda n: "summaries" in n)
    upload = [("s.eval", samples.read_bytes())]
    assert read_files(upload, name="upload").bench.models  # unstopped: it loads
    stop = Countdown(after=6)
    with stop_when(stop, "its browser session ended"), pytest.raises(Stopped) as err:
        read_files(upload, name="upload")
    assert stop.checks == 6
    assert "was stopped: its browser session ended" in str(err.value)
