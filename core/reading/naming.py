"""A data set's name: the folder or file the user gave, else the harness, with the shape, e.g.
``"nightly: 13 models x 16 benchmarks"`` or ``"lm-eval v0.4: 13 models x 16 benchmarks"``
(issues 30 and 41).

The name titles the report, every chart subtitle, exports and a published data set; the user can
replace it (the Data page, ``--name``). A folder or file the user named says more than the
harness ("inspect_ai 0.3" of every inspect log): it names the data when there is one; files given
loose (several uploads, several paths) are named by their harness. A folder and its zip of the
same name get the same name (and the same :attr:`~benchuq.core.data.Benchmark.data_hash`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from benchuq.core.reading.meta import Group, Loaded, TaskRun

__all__ = ["GENERIC", "data_name", "harness_family", "unsaid_shape"]

GENERIC = frozenset({"", "data", "upload"})  # loader defaults that say nothing about the data


def data_name(loaded: Loaded) -> str:
    """The name of a loaded data set: ``"<folder or file>: <M> models x <N> <units>"``.

    The loader's name (the folder or file the user gave, without its extension) comes first;
    without one (a generic name: several files or paths), the harness of the files' provenance
    (lm-eval, HELM, inspect_ai, ...), else only the shape. lm-eval counts benchmarks (top-level
    groups such as ``mmlu`` count once, tasks outside any group once each); HELM counts its runs'
    scenarios.

    Examples
    --------
    >>> from benchuq.core.reading.loaders import read_sample
    >>> data_name(read_sample("vtab1k"))
    'vtab1k: 16 models x 19 tasks'
    """
    bench, meta = loaded.bench, loaded.meta
    family = harness_family(meta.runs)
    models = _count(len(bench.models), "model")
    if family.startswith("lm-eval"):
        n, unit = _benchmarks(bench.tasks, meta.groups), "benchmark"
    elif family.startswith("HELM"):
        n, unit = len({t.split(":", 1)[0] for t in bench.tasks}), "scenario"
    else:
        n, unit = len(bench.tasks), "task"
    shape = f"{models} x {_count(n, unit)}"
    own = "" if bench.name.strip() in GENERIC else bench.name.strip()
    label = own or family
    return f"{label}: {shape}" if label else shape


def unsaid_shape(name: str, models: int, tasks: int, *, times: str = "x") -> str:
    """The part of ``"<M> models x <T> tasks"`` that ``name`` does not already say, for a line
    that shows both (so each count is said once, in the right number).

    A name from :func:`data_name` carries the models and its unit; when that unit is not tasks
    (lm-eval benchmarks, HELM scenarios) and counts another number, the tasks are left to say.
    Any other name (a sample's, one the user gave) leaves the whole shape.

    Examples
    --------
    >>> unsaid_shape("lm-eval v0.4: 2 models x 16 benchmarks", 2, 72)
    '72 tasks'
    >>> unsaid_shape("HELM v3: 9 models x 2 scenarios", 9, 2)
    ''
    >>> unsaid_shape("toy", 2, 1, times="×")
    '2 models × 1 task'
    """
    m, t = _count(models, "model"), _count(tasks, "task")
    said = re.search(rf"(?:^|: ){re.escape(m)} x (\d+) \w+$", name.strip())
    if said is None:
        return f"{m} {times} {t}"
    return "" if int(said.group(1)) == tasks else t


def _count(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def harness_family(runs: Sequence[TaskRun]) -> str:
    """The harness most runs name, without build details: ``"lm-eval v0.4"``, ``"HELM
    safety_v3"``, ``"inspect_ai 0.3"``; ``""`` without provenance."""
    if not runs:
        return ""
    counts: dict[str, int] = {}
    for r in runs:
        key = _family(r)
        counts[key] = counts.get(key, 0) + 1
    return max(counts, key=lambda k: counts[k])


def _family(run: TaskRun) -> str:
    h = run.harness
    if h.startswith("lm-eval"):
        m = re.match(r"lm-eval (\d+)\.(\d+)", h)
        if m:
            return f"lm-eval v{m.group(1)}.{m.group(2)}"
        return "lm-eval v0.3" if "before v0.4" in h else "lm-eval v0.4"
    if h.startswith("HELM"):  # <suite>/<run folder>/<file>: the suite holds the run folders
        parts = run.file.split("/")
        return f"HELM {parts[-3] if len(parts) >= 3 else ''}".strip()
    m = re.match(r"([A-Za-z][\w.-]*?)(?: v?(\d+)\.(\d+)[\w.+-]*)?(?:,|$| )", h)
    if m is None:
        return h.split(",", 1)[0].strip()
    return m.group(1) + (f" {m.group(2)}.{m.group(3)}" if m.group(2) else "")


def _benchmarks(tasks: Sequence[str], groups: Sequence[Group]) -> int:
    """Top-level groups with a task in the data, plus tasks outside every group."""
    present = set(tasks)
    tops = [g for g in groups if g.parent is None and present & set(g.tasks)]
    grouped = {t for g in groups for t in g.tasks}
    return len(tops) + len(present - grouped)
