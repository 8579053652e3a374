"""Tested as installed (issues 14.1 and 38): the sdist builds, the wheel built from it holds every
package folder and data file of the repository, and installed into a fresh venv outside the
checkout (run from a folder elsewhere, so nothing is imported from the repository) every module
imports, every page runs under ``AppTest``, every CLI subcommand runs on the bundled samples, and
``benchuq app`` serves the dashboard.

One module-scoped wheel build and venv. The venv sees the system's packages
(``--system-site-packages``) and gets the wheel with ``--no-deps``: the declared dependencies are
checked by the floor run of ``scripts/test.sh`` (``tests/floors.py``), not here. Marked ``install``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_utils import run_app
from cli_cases import CASES
from floors import PIP, ROOT, build_dists, run

from benchuq.cli.main import COMMANDS

pytestmark = pytest.mark.install

#: installed name -> repository folder (``[tool.setuptools.package-dir]``, ``setup.py``)
ROOTS = {
    "benchuq": "benchuq",
    "benchuq/core": "core",
    "benchuq/cli": "cli",
    "benchuq/dashboard": "dashboard",
    "benchuq/pages": "pages",
    "benchuq/sample_data": "sample_data",
}
#: streamlit scripts: run by ``AppTest`` (test_every_page_runs_from_the_install), not imported
SCRIPTS = ("benchuq.pages.", "benchuq.dashboard.app", "benchuq.__main__")


@dataclass(frozen=True)
class Install:
    python: Path
    wheel: Path
    sdist: Path
    outside: Path  # a folder outside the repository to run from

    def run(
        self, cmd: list[str], *, timeout: float = 300, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            cmd,
            cwd=self.outside,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, **(env or {})},
        )

    def benchuq(self, *args: str, **kwargs) -> subprocess.CompletedProcess[str]:
        return self.run([str(self.python.parent / "benchuq"), *args], **kwargs)

    def python_code(self, code: str, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run([str(self.python), "-c", code, *args])


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    root = tmp_path_factory.mktemp("install")
    sdist, wheel = build_dists(Path(sys.executable), root / "dist")
    run([sys.executable, "-m", "venv", "--system-site-packages", "--clear", str(root / "venv")])
    python = root / "venv" / "bin" / "python"
    # --ignore-installed: the system may hold an editable benchuq of some checkout
    run([str(python), *PIP, "install", "--quiet", "--no-deps", "--no-index",
         "--ignore-installed", str(wheel)])  # fmt: skip
    outside = root / "elsewhere"
    outside.mkdir()
    return Install(python, wheel, sdist, outside)


def _repository_files() -> list[str]:
    """The repository's files under the package folders, as paths inside the wheel (the tracked
    ones; without git, every file but caches)."""
    folders = list(ROOTS.values())
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--", *folders],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        listed = [
            str(p.relative_to(ROOT))
            for f in folders
            for p in (ROOT / f).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ]
    out = []
    for name in filter(None, listed):
        top, _, rest = name.partition("/")
        inside = next(k for k, v in ROOTS.items() if v == top)
        out.append(f"{inside}/{rest}")
    return sorted(out)


def test_every_package_folder_and_data_file_is_in_the_wheel(install: Install) -> None:
    """Every folder with an ``__init__.py`` under benchuq/, core/, cli/, dashboard/, pages/ and
    sample_data/ ships, with every module and data file of the repository there: the samples,
    ``methods.md`` and the Streamlit config (issue 38: the wheel had dropped
    ``benchuq.dashboard.two_runs``)."""
    with zipfile.ZipFile(install.wheel) as whl:
        shipped = set(whl.namelist())
    files = _repository_files()
    packages = [f for f in files if f.endswith("/__init__.py")]
    assert "benchuq/dashboard/two_runs/__init__.py" in packages
    assert len(packages) >= 30
    # a .py file outside a package is a maintainer's script (sample_data/embeddings/make_samples.py)
    folders = {f.rsplit("/", 1)[0] for f in packages}
    wanted = [f for f in files if not f.endswith(".py") or f.rsplit("/", 1)[0] in folders]
    assert [f for f in wanted if f not in shipped] == []
    data = ["dashboard/methods.md", "dashboard/streamlit_config.toml", "sample_data/toy.csv"]
    data += ["sample_data/mmlu/mpt-7b_mmlu_5-shot.json", "core/resources/mmlu_subjects.csv"]
    assert [f for f in data if f"benchuq/{f}" not in shipped] == []


def test_only_benchuq_lands_at_the_top_of_site_packages(install: Install) -> None:
    with zipfile.ZipFile(install.wheel) as whl:
        (record,) = [n for n in whl.namelist() if n.endswith(".dist-info/RECORD")]
        dist_info = record.split("/")[0]
        names = whl.namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"benchuq", dist_info}, tops
    done = install.python_code("import benchuq, pathlib; print(benchuq.__file__)")
    site = Path(done.stdout.strip()).parents[1]
    listed = (site / dist_info / "RECORD").read_text(encoding="utf-8").splitlines()
    installed_tops = {line.split("/")[0] for line in listed if not line.startswith("..")}
    assert installed_tops == {"benchuq", dist_info}, installed_tops
    assert "benchuq/pages/weights.py" in names and "benchuq/core/reading/loaders.py" in names


IMPORT_ALL = """
import importlib, json, pkgutil, sys
import benchuq
scripts = tuple(sys.argv[1:])
names, failed = [], {}
for m in pkgutil.walk_packages(benchuq.__path__, "benchuq."):
    names.append(m.name)
    if m.name.startswith(scripts):
        continue
    try:
        importlib.import_module(m.name)
    except Exception as err:
        failed[m.name] = f"{type(err).__name__}: {err}"
