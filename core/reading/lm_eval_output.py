"""lm-eval output as lm-eval writes it: results files and ``--log_samples`` files read together.

In ``<output>/<model>/`` lm-eval writes ``results_<time>.json`` and, with ``--log_samples``,
``samples_<task>_<time>.jsonl``. A sample file belongs to the results file of its folder with the
same timestamp (else of its folder). The sample files are read (item level: paired intervals)
when every task of every results file that has the metric has its sample file, or with format
``lm_eval_samples``; otherwise the results files are read (task-level counts) and the sample files
set aside with a note, because one data set cannot mix item-level and task-level results and no
result should be dropped silently. The results files still name the models, categories, groups
and run details of the sample files read. Categories are made one per task before merging
(:func:`harmonize`).
"""

from __future__ import annotations

from benchuq.core.data import Benchmark
from benchuq.core.reading.classify import File
from benchuq.core.reading.lm_eval import Outline, repeats_notes, results_outline
from benchuq.core.reading.lm_eval_names import SAMPLES_RE, sample_file_names
from benchuq.core.reading.long import TaskInfo
from benchuq.core.reading.meta import Meta, TaskRun
from benchuq.core.reading.notes import count, listing

__all__ = ["Part", "choose_lm_eval", "folder_of", "harmonize", "results_for", "with_results_info"]

#: One file read: (file name, benchmark, what the file said).
Part = tuple[str, Benchmark, Meta]


def choose_lm_eval(
    data: list[File], format: str, metric: str
) -> tuple[bool, dict[str, Outline], list[str]]:
    """(read the sample files?, results file -> its outline, notes) for the data files."""
    results = [f for f in data if f.kind == "lm_eval"]
    samples = [f for f in data if f.kind == "lm_eval_samples"]
    if not samples:
        return False, {}, []
    if format == "lm_eval":
        return False, {}, [f"{count(len(samples), 'sample file')} set aside (format lm_eval "
                           "reads results)."]  # fmt: skip
    outlines = {f.src.name: results_outline(f.src, metric, obj=f.obj) for f in results}
    gaps = _uncovered(outlines, samples)
    if format == "lm_eval_samples" or not gaps:  # the sample files take the results' names
        repeats = [n for f in results if isinstance(f.obj, dict) for n in repeats_notes(f.obj)]
        names = [f"{r}: {o.name_note}" for r, o in outlines.items() if o.name_note]
        return True, outlines, list(dict.fromkeys(repeats)) + names
    note = (
        f"{count(len(samples), 'sample file')} set aside: the results files were read, because "
        f"{count(len(gaps), 'result')} have no sample file ({listing(gaps)}); item-level analysis "
        "needs a sample file for every model and task (load the sample files alone, or with "
        "format lm_eval_samples)."
    )
    return False, outlines, [note]


def harmonize(parts: list[Part], tasks: TaskInfo | None) -> list[Part]:
    """One category per task before merging: the task table's, else the top-level lm-eval group
    that any file puts the task in (files without group information fall back to other
    categories, e.g. MMLU's, which would otherwise clash)."""
    mapping = {
        t: g.name for _, _, m in parts for g in m.groups if g.parent is None for t in g.tasks
    }
    mapping.update(tasks.category if tasks is not None else {})
    if not mapping:
        return parts
    return [(f, b.with_categories(mapping), m) for f, b, m in parts]


def folder_of(name: str) -> str:
    """The folder part of a file's name (``""`` for none)."""
    return name.rsplit("/", 1)[0] if "/" in name else ""


def results_for(sample: str, outlines: dict[str, Outline]) -> Outline | None:
    """The results file a sample file belongs to: same folder and timestamp, else same folder."""
    folder = folder_of(sample)
    m = SAMPLES_RE.match(sample.rsplit("/", 1)[-1])
    same = [(r, o) for r, o in outlines.items() if folder_of(r) == folder]
    if m:
        stamped = [o for r, o in same if r.endswith(f"results_{m.group('ts')}.json")]
        if stamped:
            return stamped[0]
    return same[0][1] if same else None


def _uncovered(outlines: dict[str, Outline], samples: list[File]) -> list[str]:
    """``model: task`` results that no sample file covers."""
    covered: dict[str, set[str]] = {}
    for f in samples:
        o = results_for(f.src.name, outlines)
        if o is None:
            continue
        _, task = sample_file_names(f.src.name.rsplit("/", 1)[-1], known_tasks=o.tasks)
        covered.setdefault(o.model, set()).add(task)
    return [
        f"{o.model}: {t}"
        for o in outlines.values()
        for t in o.with_metric
        if t not in covered.get(o.model, set())
    ]


def with_results_info(parts: list[Part], outlines: dict[str, Outline]) -> list[Part]:
    """Sample parts get the categories, groups and run details of their results files."""
    categories: dict[str, str] = {}
    for o in outlines.values():
        categories.update(o.categories)
    detail = {(r.model, r.task): r for o in outlines.values() for r in o.meta.runs}

    def enriched(r: TaskRun) -> TaskRun:
        d = detail.get((r.model, r.task))
        if d is None:
            return r
        return TaskRun(r.model, r.task, r.file, f"{d.harness}, --log_samples", d.version,
                       d.n_shot, r.metric, d.stderr)  # fmt: skip

    groups = Meta.join(o.meta for o in outlines.values()).groups
    out = [
        (file, b.with_categories(categories), Meta(tuple(map(enriched, m.runs)), (), m.metrics))
        for file, b, m in parts
    ]
    file, b, m = out[0]
    out[0] = (file, b, Meta(m.runs, groups, m.metrics))
    return out
