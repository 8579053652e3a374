"""inspect_ai ``.eval`` logs written by inspect_ai's own writer (``write_eval_log(...,
format="eval")``, the ``inspect-ai`` test extra), and re-packed variants
(tests/core/reading/test_inspect_eval.py).

Current inspect_ai writes its members with Zstandard (ZIP method 93); :func:`repack` rewrites a
log's members (deflate, dropped or replaced) with the standard library, reading them back with
benchuq's own member reader.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from benchuq.core.reading.eval_zip import member_bytes, open_archive
from benchuq.core.reading.table import Source

ScoreValue = str | float | bool | dict[str, float]


def write_log(
    path: Path,
    *,
    model: str,
    task: str,
    values: dict[str, Sequence[Sequence[ScoreValue]]] | None = None,
    scorer: str = "match",
    ids: Sequence[object] | None = None,
    status: str = "success",
    errors: Sequence[tuple[int, int]] = (),
    limits: Sequence[tuple[int, int]] = (),
) -> Path:
    """A log of ``model`` on ``task``: ``values[scorer][item][epoch]`` (one scorer ``scorer``
    when ``values`` is a nested list under that name); samples ``(item, epoch)`` in ``errors``
    errored and those in ``limits`` hit a token limit (0-based). Returns ``path``."""
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalError,
        EvalLog,
        EvalResults,
        EvalSample,
        EvalSampleLimit,
        EvalScore,
        EvalSpec,
        write_eval_log,
    )
    from inspect_ai.scorer import Score

    assert values is not None
    scorers = list(values)
    first = values[scorers[0]]
    n, epochs = len(first), len(first[0])
    ids = list(ids) if ids is not None else list(range(1, n + 1))
    samples = []
    for e in range(epochs):
        for i in range(n):
            failed = (i, e) in errors or (i, e) in limits
            samples.append(
                EvalSample(
                    id=ids[i],  # type: ignore[arg-type]
                    epoch=e + 1,
                    input=f"question {ids[i]}",
                    target="yes",
                    scores=None if failed else {s: Score(value=values[s][i][e]) for s in scorers},  # type: ignore[arg-type]
                    error=EvalError(message="boom", traceback="", traceback_ansi="")
                    if (i, e) in errors
                    else None,
                    limit=EvalSampleLimit(type="token", limit=100) if (i, e) in limits else None,
                )
            )
    log = EvalLog(
        eval=EvalSpec(
            created="2026-01-01T00:00:00+00:00",
            task=task,
            dataset=EvalDataset(name=task, samples=n),
            model=model,
            config=EvalConfig(epochs=epochs),
        ),
        status=status,  # type: ignore[arg-type]
        samples=samples,
        results=EvalResults(
            total_samples=n * epochs,
            completed_samples=n * epochs,
            scores=[EvalScore(name=s, scorer=s) for s in scorers],
        ),
    )
    write_eval_log(log, str(path), format="eval")
    return path


def binary_values(
    rng: np.random.Generator, n: int, epochs: int, *, mean: float = 0.6, icc: float = 0.6
) -> tuple[list[list[str]], np.ndarray]:
    """C/I answers of ``n`` items x ``epochs`` with within-item correlation ``icc``
    (beta-binomial: item probability ~ Beta with a + b = 1/icc - 1), and the 0/1 matrix."""
    s = 1 / icc - 1
    p = rng.beta(mean * s, (1 - mean) * s, n)
    x = (rng.random((n, epochs)) < p[:, None]).astype(float)
    return [["C" if v else "I" for v in row] for row in x], x


def repack(
    src: Path,
    dst: Path,
    *,
    drop: Callable[[str], bool] = lambda name: False,
    replace: dict[str, bytes] | None = None,
    rename: Callable[[str], str] = lambda name: name,
    compression: int = zipfile.ZIP_DEFLATED,
) -> Path:
    """``src``'s members (read with benchuq's reader) written again to ``dst`` with
    ``compression``; members named by ``drop`` left out, ``replace`` giving new bytes."""
    data = src.read_bytes()
    source = Source(src.name, data)
    archive = open_archive(source)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name in archive.namelist():
            if drop(name):
                continue
            body = (replace or {}).get(name)
            z.writestr(
                rename(name), body if body is not None else member_bytes(source, archive, name)
            )
    dst.write_bytes(out.getvalue())
    return dst
