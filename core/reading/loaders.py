"""Loading results into a :class:`core.data.Benchmark` (METHODS 0): files, folders, samples.

Entry points: :func:`load_path` (a file or a folder), :func:`load_files` (uploaded bytes, what the
dashboard gets), :func:`load_sample` and :func:`resolve` (``sample:<name>``, or one or more
files, folders, zip archives and glob patterns: the CLI's ``DATA``). Each has a ``read_*`` twin
returning a :class:`~benchuq.core.reading.meta.Loaded`: the benchmark and what the files said
about it (provenance, lm-eval groups, the metrics on offer).

Formats (``format=``): ``long``, ``wide``, ``items``, ``lm_eval``, ``lm_eval_samples``,
``alpaca_eval``, ``inspect``, ``helm``, ``lighteval``, ``oaieval``, ``eee`` (Every Eval Ever), or
``auto`` (detected from each file's content). In a
collection (a folder, an archive, several files) files that are not results are skipped with one
note (:mod:`.classify`, :mod:`.files`); a file that claims to be a result and is broken stops
the load. Every failure is a :class:`DataError` naming the file, row and column and saying how to
fix it. Notes from many files are said once with a count (:mod:`.notes`).

Long on purpose: the one entry point of reading: sources, classification, the formats' table,
partner files (lm-eval results with samples, HELM specs), merging and the notes, which must see
each other's files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import NoReturn, TypeVar

import numpy as np

from benchuq.core.budget import checkpoint, hold, reading_files
from benchuq.core.data import Benchmark, DataError
from benchuq.core.options import option
from benchuq.core.reading import battles, eee, lighteval
from benchuq.core.reading.answers import answer_notes
from benchuq.core.reading.arrow import ArrowTable
from benchuq.core.reading.classify import AUX_LABELS, DATA_KINDS, File, classify
from benchuq.core.reading.eval_zip import is_eval_archive
from benchuq.core.reading.files import (
    READING_FILES,
    Gathered,
    expand_archives,
    gather_paths,
    is_zip,
    read_capped,
)
from benchuq.core.reading.formats import format_of
from benchuq.core.reading.helm import helm_run
from benchuq.core.reading.items import item_records, items_benchmark
from benchuq.core.reading.judged import alpaca_benchmark, alpaca_leaderboard_benchmark
from benchuq.core.reading.lm_eval import Outline, read_results
from benchuq.core.reading.lm_eval_output import (
    Part,
    choose_lm_eval,
    folder_of,
    harmonize,
    results_for,
    with_results_info,
)
from benchuq.core.reading.lm_eval_samples import read_samples
from benchuq.core.reading.long import TaskInfo, long_benchmark, read_task_table, wide_to_long
from benchuq.core.reading.merge import RUNS, Runs, merge
from benchuq.core.reading.meta import Loaded, Meta, MissingMetric, TaskRun
from benchuq.core.reading.names import confusable_notes
from benchuq.core.reading.notes import count, group_notes, listing
from benchuq.core.reading.options import Failed, reading
from benchuq.core.reading.overlap import disjoint_notes
from benchuq.core.reading.sources import parse_source
from benchuq.core.reading.table import Source, Table, check_mapping, looks_like_json, read_table
from benchuq.core.validation import check_choice

__all__ = [
    "FORMATS",
    "SAMPLES",
    "load_files",
    "load_path",
    "load_sample",
    "read_data",
    "read_files",
    "read_paths",
    "read_sample",
    "resolve",
]

SAMPLE_DIR = Path(str(files("benchuq.sample_data")))
FORMATS: tuple[str, ...] = ("auto", *DATA_KINDS)
SAMPLES: dict[str, str] = {
    "vtab1k": "VTAB-1k: 16 vision models x 19 tasks in 3 categories, integer counts (2019).",
    "mmlu": "MMLU 5-shot: 20 language models x 57 subjects in 4 categories, counts (lm-eval).",
    "alpaca_eval": "AlpacaEval 2.0: 9 models x 805 instructions judged by GPT-4 Turbo, 5 sources.",
    "toy": "Toy: two models, three tasks of 200, 10,000 and 20,000 items; they differ on one.",
}
_SAMPLE_FILES: dict[str, tuple[str, str]] = {
    "vtab1k": ("vtab1k.csv", "long"),
    "mmlu": ("mmlu", "lm_eval"),
    "alpaca_eval": ("alpaca_eval.csv", "alpaca_eval"),
    "toy": ("toy.csv", "long"),
}
_SAMPLE_NOTES: dict[str, tuple[str, ...]] = {
    "vtab1k": (
        "VTAB-1k (google-research/task_adaptation): correct = round(accuracy x n_scored); "
        "From-Scratch's published accuracies are not whole counts and were rounded.",
    ),
    "mmlu": (
        "MMLU 5-shot (lm-evaluation-harness results of LLaMA, MPT-7B and Pythia): "
        "correct = acc x n_test, exact for every subject. Models are named by their files "
        "(family and size, lower case; every Pythia model at its final checkpoint, step "
        "143000).",
    ),
    "alpaca_eval": (
        "AlpacaEval 2.0 (tatsu-lab/alpaca_eval): per-instruction preference of GPT-4 Turbo "
        "against gpt4_1106_preview; subgroups = instruction source.",
    ),
}
#: The bundled MMLU files name models three ways (a file name, a hub id, a hub id@revision);
#: the sample uses the model part of each file name: ``llama-30B_mmlu_5-shot.json`` -> llama-30b.
_MMLU_SUFFIXES = ("_mmlu_5-shot", "-5shot_step143000")


def load_sample(name: str) -> Benchmark:
    """A bundled sample data set by name (see :data:`SAMPLES`)."""
    return read_sample(name).bench


def read_sample(name: str) -> Loaded:
    """:func:`load_sample` with what the files say (:class:`Loaded`)."""
    if name not in _SAMPLE_FILES:
        message, other = _not_scores(name)
        hint = f"choose one of {sorted(SAMPLES)} (e.g. sample:vtab1k)."
        raise DataError(message, hint=f"for scores, {hint}" if other else hint)
    file, fmt = _SAMPLE_FILES[name]
    loaded = read_paths([SAMPLE_DIR / file], format=fmt, name=name)
    if name == "mmlu":
        loaded = _rename_models(loaded, _mmlu_names(loaded.meta))
    extra = _SAMPLE_NOTES.get(name, ())
    bench = loaded.bench
    return Loaded(bench._replace(notes=extra + bench.notes), loaded.meta)


def _not_scores(name: str) -> tuple[str, bool]:
    """Why ``sample:<name>`` is no score sample: unknown (``False``), or a sample of another kind
    (battles, judge data: ``True``) named with where it is read."""
    from benchuq.core.reading.battles import BATTLE_SAMPLES
    from benchuq.core.reading.judge_data import JUDGE_SAMPLES

    if name in BATTLE_SAMPLES:
        return (
            f"sample:{name} holds pairwise battles (model_a, model_b, winner), not scores; the "
            "arena rates them (benchuq arena, bq.arena, the Arena page).",
            True,
        )
    if name in JUDGE_SAMPLES:
        return (
            f"sample:{name} holds an LLM judge's scores with human labels; the judge analysis "
            "reads it (benchuq judge, bq.judge, the Judge page).",
            True,
        )
    return f"unknown sample '{name}'.", False


def _mmlu_names(meta: Meta) -> dict[str, str]:
    out = {}
    for run in meta.runs:
        stem = run.file.rsplit("/", 1)[-1].removesuffix(".json")
        for suffix in _MMLU_SUFFIXES:
            stem = stem.removesuffix(suffix)
        out[run.model] = stem.lower()
    return out


def _rename_models(loaded: Loaded, names: dict[str, str]) -> Loaded:
    bench, meta = loaded.bench, loaded.meta
    runs = tuple(TaskRun(**{**r.__dict__, "model": names.get(r.model, r.model)}) for r in meta.runs)
    models = tuple(names.get(m, m) for m in bench.models)
    # the sample's own note says how its models are named: drop the notes on the files' names
    said = tuple(f"model name '{m}' taken from the" for m in names)
    notes = tuple(n for n in bench.notes if not any(s in n for s in said))
    bench = bench._replace(models=models, notes=notes)
    return Loaded(bench, Meta(runs, meta.groups, meta.metrics))


def resolve(
    data: str | Sequence[str],
    *,
    format: str = "auto",
    tasks: str | None = None,
    metric: str | None = None,
    name: str | None = None,
    failed: Failed = "exclude",
    runs: Runs = "newest",
) -> Benchmark:
    """``sample:<name>``, or files, folders, zips and globs (the CLI's ``DATA`` arguments)."""
    return read_data(
        data, format=format, tasks=tasks, metric=metric, name=name, failed=failed, runs=runs
    ).bench


def read_data(
    data: str | Sequence[str],
    *,
    format: str = "auto",
    tasks: str | None = None,
    metric: str | None = None,
    name: str | None = None,
    failed: Failed = "exclude",
    runs: Runs = "newest",
) -> Loaded:
    """:func:`resolve` with what the files say (:class:`Loaded`); ``runs``: two runs of one model
    on the same tasks, the newest kept (``"newest"``) or both (``"all"``; :mod:`.merge`)."""
    source = parse_source(data)
    items = [data] if isinstance(data, str) else list(data)
    if len(items) > 1 and (mixed := [d for d in items if parse_source(d).kind == "sample"]):
        raise DataError(
            f"'{mixed[0]}' cannot be combined with other data.",
            hint="give one sample:<name>, or files and folders.",
        )
    if source.kind == "sample":
        loaded = read_sample(source.name)
        if tasks is None:
            return loaded
        info = read_task_table(read_table(Source(*_task_source(tasks))))
        return Loaded(_apply_task_info(loaded.bench, info), loaded.meta)
    return read_paths(
        items, format=format, tasks=tasks, metric=metric, name=name, failed=failed, runs=runs
    )


def load_path(
    path: str | Path,
    *,
    format: str = "auto",
    tasks: str | Path | None = None,
    metric: str | None = None,
    name: str | None = None,
    failed: Failed = "exclude",
    runs: Runs = "newest",
) -> Benchmark:
    """Load a file, a folder (recursively; see :mod:`.files`) or a zip archive.

    ``failed``: samples of harness logs (inspect_ai) that errored or hit a limit are left out
    (``"exclude"``, counted in a note) or counted as wrong (``"wrong"``); ``runs``: see
    :func:`read_files`.
    """
    return read_paths(
        [path], format=format, tasks=tasks, metric=metric, name=name, failed=failed, runs=runs
    ).bench


def read_paths(
    paths: Sequence[str | Path],
    *,
    format: str = "auto",
    tasks: str | Path | None = None,
    metric: str | None = None,
    name: str | None = None,
    failed: Failed = "exclude",
    runs: Runs = "newest",
) -> Loaded:
    """Files, folders, zips and glob patterns, read together (:class:`Loaded`)."""
    got: Gathered = gather_paths(paths)
    return read_files(
        list(got.files),
        format=format,
        tasks=None if tasks is None else _task_source(tasks),
        metric=metric,
        name=name or got.name,
        failed=failed,
        collection=got.collection,
        skipped=got.skipped,
        origin=str(paths[0]) if len(paths) == 1 else None,
        runs=runs,
    )


def _task_source(tasks: str | Path) -> tuple[str, bytes]:
    """The task table file as ``(name, bytes)``; a missing one is a :class:`DataError`."""
    tp = Path(tasks)
    if not tp.is_file():
        raise DataError(
            "the task table file does not exist.",
            file=str(tasks),
            hint=f"check the path given as {option('tasks')}.",
        )
    return tp.name, read_capped(tp)


def load_files(
    files: list[tuple[str, bytes]],
    *,
    format: str = "auto",
    tasks: tuple[str, bytes] | None = None,
    metric: str | None = None,
    columns: dict[str, str] | None = None,
    name: str | None = None,
    failed: Failed = "exclude",
    runs: Runs = "newest",
) -> Benchmark:
    """Load uploaded files ``[(file name, bytes), ...]`` into one :class:`Benchmark`."""
    return read_files(
        files,
        format=format,
        tasks=tasks,
        metric=metric,
        columns=columns,
        name=name,
        failed=failed,
        runs=runs,
    ).bench


def read_files(
    files: list[tuple[str, bytes]],
    *,
    format: str = "auto",
    tasks: tuple[str, bytes] | None = None,
    metric: str | None = None,
    columns: dict[str, str] | None = None,
    name: str | None = None,
    collection: bool | None = None,
    skipped: Sequence[str] = (),
    origin: str | None = None,
    failed: Failed = "exclude",
    runs: Runs = "newest",
) -> Loaded:
    """Uploaded files (or a gathered folder) as one data set (:class:`Loaded`).

    ``collection`` (default: more than one file, or a zip archive) makes files that are not
    results skipped with a note instead of reported as errors; ``skipped`` names files set aside
    unread; ``origin`` (the folder) is named when there are no results at all. A task table
    (``task, category, n``), AlpacaEval's instruction list and, next to annotations, its
    leaderboard file are recognised and used or set aside (with a note); lm-eval results files
    next to sample files name the model; HELM runs are read with their folder's run_spec.json.
    ``failed``: see :func:`load_path`; ``runs``: two runs of one model on the same tasks, the
    newest kept (``"newest"``, when the file names carry run times) or both (``"all"``), each
    with a note (:mod:`.merge`).
    """
    check_choice(runs, RUNS, name="runs")
    with reading(failed=failed), reading_files():
        return _read_files(
            files,
            format=format,
            tasks=tasks,
            metric=metric,
            columns=columns,
            name=name,
            collection=collection,
            skipped=skipped,
            origin=origin,
            runs=runs,
        )


def _read_files(
    files: list[tuple[str, bytes]],
    *,
    format: str,
    tasks: tuple[str, bytes] | None,
    metric: str | None,
    columns: dict[str, str] | None,
    name: str | None,
    collection: bool | None,
    skipped: Sequence[str],
    origin: str | None,
    runs: Runs,
) -> Loaded:
    if format not in FORMATS:
        raise DataError(f"unknown format '{format}'.", hint=f"choose one of {', '.join(FORMATS)}.")
    if not files and not skipped:
        raise DataError("no files were given.", hint="upload at least one results file.")
    if collection is None:
        collection = len(files) > 1 or any(
            is_zip(bytes(b)) and not is_eval_archive(Source(str(n), bytes(b))) for n, b in files
        )
    expanded, more = expand_archives([(str(n), bytes(b)) for n, b in files])
    sources = [Source(n, b) for n, b in expanded]
    held = {id(b): len(b) for b in [*(b for _, b in files), *(s.data for s in sources)]}
    classified = []
    hold(sum(held.values()))  # every file is held while each is parsed (core.budget)
    for s in sources:
        checkpoint(READING_FILES)  # a closed tab's read ends between files (core.budget)
        classified.append(_with_file(partial(classify, s, columns, lenient=collection), s.name))
    if columns:
        check_mapping(columns, {c for f in classified for c in f.raw_columns}, sources[0].name)
    if given := [f for f in classified if f.kind == battles.KIND]:
        raise battles.not_scores(given[0].src.name)
    others = [f for f in classified if f.kind == "other"]
    classified = [f for f in classified if f.kind != "other"]
    notes: list[str] = []
    skip_note = _skip_note(others, [*skipped, *more])
    task_info = None
    if tasks is not None:
        task_info = read_task_table(read_table(Source(*tasks)))
    task_tables = [f for f in classified if f.kind == "task_table"]
    data = [f for f in classified if f.kind not in AUX_LABELS]
    if not data and len(classified) == 1 and classified[0].kind == "alpaca_leaderboard":
        data = classified
    if not data:
        _no_results(classified, others, skip_note, origin or (str(files[0][0]) if files else None))
    if task_tables:
        if task_info is not None or len(task_tables) > 1:
            raise DataError(
                "more than one task table.",
                file=task_tables[-1].src.name,
                hint="give one task table (task, category, n).",
            )
        task_info = read_task_table(_table_of(task_tables[0]))
        notes.append(f"task table: '{task_tables[0].src.name}'.")
    for f in classified:
        if f.kind in ("instructions", "alpaca_leaderboard") and f not in data:
            notes.append(f"'{f.src.name}' ({AUX_LABELS[f.kind]}) was set aside.")
    if skip_note:
        notes.append(skip_note)
    if format != "auto":
        # lm-eval results and sample files stay what they are (_parts picks by the format)
        keep = ("lm_eval", "lm_eval_samples") if format.startswith("lm_eval") else ()
        data = [f if f.kind in keep else File(f.src, format, f.table) for f in data]
    shards = [f.table for f in data if f.kind == "items" and isinstance(f.table, ArrowTable)]
    if 1 < len(shards) == len(data):  # shards of one item table: read as one (issue 18)
        data = [File(data[0].src, "items", shards)]
    default = name or _files_name([str(n) for n, _ in files])
    parts, lm_notes = _parts(data, classified, task_info, metric, format, default)
    notes += lm_notes
    file_notes = [(file, note) for file, b, _ in parts for note in b.notes]
    bench, labels = _with_file(
        lambda: merge(
            [(file, b._replace(notes=())) for file, b, _ in parts], name=default, runs=runs
        ),
        sources[0].name,
    )
    meta = Meta.join(m for _, _, m in parts)
    provenance = tuple(
        TaskRun(**{**r.__dict__, "model": labels.get((r.file, r.model), r.model)})
        for r in meta.runs
        if labels.get((r.file, r.model)) != ""  # an older run left out
    )
    meta = Meta(provenance, meta.groups, meta.metrics)
    if task_info is not None:
        bench = _apply_task_info(bench, task_info)
    notes += [*_gap_notes(bench), *group_notes(file_notes, named=len(parts) > 1), *bench.notes]
    notes += [*disjoint_notes(bench), *confusable_notes(bench.models)]
    return Loaded(bench._replace(notes=tuple(notes)), meta)


def _skip_note(others: list[File], unread: Sequence[str]) -> str:
    """One note naming every file that is not a result (with why, on the detail lines)."""
    why = [(f.src.name, f.reason) for f in others]
    why += [(n, "hidden, or a binary kind of file (not read)") for n in unread]
    if not why:
        return ""
    names = [n for n, _ in why]
    head = f"{count(len(names), 'file')} skipped — not results: {listing(names)}."
    return head + "\n" + "\n".join(f"{n}: {r}" for n, r in why)


def _no_results(
    classified: list[File], others: list[File], skip_note: str, origin: str | None
) -> NoReturn:
    if classified:
        what = [f"'{f.src.name}' looks like {AUX_LABELS[f.kind]}" for f in classified]
        raise DataError(
            "no results in the file(s): " + ", ".join(what) + ".",
            file=classified[0].src.name,
            hint="load the results files (with model names and scores); a task table goes with "
            "them (in the same folder, or as the task table).",
        )
    raise DataError(
        "no results among the files: "
        + (skip_note.replace("\n", "; ") or "none could be read (hidden or outside the archive)."),
        file=origin or (others[0].src.name if others else None),
        hint="give the result files (lm-eval results_*.json, HELM run folders, tables with a "
        "model column ...).",
    )


def _parts(
    data: list[File],
    classified: list[File],
    tasks: TaskInfo | None,
    metric: str | None,
    format: str,
    name: str,
) -> tuple[list[Part], list[str]]:
    """Each data file read in its format (lm-eval results and samples decided together, HELM
    runs with their folder's run_spec.json and stats.json)."""
    use_samples, outlines, notes = choose_lm_eval(data, format, metric or "acc")
    data, partners, aside = _set_aside(data)
    notes += aside
    if use_samples:
        data = [f for f in data if f.kind != "lm_eval"]
    else:
        data = [f for f in data if f.kind != "lm_eval_samples"]
    helm_aux = [(f.kind, f.src) for f in classified if f.kind in ("helm_spec", "helm_stats")]
    parsed = {id(f.src): f.obj for f in classified if f.obj is not None}
    parts: list[Part] = []
    missing: list[MissingMetric] = []
    for f in data:
        checkpoint(READING_FILES)
        try:
            parts.append(
                _with_file(
                    partial(_one, f, tasks, metric, outlines, helm_aux, parsed, name, partners),
                    f.src.name,
                )
            )
        except MissingMetric as err:
            missing.append(err)
    if missing and not parts:
        raise missing[0]
    asked = f"'{metric}'" if metric else "the default metric (lm-eval: acc)"
    by_reason: dict[str, list[MissingMetric]] = {}
    for e in missing:  # one note per true reason
        by_reason.setdefault(e.reason or f"no score of {asked} in them", []).append(e)
    for reason, errors in by_reason.items():
        notes.append(
            f"{count(len(errors), 'file')} skipped — {reason}: "
            f"{listing([str(e.file) for e in errors])}.\n"
            + "\n".join(f"{e.file}: {e.message}" for e in errors)
        )
    if use_samples and outlines:
        parts = with_results_info(parts, outlines)
    return harmonize(parts, tasks), notes


def _one(
    f: File,
    tasks: TaskInfo | None,
    metric: str | None,
    outlines: dict[str, Outline],
    helm_aux: list[tuple[str, Source]],
    parsed: dict[int, object],
    name: str,
    partners: list[Source],
) -> Part:
    """One data file in its format: (file, benchmark, meta)."""
    src, kind = f.src, f.kind
    if kind == lighteval.KIND:  # results files next to the details name their models
        b, m = lighteval.read(src, metric=metric, tasks=tasks, name=name, partners=partners)
        return src.name, b, m
    if (fmt := format_of(kind)) is not None:
        b, m = fmt.read(src, metric=metric, tasks=tasks, name=name)
        return src.name, b, m
    if kind in ("lm_eval", "helm") and not looks_like_json(src):
        raise DataError(
            f"this is not a JSON file; format '{kind}' reads JSON ("
            + {
                "lm_eval": "lm-evaluation-harness results",
                "helm": "HELM per_instance_stats.json",
            }[kind]
            + ").",
            file=src.name,
            hint="choose the format that matches the file, or 'auto'.",
        )
    if kind == "lm_eval":
        b, m = read_results(src, metric=metric or "acc", tasks=tasks, obj=f.obj)
        return src.name, b, m
    if kind == "lm_eval_samples":
        o = results_for(src.name, outlines)
        known = o.tasks if o else ()
        b, m = read_samples(
            src, metric=metric or "acc", model=o.model if o else None, known_tasks=known
        )
        return src.name, b, m
    if kind == "helm":
        spec, stats = _helm_partners(src, helm_aux)
        b, m = helm_run(spec, src, stats, metric=metric, parsed=parsed)
        return src.name, b, m
    if kind == "items":  # Arrow-read tables (and shards) as they are
        records = item_records(f.table if f.table is not None else read_table(src))
        return src.name, items_benchmark(records, name=name), Meta()
    return src.name, _table_part(kind, _table_of(f), tasks, name), Meta()


def _set_aside(data: list[File]) -> tuple[list[File], list[Source], list[str]]:
    """(data, lighteval results files that only name models, notes): lighteval results files
    next to details files, and Every Eval Ever aggregates next to their instance-level files,
    describe the item-level data and are set aside."""
    notes = []
    light = [f.src for f in data if f.kind == lighteval.KIND]
    _, partners = lighteval.partition(light)
    if partners:
        notes.append(
            f"{count(len(partners), 'lighteval results file')} used for model names only (the "
            f"details files hold the items): {listing([s.name for s in partners])}."
        )
    _, aggregates = eee.partition([f.src for f in data if f.kind == eee.KIND])
    if aggregates:
        notes.append(
            f"{count(len(aggregates), 'Every Eval Ever aggregate')} set aside (the instance-level "
            f"files hold the items): {listing([s.name for s in aggregates])}."
        )
    aside = {id(s) for s in [*partners, *aggregates]}
    return [f for f in data if id(f.src) not in aside], partners, notes


def _table_of(f: File) -> Table:
    """The table parsed at classification, or the file read as a (pandas) table now."""
    return f.table if isinstance(f.table, Table) else read_table(f.src)


def _table_part(kind: str, table: Table, tasks: TaskInfo | None, name: str) -> Benchmark:
    """A table file in its format (long, wide, AlpacaEval)."""
    if kind == "long":
        return long_benchmark(table, tasks=tasks, name=name)
    if kind == "wide":
        return long_benchmark(wide_to_long(table), tasks=tasks, name=name)
    if kind == "alpaca_eval":
        return alpaca_benchmark(table, name=name)
    return alpaca_leaderboard_benchmark(table, name=name)


def _helm_partners(src: Source, aux: list[tuple[str, Source]]) -> tuple[Source, Source | None]:
    """The run_spec.json (required) and stats.json in a per_instance_stats.json's folder."""
    near = [(k, s) for k, s in aux if folder_of(s.name) == folder_of(src.name)]
    specs = [s for k, s in near if k == "helm_spec"]
    stats = [s for k, s in near if k == "helm_stats"]
    if len(specs) != 1:
        raise DataError(
            "this HELM per_instance_stats.json has "
            + ("no run_spec.json" if not specs else f"{len(specs)} run_spec.json files")
            + " next to it, so its model and scenario are unknown.",
            file=src.name,
            hint="load the HELM run folders as they are (benchmark_output/runs/<suite>/), or "
            "upload the suite folder as a .zip; loose files of several runs cannot be matched.",
        )
    return specs[0], stats[0] if len(stats) == 1 else None


def _gap_notes(bench: Benchmark) -> list[str]:
    notes = []
    absent = int(np.isnan(bench.estimate).sum())
    if absent:
        notes.append(f"{absent} model-task results are missing (shown as blanks).")
    lacking = sum(
        int((it.shape[1] - it.answered)[~np.isnan(bench.estimate[:, j])].sum())
        for j, it in enumerate(bench.item_tasks or ())
    )
    if lacking:
        notes.append(
            f"{lacking} item scores are missing for models that have the task (left out of "
            "that model's mean)."
        )
    notes += answer_notes(bench)
    if len(bench.models) == 1:
        notes.append("only one model: intervals work; comparisons need two or more models.")
    return notes


def _apply_task_info(bench: Benchmark, info: TaskInfo) -> Benchmark:
    """Categories and chance levels from the task table override the files' own."""
    chance = np.array(
        [info.chance.get(t, c) for t, c in zip(bench.tasks, np.asarray(bench.chance), strict=True)]
    )
    return bench.with_categories(info.category)._replace(chance=chance)


def _files_name(names: Sequence[str]) -> str:
    """The name files give their data (issue 41): one file's (a zip's too: its members are many)
    stem, the folder that holds them all (an uploaded folder's files), else ``"data"``.

    Examples
    --------
    >>> _files_name(["nightly.zip"]), _files_name(["runs/a.eval", "runs/b.eval"])
    ('nightly', 'runs')
    >>> _files_name(["a.eval", "b.eval"])
    'data'
    """
    paths = [n.replace("\\", "/") for n in names]
    if len(paths) == 1:
        return _stem(paths[0])
    tops = {p.split("/", 1)[0] for p in paths}
    if len(tops) == 1 and all("/" in p for p in paths):
        return tops.pop()
    return "data"


def _stem(name: str) -> str:
    base = name.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[0] if "." in base else base


T = TypeVar("T")


def _with_file(make: Callable[[], T], file: str) -> T:
    """Run ``make()``; a DataError without a file name gets ``file``."""
    try:
        return make()
    except DataError as err:
        if err.file is None:
            raise DataError(
                err.message, file=file, row=err.row, column=err.column, hint=err.hint
            ) from None
        raise
