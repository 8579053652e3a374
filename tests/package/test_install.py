"""The installable product (issue 14.1): the sdist builds, the wheel built from it installs into a
fresh venv with its declared dependencies from the package index, and ``benchuq`` works from a
folder outside the repository: the CLI on the samples, and ``benchuq app`` serving the dashboard.

One module-scoped install (about a minute with pip's cache warm; the first run downloads the
dependencies). Marked ``install``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_utils import run_app
from floors import ROOT, build_dists, make_venv, pip_install

from benchuq.core.analyses.embeddings import load_embedding_sample
from benchuq.core.reading.loaders import load_sample

pytestmark = pytest.mark.install


@dataclass(frozen=True)
class Install:
    python: Path
    wheel: Path
    sdist: Path
    outside: Path  # a folder outside the repository to run from

    def benchuq(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.python.parent / "benchuq"), *args]
        return subprocess.run(
            cmd, cwd=self.outside, capture_output=True, text=True, timeout=timeout, check=False
        )


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    root = tmp_path_factory.mktemp("install")
    sdist, wheel = build_dists(Path(sys.executable), root / "dist")
    python = make_venv(root / "venv")
    pip_install(python, "--only-binary=:all:", str(wheel))
    outside = root / "elsewhere"
    outside.mkdir()
    return Install(python, wheel, sdist, outside)


def test_only_benchuq_lands_at_the_top_of_site_packages(install: Install) -> None:
    with zipfile.ZipFile(install.wheel) as whl:
        (record,) = [n for n in whl.namelist() if n.endswith(".dist-info/RECORD")]
        dist_info = record.split("/")[0]
        names = whl.namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"benchuq", dist_info}, tops
    site = Path(
        subprocess.check_output(
            [str(install.python), "-c", "import benchuq, pathlib; print(benchuq.__file__)"],
            cwd=install.outside,
            text=True,
        ).strip()
    ).parents[1]
    listed = (site / dist_info / "RECORD").read_text(encoding="utf-8").splitlines()
    installed_tops = {line.split("/")[0] for line in listed if not line.startswith("..")}
    assert installed_tops == {"benchuq", dist_info}, installed_tops
    assert "benchuq/pages/weights.py" in names and "benchuq/core/reading/loaders.py" in names


@pytest.mark.parametrize(
    ("argv", "models"),
    [
        (["leaderboard", "sample:vtab1k"], lambda: load_sample("vtab1k").models),
        (["leaderboard", "sample:mmlu", "--reps", "500"], lambda: load_sample("mmlu").models),
        (
            ["leaderboard", "sample:alpaca_eval", "--reps", "500"],
            lambda: load_sample("alpaca_eval").models,
        ),
        (
            ["embeddings", "sample:alpaca_eval", "--bootstrap", "scores", "--heads", "4"],
            lambda: tuple(s.model for s in load_embedding_sample("alpaca_eval")[0]),
        ),
    ],
    ids=["vtab1k", "mmlu", "alpaca_eval", "embeddings"],
)
def test_cli_runs_on_the_samples_from_another_folder(install: Install, argv, models) -> None:
    done = install.benchuq(*argv, "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert {r["model"] for r in rows} == set(models())  # every file of the sample was read


def test_app_serves_the_dashboard_from_the_install(install: Install) -> None:
    launcher = (str(install.python.parent / "benchuq"),)
    with run_app(timeout=90, launcher=launcher, cwd=install.outside) as url:
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200 and '<div id="root">' in r.read().decode()


def test_every_data_file_the_code_reads_is_in_the_wheel(install: Install, tmp_path: Path) -> None:
    """Run the smoke checks here (the repository's code) with an audit hook; every non-Python
    file they open from the package folders must be in the wheel."""
    opened = tmp_path / "opened.json"
    smoke = [sys.executable, str(ROOT / "tests" / "smoke.py"), "--opened", str(opened), "cli"]
    done = subprocess.run(smoke, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    read = json.loads(opened.read_text(encoding="utf-8"))
    assert {"benchuq/sample_data/toy.csv", "benchuq/dashboard/streamlit_config.toml"} <= set(read)
    with zipfile.ZipFile(install.wheel) as whl:
        shipped = set(whl.namelist())
    assert [f for f in read if f not in shipped] == []
