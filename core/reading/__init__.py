"""Readers: result files, folders and bundled samples into a :class:`~benchuq.core.data.Benchmark`.

The front door is :mod:`.loaders` (``load_path``, ``load_files``, ``load_sample``, ``resolve``
and their ``read_*`` twins that also return what the files say, :class:`.meta.Loaded`). Where files
come from: :mod:`.files` (folders, zips, globs); what each file is: :mod:`.classify`; one module
per family of formats does the parsing (``table``: delimited/JSON/Parquet tables; ``long``:
task-level long and wide tables; ``items``: item-level tables; ``lm_eval`` (results),
``lm_eval_samples``, ``lm_eval_output`` (both together) and ``lm_eval_names``:
lm-evaluation-harness; ``helm``: HELM run folders; ``judged``: AlpacaEval and
inspect_ai; ``merge``: several files at once); :mod:`.notes` groups notes over files;
:mod:`.columns` says which columns each format needs.
"""

from benchuq.core.reading.classify import detect_format, file_columns
from benchuq.core.reading.columns import missing_columns, required_columns
from benchuq.core.reading.loaders import (
    FORMATS,
    SAMPLES,
    load_files,
    load_path,
    load_sample,
    read_data,
    read_files,
    read_paths,
    read_sample,
    resolve,
)
from benchuq.core.reading.meta import Group, Loaded, Meta, TaskRun

__all__ = [
    "FORMATS",
    "SAMPLES",
    "Group",
    "Loaded",
    "Meta",
    "TaskRun",
    "detect_format",
    "file_columns",
    "load_files",
    "load_path",
    "load_sample",
    "missing_columns",
    "read_data",
    "read_files",
    "read_paths",
    "read_sample",
    "required_columns",
    "resolve",
]