print(json.dumps({"file": benchuq.__file__, "modules": names, "failed": failed}))
"""


def test_every_module_imports_from_the_install(install: Install) -> None:
    done = install.python_code(IMPORT_ALL, *SCRIPTS)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert Path(got["file"]).is_relative_to(install.python.parents[1])  # not the repository's
    assert got["failed"] == {}
    files = _repository_files()
    folders = {f.rsplit("/", 1)[0] for f in files if f.endswith("/__init__.py")}
    modules = {
        f.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for f in files
        if f.endswith(".py") and f.rsplit("/", 1)[0] in folders
    }
    assert modules - {"benchuq"} == set(got["modules"])  # every module of the repository


def test_every_page_runs_from_the_install(install: Install) -> None:
    """``tests/smoke.py pages``: an ``AppTest`` run of every installed page file with the default
    sample, no exception and no error box (the repository's tests folder holds no package, so
    ``benchuq`` is the installed one)."""
    smoke = [str(install.python), str(ROOT / "tests" / "smoke.py"), "pages"]
    done = install.run(smoke, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    pages = {p.name for p in (ROOT / "pages").glob("*.py")} - {"__init__.py"}
    ran = {line.split("page ", 1)[1] for line in done.stdout.splitlines() if line.startswith("ok")}
    assert ran == pages


def _json_case(name: str) -> tuple[list[str], dict]:
    return [*CASES[name], "--json"], json.loads(
        (ROOT / "tests" / "fixtures" / "cli_json" / f"{name}.json").read_text(encoding="utf-8")
    )


#: one quick recorded case per subcommand that prints JSON (tests/cli_cases.py)
JSON_CASES = ("leaderboard_toy", "compare_mmlu", "diff_alpaca_eval", "ranks_toy", "epp_toy",
              "arena_alpaca_eval", "weights_vtab1k", "bayes_toy", "eb_toy", "power_toy",
              "publish_toy", "judge_mt_bench")  # fmt: skip


@pytest.mark.parametrize("name", JSON_CASES)
def test_json_subcommands_from_the_install(install: Install, name: str, tmp_path: Path) -> None:
    """Exit 0 and the recorded JSON's keys, and the same models, as the repository's CLI."""
    argv, recorded = _json_case(name)
    done = install.benchuq(*argv, env={"BENCHUQ_STORE": str(tmp_path / "store")})
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert set(got) == set(recorded)
    if "rows" in recorded:
        assert len(got["rows"]) == len(recorded["rows"])
        models = [r.get("model") for r in recorded["rows"]]
        assert [r.get("model") for r in got["rows"]] == models


def test_embeddings_from_the_install(install: Install) -> None:
    from benchuq.core.analyses.embeddings import load_embedding_sample

    argv = ["embeddings", "sample:alpaca_eval", "--bootstrap", "scores", "--heads", "4"]
    done = install.benchuq(*argv, "--reps", "100", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["rows"]
    assert {r["model"] for r in rows} == {s.model for s in load_embedding_sample("alpaca_eval")[0]}


def test_report_export_unpublish_and_site_from_the_install(
    install: Install, tmp_path: Path
) -> None:
    """The subcommands that write files or act on the store: the HTML report holds its four
    figures, export writes one Every Eval Ever file per model, unpublish deletes, site writes
    the leaderboard page and its JSON."""
    out = tmp_path / "r.html"
    done = install.benchuq("report", "sample:toy", "-o", str(out), "--reps", "200")
    assert done.returncode == 0, done.stderr
    doc = out.read_text(encoding="utf-8")
    assert doc.count('class="plotly-graph-div"') == 4 and "<h1>toy — 2 models × 3 tasks</h1>" in doc
    done = install.benchuq("export", "sample:toy", "-o", str(tmp_path / "eee"), "--reps", "200")
    assert done.returncode == 0, done.stderr
    written = sorted(p.parent.name for p in (tmp_path / "eee").rglob("*.json"))
    assert written == ["A", "B"]  # one file per model of the toy sample
    store = {"BENCHUQ_STORE": str(tmp_path / "store")}
    shared = json.loads(install.benchuq("publish", "sample:toy", "--json", env=store).stdout)
    done = install.benchuq("unpublish", shared["id"], "--token", shared["delete_token"], env=store)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Deleted shared:{shared['id']}")
    done = install.benchuq("site", "sample:toy", "-o", str(tmp_path / "site"), "--reps", "200")
    assert done.returncode == 0, done.stderr
    board = json.loads((tmp_path / "site" / "leaderboard.json").read_text(encoding="utf-8"))
    assert {r["model"] for r in board["rows"]} == {"A", "B"}
    assert "<table" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


def test_every_subcommand_is_run_here() -> None:
    """The cases above cover every subcommand (``app`` by the server test below)."""
    covered = {CASES[n][0] for n in JSON_CASES}
    covered |= {"embeddings", "report", "export", "unpublish", "site"}
    assert covered | {"app"} == set(COMMANDS)


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
