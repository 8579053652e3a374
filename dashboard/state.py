"""URL query parameters <-> the app's settings (pure functions, no streamlit).

Every global control lives in the query string under these names: ``data`` (``sample:<name>``,
``shared:<id>`` of a published data set, or ``upload``), ``method``, ``level`` (a fraction,
e.g. ``0.834``), ``reps``, ``seed``, ``metric``
(``raw`` or ``normalized``), ``weights`` (comma-separated, in category order), ``rho`` and
``models`` (comma-separated). Category edits of a bundled sample travel as ``categories``, a
JSON object ``{task: category}`` of the tasks whose category was changed. With
``method=bayes`` the Bayesian model's settings that differ from their defaults travel as well:
``priors`` (``core.priors`` specs ``MODEL:a=...,b=...`` separated by ``;``), ``chains``,
``warmup``, ``interval`` and ``sampler``. A bad value falls back to its default and yields a
:class:`Notice` naming the parameter. ``weights``, ``models``, ``priors`` and ``categories``
depend on the data set, so they are checked once it is loaded (:func:`parse_weights`,
:func:`parse_models`, ``core.priors.parse_prior_specs``, :func:`parse_categories`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from benchuq.store import ID_RE

DEFAULT_DATA = "sample:vtab1k"
UPLOAD = "upload"
SHARED = "shared:"  # + a published data set's id (benchuq.store)
# A reload (or a copied link) after an upload: what happened and how to get the data back.
UPLOAD_LOST = (
    "uploaded files cannot travel in a link or survive a reload: they live only in the browser "
    "tab that uploaded them and are never stored on the server. Showing the sample "
    f"'{DEFAULT_DATA}' meanwhile. To get your data back, upload the same files again on the "
    "Data page (this link's models and weights are then applied to them), or "
    "publish them there ('Share these results') for a link that survives reloads."
)
DEFAULT_LEVEL = 0.834
LEVEL_RANGE = (0.5, 0.995)
REPS_RANGE = (200, 20000)
DEFAULT_REPS = 2000
SEED_RANGE = (0, 2**32 - 1)
METRICS = ("raw", "normalized")
RHO_RANGE = (0.0, 0.99)
PARAM_NAMES = ("data", "method", "level", "reps", "seed", "metric", "weights", "rho", "models")
# the Bayesian model's settings travel too when method is "bayes" (non-default values only)
BAYES_PARAM_NAMES = ("priors", "chains", "warmup", "interval", "sampler")
# present only when set: the Bayesian settings, and a sample's category edits
OPTIONAL_PARAM_NAMES = ("categories", *BAYES_PARAM_NAMES)
BAYES_DEFAULTS: dict[str, int | str] = {
    "chains": 4,
    "warmup": 1000,
    "interval": "parameter",
    "sampler": "imh",
}
CHAINS_RANGE = (1, 8)
WARMUP_RANGE = (0, 10000)
INTERVALS = ("parameter", "predictive")
SAMPLERS = ("imh", "gibbs")
PRIOR_SEPARATOR = ";"


@dataclass(frozen=True)
class Notice:
    """A query parameter that could not be used: its name, the bad value and what was used."""

    param: str
    value: str
    message: str

    def __str__(self) -> str:
        return f"Link parameter '{self.param}' = '{self.value}' ignored: {self.message}"


@dataclass(frozen=True)
class Settings:
    """The global controls of one view (everything a shared link carries).

    ``level`` is a fraction; ``weights`` are the raw numbers entered, one per category (see
    :meth:`normalized_weights`); ``models`` are the models shown, in data-set order.
    """

    data: str = DEFAULT_DATA
    method: str = "bootstrap"
    level: float = DEFAULT_LEVEL
    reps: int = DEFAULT_REPS
    seed: int = 0
    metric: str = "raw"
    rho: float = 0.0
    weights: tuple[float, ...] = ()
    models: tuple[str, ...] = ()

    def normalized_weights(self) -> np.ndarray:
        """Weights rescaled to sum to 1 (equal weights if they are all 0)."""
        return normalize_weights(self.weights)


def normalize_weights(weights: Sequence[float]) -> np.ndarray:
    """``w / sum(w)``; equal weights when the sum is 0 (METHODS 0: ``w_c >= 0``, sum 1)."""
    w = np.asarray(weights, dtype=float)
    total = w.sum()
    if w.size == 0:
        return w
    return w / total if total > 0 else np.full(w.size, 1.0 / w.size)


def _number(raw: str, kind: type, lo: float, hi: float) -> float | int | None:
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if lo <= value <= hi else None


def parse_static(
    params: Mapping[str, str],
    *,
    samples: Sequence[str],
    methods: Sequence[str],
    has_upload: bool = False,
) -> tuple[dict[str, object], list[Notice]]:
    """Check the data-independent parameters; returns the valid values and notices.

    Missing parameters are simply absent from the result (the caller keeps its defaults).
    """
    values: dict[str, object] = {}
    notices: list[Notice] = []

    def bad(name: str, message: str) -> None:
        notices.append(Notice(name, str(params[name]), message))

    if "data" in params:
        data = params["data"]
        if data == UPLOAD and not has_upload:
            bad("data", UPLOAD_LOST)
        elif data.startswith(SHARED) and not ID_RE.fullmatch(data.removeprefix(SHARED)):
            bad(
                "data",
                "not a published data set id (32 letters and digits after 'shared:'; copy "
                f"the whole link); using '{DEFAULT_DATA}'.",
            )
        elif data in (UPLOAD, *(f"sample:{s}" for s in samples)) or data.startswith(SHARED):
            values["data"] = data
        else:
            bad(
                "data",
                f"expected one of {', '.join('sample:' + s for s in samples)}; "
                f"using '{DEFAULT_DATA}'.",
            )
    _check_choices(params, (("method", tuple(methods), methods[0]),), values, notices)
    checks = (
        ("level", float, LEVEL_RANGE, DEFAULT_LEVEL),
        ("reps", int, REPS_RANGE, DEFAULT_REPS),
        ("seed", int, SEED_RANGE, 0),
        ("rho", float, RHO_RANGE, 0.0),
    )
    _check_numbers(params, checks, values, notices)
    _check_choices(params, (("metric", METRICS, "raw"),), values, notices)
    return values, notices


def _check_numbers(
    params: Mapping[str, str],
    checks: Sequence[tuple[str, type, tuple[float, float], float]],
    values: dict[str, object],
    notices: list[Notice],
) -> None:
    """``(name, int|float, (lo, hi), default)``: a valid number goes to ``values``, a bad one
    to ``notices``; absent names are skipped."""
    for name, kind, (lo, hi), default in checks:
        if name not in params:
            continue
        value = _number(params[name], kind, lo, hi)
        if value is None:
            what = "a whole number" if kind is int else "a number"
            message = f"expected {what} from {lo:g} to {hi:g}; using {default:g}."
            notices.append(Notice(name, str(params[name]), message))
        else:
            values[name] = value


def _check_choices(
    params: Mapping[str, str],
    checks: Sequence[tuple[str, Sequence[str], str]],
    values: dict[str, object],
    notices: list[Notice],
) -> None:
    """``(name, allowed, default)``: as :func:`_check_numbers`, for a choice among names."""
    for name, allowed, default in checks:
        if name not in params:
            continue
        if params[name] in allowed:
            values[name] = params[name]
        else:
            message = f"expected one of {', '.join(allowed)}; using '{default}'."
            notices.append(Notice(name, str(params[name]), message))


def parse_bayes(params: Mapping[str, str]) -> tuple[dict[str, object], list[Notice]]:
    """Check ``chains``, ``warmup``, ``interval`` and ``sampler``; ``priors`` is returned as a
    tuple of spec strings (checked against the data's models by the caller)."""
    values: dict[str, object] = {}
    notices: list[Notice] = []
    numbers = [
        ("chains", int, CHAINS_RANGE, BAYES_DEFAULTS["chains"]),
        ("warmup", int, WARMUP_RANGE, BAYES_DEFAULTS["warmup"]),
    ]
    _check_numbers(params, numbers, values, notices)  # type: ignore[arg-type]
    choices = [
        ("interval", INTERVALS, str(BAYES_DEFAULTS["interval"])),
        ("sampler", SAMPLERS, str(BAYES_DEFAULTS["sampler"])),
    ]
    _check_choices(params, choices, values, notices)
    if params.get("priors", "").strip():
        specs = [p.strip() for p in params["priors"].split(PRIOR_SEPARATOR)]
        values["priors"] = tuple(p for p in specs if p)
    return values, notices


def bayes_query(
    priors: Sequence[str], chains: int, warmup: int, interval: str, sampler: str
) -> dict[str, str]:
    """The query parameters of the Bayesian settings that differ from their defaults."""
    query = {"priors": PRIOR_SEPARATOR.join(priors)} if priors else {}
    for name, value in (
        ("chains", chains),
        ("warmup", warmup),
        ("interval", interval),
        ("sampler", sampler),
    ):
        if value != BAYES_DEFAULTS[name]:
            query[name] = str(value)
    return query


def categories_query(
    edits: Mapping[str, str], tasks: Sequence[str], original: Sequence[str]
) -> str:
    """The ``categories`` parameter: the edited tasks whose category differs from the data
    set's own (in task order), as compact JSON; ``""`` when nothing differs."""
    changed = {
        t: edits[t] for t, c in zip(tasks, original, strict=True) if t in edits and edits[t] != c
    }
    return json.dumps(changed, ensure_ascii=False, separators=(",", ":")) if changed else ""


def parse_categories(raw: str, tasks: Sequence[str]) -> tuple[dict[str, str], Notice | None]:
    """``{task: category}`` from the ``categories`` parameter; unknown tasks and blank
    categories are dropped with a notice (an unreadable value drops everything)."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        return {}, Notice(
            "categories",
            raw,
            'expected a JSON object {"task": "category", ...}; using the data set\'s categories.',
        )
    known = set(tasks)
    edits = {
        str(t): str(c).strip()
        for t, c in value.items()
        if str(t) in known and isinstance(c, str | int | float) and str(c).strip()
    }
    dropped = [str(t) for t in value if str(t) not in edits]
    if not dropped:
        return edits, None
    shown = ", ".join(dropped[:5]) + (" ..." if len(dropped) > 5 else "")
    return edits, Notice(
        "categories",
        raw,
        f"tasks {shown} are not in the data or have a blank category; their categories are "
        "unchanged.",
    )


def parse_weights(
    raw: str, categories: Sequence[str]
) -> tuple[tuple[float, ...] | None, Notice | None]:
    """Comma-separated non-negative weights, one per category, not all 0."""
    parts = [p.strip() for p in raw.split(",")]
    nums = [_number(p, float, 0.0, 1e6) for p in parts]
    if len(parts) != len(categories) or any(x is None for x in nums) or sum(nums) <= 0:
        cats = ", ".join(categories)
        return None, Notice(
            "weights",
            raw,
            f"expected {len(categories)} non-negative numbers "
            f"(not all 0) for the categories {cats}; using equal weights.",
        )
    return tuple(float(x) for x in nums), None


def parse_models(raw: str, models: Sequence[str]) -> tuple[tuple[str, ...] | None, Notice | None]:
    """Comma-separated model names; unknown names are dropped with a notice."""
    wanted = [p.strip() for p in raw.split(",") if p.strip()]
    known = [m for m in models if m in wanted]
    unknown = [m for m in wanted if m not in models]
    if not known:
        return None, Notice("models", raw, "none of these models is in the data; showing all.")
    if unknown:
        return tuple(known), Notice("models", raw, f"unknown models {unknown} dropped.")
    return tuple(known), None


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def to_query(settings: Settings) -> dict[str, str]:
    """The query string of a view (values as strings, names as in :data:`PARAM_NAMES`)."""
    return {
        "data": settings.data,
        "method": settings.method,
        "level": _fmt(settings.level),
        "reps": str(settings.reps),
        "seed": str(settings.seed),
        "metric": settings.metric,
        "weights": ",".join(_fmt(w) for w in settings.weights),
        "rho": _fmt(settings.rho),
        "models": ",".join(settings.models),
    }
