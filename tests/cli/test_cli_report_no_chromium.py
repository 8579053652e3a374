"""A machine without any browser (issue 38): the HTML report is complete, the PDF and the chart
images say in one line what to install, at once (no traceback, no hang, no stuck thread).

The machine is simulated in a subprocess: ``PATH`` holds only the venv's scripts and an empty
folder (no ``chromium`` on it) and ``BROWSER_PATH`` (kaleido's own setting, which would otherwise
find ``/usr/bin/chromium`` by its usual place) names a file that does not exist.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchuq.presentation import chromium

BOUND = 20  # seconds: the PDF without chromium must have failed by then (issue 38: within 20 s)


def _no_browser_env(tmp_path: Path) -> dict[str, str]:
    empty = tmp_path / "bin"
    empty.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PATH", "BROWSER_PATH")}
    env["PATH"] = os.pathsep.join((str(Path(sys.executable).parent), str(empty)))
    env["BROWSER_PATH"] = str(tmp_path / "no" / "chromium")
    return env


def _benchuq(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    code = "import sys; from benchuq.cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tmp_path,
        env=_no_browser_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=BOUND,  # a hang fails here
        check=False,
    )


@pytest.mark.parametrize("argv", [["-o", "r.pdf"], ["--format", "pdf", "-o", "out"]])
def test_pdf_without_chromium_exits_2_in_one_line(tmp_path: Path, argv: list[str]) -> None:
    done = _benchuq(tmp_path, "report", "sample:toy", *argv)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.strip().splitlines()  # one line: no traceback, no kaleido message
    assert line.startswith("benchuq report: error: A PDF report needs chromium")
    assert "apt-get install chromium" in line
    assert not list(tmp_path.glob("r.pdf")) and not (tmp_path / "out").exists()


def test_html_without_chromium_holds_every_figure(tmp_path: Path) -> None:
    """The toy sample's report: the gap chart, the leaderboard, the differences and the rank
    sets (one category: no weighting map), each a plotly figure with its title and its script,
    plotly.js inline once."""
    done = _benchuq(tmp_path, "report", "sample:toy", "-o", "r.html", "--reps", "200")
    assert done.returncode == 0, done.stderr
    doc = (tmp_path / "r.html").read_text(encoding="utf-8")
    ids = re.findall(r'<div id="(fig-\d+)" class="plotly-graph-div"', doc)
    assert ids == ["fig-1", "fig-2", "fig-3", "fig-4"]
    assert [doc.count(f'Plotly.newPlot("{i}",') for i in ids] == [1] * 4
    for title in ("How far behind the leader?", "All models: score with", "differences",
                  "Which ranks could each model hold?"):  # fmt: skip
        assert title in doc, title
    assert doc.count("plotly.js v") == 1


def test_api_pdf_without_chromium_raises_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import benchuq as bq

    for key, value in _no_browser_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    assert chromium.find() is None
    with pytest.raises(chromium.ChromiumMissing, match=r"apt-get install chromium\.$"):
        bq.report(bq.load("sample:toy"), tmp_path / "r.pdf", reps=100)
    assert not (tmp_path / "r.pdf").exists()
    with pytest.raises(chromium.ChromiumMissing, match="A PNG image needs chromium"):
        chromium.ChartImages().image(_figure(), "png")


def _figure():
    import plotly.graph_objects as go

    return go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))


def test_chromium_is_looked_up_on_path_and_by_browser_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bin" / "chromium"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setenv("PATH", str(fake.parent))
    assert chromium.find() == str(fake)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert chromium.find() is None
    assert "(not on PATH)" in chromium.missing_message("X")
    monkeypatch.setenv("BROWSER_PATH", str(fake))
    assert chromium.find() == str(fake)
    monkeypatch.setenv("BROWSER_PATH", "")
    assert chromium.find() is None


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (or is a zombie waiting to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


@pytest.mark.parametrize("what", ["pdf", "png"])
def test_a_chromium_that_never_answers_is_bounded_and_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    """A browser that hangs: the PDF and the chart image fail after their timeout with one line,
    its process is killed, and no thread is left waiting."""
    import threading
    import time

    before = {t.ident for t in threading.enumerate()}  # other tests' threads in this worker
    pidfile = tmp_path / "pid"
    fake = tmp_path / "chromium"
    fake.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 60\n")
    fake.chmod(0o755)
    monkeypatch.setenv("BROWSER_PATH", str(fake))
    with pytest.raises(chromium.ChromiumFailed, match=r"within 2 s\.$"):
        if what == "pdf":
            chromium.to_pdf("<p>x</p>", timeout=2)
        else:
            chromium.ChartImages(timeout=2).image(_figure(), "png")
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 20
    while not _gone(pid):
        assert time.monotonic() < deadline, "the hanging browser was left running"
        time.sleep(0.1)
    left = [t.name for t in threading.enumerate() if not t.daemon and t.ident not in before]
    assert left == []  # no thread of this call is left waiting
