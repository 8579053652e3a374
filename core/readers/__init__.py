"""Readers: result files, folders and bundled samples into a :class:`~benchuq.core.data.Benchmark`.

The front door is :mod:`.loaders` (``load_path``, ``load_files``, ``load_sample``, ``resolve``);
one module per family of formats does the parsing (``table``: delimited/JSON/Parquet tables;
``long``: task-level long and wide tables; ``items``: item-level tables; ``lm_eval``:
lm-evaluation-harness; ``judged``: AlpacaEval and inspect_ai; ``merge``: several files at once).
"""

from benchuq.core.readers.loaders import (
    FORMATS,
    SAMPLES,
    detect_format,
    file_columns,
    load_files,
    load_path,
    load_sample,
    missing_columns,
    required_columns,
    resolve,
)

__all__ = [
    "FORMATS",
    "SAMPLES",
    "detect_format",
    "file_columns",
    "load_files",
    "load_path",
    "load_sample",
    "missing_columns",
    "required_columns",
    "resolve",
]
