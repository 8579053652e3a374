"""The declared dependency minimums, installed: the floor check that ``scripts/test.sh`` runs.

``python3 tests/floors.py DIR`` reads ``pyproject.toml`` and writes ``DIR/constraints.txt``: one
``name==floor`` line for every direct dependency (``[project] dependencies`` and every optional
extra; environment markers kept, extras such as ``dask[distributed]`` dropped, since a constraint
names a distribution; where two lists name a package, the higher floor). It then makes the venv
``DIR/venv``, installs the declared requirements under those constraints from wheels only (a floor
without a Python 3.11 wheel fails here instead of compiling), builds the sdist and wheel with that
venv's ``build`` (the build tool's floor in use), installs benchuq editable without dependencies,
checks that every installed version equals its floor, and prints the venv's python.
``scripts/test.sh`` runs the project's checks (ruff, the fast suite) with it.

``python3 tests/floors.py --runtime DIR`` then installs, into that venv, the runtime floors that an
extra had raised (``streamlit``: the app needs less than the tests' ``AppTest``), and
``scripts/test.sh`` runs ``tests/smoke.py`` there: the product on its own minimums.

A requirement without a lower bound (``name``, ``name<3``, ``name>1``) is an error: a floor must be
a version that exists and is proven to work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PIP = ("-m", "pip", "--disable-pip-version-check", "--no-input")
#: Downloaded wheels, kept between runs (``BENCHUQ_WHEELHOUSE`` overrides).
WHEELHOUSE = Path(
    os.environ.get("BENCHUQ_WHEELHOUSE", Path.home() / ".cache" / "benchuq-wheelhouse")
)


#: Extras installed apart from the others, never together with them: ``arena-rank`` pins numpy
#: and needs JAX (``pyproject.toml``), so its floor is not the project's.
APART = frozenset({"arena-rank"})


class FloorError(ValueError):
    """A declared requirement whose floor cannot be read."""


def declared(pyproject: dict) -> list[Requirement]:
    """Every direct dependency: runtime and all extras, without references to the project itself."""
    project = pyproject["project"]
    own = canonicalize_name(project["name"])
    texts = list(project.get("dependencies", []))
    for name, group in project.get("optional-dependencies", {}).items():
        if name not in APART:
            texts += group
    reqs = [Requirement(t) for t in texts]
    return [r for r in reqs if canonicalize_name(r.name) != own]


def floor_of(req: Requirement) -> Version:
    """The lowest version ``req`` admits: its ``>=``, ``~=`` or ``==`` bound (the highest one)."""
    lows = []
    for spec in req.specifier:
        if spec.operator in (">=", "~=", "==", "==="):
            lows.append(Version(spec.version.removesuffix(".*")))
        elif spec.operator == ">":
            raise FloorError(
                f"'{req}': '>' excludes its bound; write '>=' with the first good one."
            )
    if not lows:
        raise FloorError(f"'{req}' declares no floor; write '{req.name}>=VERSION' (proven here).")
    return max(lows)


def floor_constraints(reqs: list[Requirement]) -> list[str]:
    """``name==floor[; marker]`` lines, one per distribution and marker (the highest floor wins
    when the runtime list and an extra both name a package)."""
    floors: dict[tuple[str, str], Version] = {}
    for req in reqs:
        key = (canonicalize_name(req.name), str(req.marker) if req.marker else "")
        floors[key] = max(floors.get(key, Version("0")), floor_of(req))
    return [
        f"{name}=={v}" + (f"; {marker}" if marker else "") for (name, marker), v in floors.items()
    ]


def applies(line: str) -> bool:
    """Whether a constraint line's marker holds for this interpreter."""
    _, _, marker = line.partition(";")
    return not marker.strip() or Marker(marker.strip()).evaluate()


def run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run ``cmd``; on failure raise with its output (pip's resolver explains conflicts there)."""
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{done.stdout}\n{done.stderr}")
    return done


def make_venv(path: Path) -> Path:
    """A fresh venv (with pip) at ``path``; returns its python."""
    run([sys.executable, "-m", "venv", "--clear", str(path)])
    return path / "bin" / "python"


def pip_install(python: Path, *args: str, wheelhouse: bool = True) -> None:
    """``pip install`` into ``python``'s environment, without byte-compiling (``--no-compile``:
    Python compiles what the checks import, a small part of what is installed; compiling every
    module took 45 s of CPU). Wheels come from :data:`WHEELHOUSE`: when it already holds a wheel
    for everything, nothing is asked of the package index (resolving there took 84 s of CPU
    even with every wheel at hand); else the missing ones are downloaded into it first (``pip
    download`` skips files it already has) and the install runs again. pip's own HTTP cache
    stores nothing on these machines, so the folder is the cache that makes a second install
    fast. ``wheelhouse=False`` installs directly (an editable project)."""
    install = [str(python), *PIP, "install", "--quiet", "--no-compile"]
    if not wheelhouse:
        run([*install, *args])
        return
    WHEELHOUSE.mkdir(parents=True, exist_ok=True)
    for own in WHEELHOUSE.glob("benchuq-*"):  # the project's wheel is given by its path
        own.unlink()
    links = ("--find-links", str(WHEELHOUSE))
    offline = [*install, "--no-index", *links, *args]
    if subprocess.run(offline, capture_output=True, check=False).returncode == 0:
        return
    run([str(python), *PIP, "download", "--quiet", "--dest", str(WHEELHOUSE), *links, *args])
    for own in WHEELHOUSE.glob("benchuq-*"):
        own.unlink()
    run(offline)


def build_dists(python: Path, outdir: Path) -> tuple[Path, Path]:
    """The sdist, and the wheel built from it, of the repository (``python -m build``)."""
    run([str(python), "-m", "build", "--outdir", str(outdir), str(ROOT)])
    (sdist,) = outdir.glob("*.tar.gz")
    (wheel,) = outdir.glob("*.whl")
    return sdist, wheel


def installed_versions(python: Path, names: list[str]) -> dict[str, str]:
    """``{name: version}`` of distributions installed for ``python``."""
    code = (
        "import json, sys; from importlib.metadata import version; "
        "print(json.dumps({n: version(n) for n in sys.argv[1:]}))"
    )
    return json.loads(run([str(python), "-c", code, *names]).stdout)


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def check_versions(python: Path, lines: list[str]) -> None:
    """Every constraint that applies here is what ``python`` has installed."""
    wanted = dict(line.split(";")[0].split("==") for line in lines if applies(line))
    got = installed_versions(python, sorted(wanted))
    wrong = {n: got[n] for n in wanted if Version(got[n]) != Version(wanted[n])}
    if wrong:
        raise RuntimeError(f"installed versions differ from the floors {wanted}: {wrong}")


def install_floors(folder: Path) -> Path:
    """The floor venv under ``folder`` (see the module docstring); returns its python."""
    reqs = declared(pyproject())
    lines = floor_constraints(reqs)
    constraints = folder / "constraints.txt"
    constraints.write_text("\n".join(lines) + "\n", encoding="utf-8")
    python = make_venv(folder / "venv")
    pip_install(python, "--only-binary=:all:", "-c", str(constraints), *map(str, reqs))
    with tempfile.TemporaryDirectory() as dist:
        build_dists(python, Path(dist))
    pip_install(python, "--no-deps", "-e", str(ROOT), wheelhouse=False)
    run([str(python), *PIP, "check"])
    check_versions(python, lines)
    return python


def raised_by_extras(project: dict) -> list[str]:
    """Runtime floor lines that the combined constraints replace with an extra's higher floor."""
    combined = set(floor_constraints(declared(project)))
    runtime_only = {**project["project"], "optional-dependencies": {}}
    return [
        line
        for line in floor_constraints(declared({"project": runtime_only}))
        if line not in combined
    ]


def runtime_floors(folder: Path) -> list[str]:
    """Where an extra raises a package's floor (the tests need a newer streamlit than the app),
    install the runtime floor into the floor venv, for the smoke check; returns those lines."""
    lower = [line for line in raised_by_extras(pyproject()) if applies(line)]
    python = folder / "venv" / "bin" / "python"
    if lower:
        named = {Requirement(line).name for line in lower}
        combined = (folder / "constraints.txt").read_text(encoding="utf-8").splitlines()
        kept = [line for line in combined if Requirement(line).name not in named]
        constraints = folder / "runtime-constraints.txt"
        constraints.write_text("\n".join(kept + lower) + "\n", encoding="utf-8")
        pip_install(python, "--only-binary=:all:", "-c", str(constraints), *lower)
        run([str(python), *PIP, "check"])
        check_versions(python, lower)
    return lower


def main(argv: list[str]) -> int:
    runtime = argv[:1] == ["--runtime"]
    argv = argv[1:] if runtime else argv
    if len(argv) != 1:
        print("usage: python3 tests/floors.py [--runtime] DIR", file=sys.stderr)
        return 2
    folder = Path(argv[0]).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    try:
        lines = runtime_floors(folder) if runtime else None
        python = folder / "venv" / "bin" / "python" if runtime else install_floors(folder)
    except (FloorError, RuntimeError) as err:
        print(f"floors: {err}", file=sys.stderr)
        return 1
    if lines is None:
        lines = (folder / "constraints.txt").read_text(encoding="utf-8").splitlines()
    shown = ", ".join(lines) or "none lower than the extras' floors"
    print(
        f"floors{' (runtime)' if runtime else ''}: {shown} ({time.monotonic() - start:.0f} s)",
        file=sys.stderr,
    )
    print(python)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
