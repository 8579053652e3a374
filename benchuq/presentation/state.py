"""URL query parameters <-> the app's settings (pure functions, no streamlit).

Every global control lives in the query string: the fields of :class:`Settings` (``data``:
``sample:<name>``, ``shared:<id>`` of a published data set, or ``upload``; ``method``,
``level`` as a proportion, ``reps``, ``seed``, ``metric``, ``weights`` comma-separated in
category order, ``models`` comma-separated). Category edits of a bundled sample travel as
``categories``, a JSON object ``{task: category}`` of the tasks whose category was changed.
Each page's own settings travel too: a page declares them as a frozen dataclass of :func:`link`
fields (name in the URL, allowed values, default), read by :func:`parse_settings`, checked
against the data by :func:`check_choices` and written, non-default fields only, by
:func:`settings_query` (the registry is ``dashboard.links``). A bad value falls back to its
default and yields a :class:`Notice` naming the parameter. ``weights``, ``models``,
``categories`` and data-dependent page settings are checked once the data set is loaded
(:func:`parse_weights`, :func:`parse_models`, :func:`parse_categories`, :func:`check_choices`).

Links are short (issue 30): defaults, every model and weights of 1 each are left out
(:func:`view_query`), numbers take their shortest exact text, parameters keep the fields' order,
and :func:`query_string` leaves ``: , ( ) * =`` readable. Old links still open:
:func:`upgrade_params` reads old names (:data:`OLD_NAMES`); full lists parse as before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

import numpy as np

from benchuq.core.defaults import LEVEL, LEVEL_BOUNDS, REPS, SEED
from benchuq.core.reading.sources import SHARED, UPLOAD, parse_source, sample_source
from benchuq.store import ID_RE

DEFAULT_DATA = sample_source("vtab1k")
# A reload (or a copied link) after an upload: what happened and how to get the data back.
UPLOAD_LOST = (
    "uploaded files cannot travel in a link or survive a reload (or a restart of the server): "
    "they live only in the browser tab that uploaded them and are never stored on the "
    f"server. Showing the bundled sample ({DEFAULT_DATA}) meanwhile. To get your data back, "
    "upload the same files again on the Data page (this link's models and weights are then "
    "applied to them), or publish them there ('Share these results') for a link that survives "
    "reloads."
)
REPS_RANGE = (200, 20000)
SEED_RANGE = (0, 2**32 - 1)
METRICS = ("raw", "normalized")
PARAM_NAMES = (
    "data", "method", "level", "reps", "seed", "metric", "overall", "weights", "models"
)  # fmt: skip
#: What "overall" stands for (`core.summaries.headline.OVERALLS`, repeated: no core import).
OVERALLS = ("auto", "benchmarks", "tasks")
CATEGORIES_PARAM = "categories"  # present only when a sample's categories were edited
PRIOR_SEPARATOR = ";"
#: Old parameter names still read (``old: new``): Small subgroups had a level of its own.
OLD_NAMES = {"subgroups_level": "level"}
#: Characters a link leaves unescaped (readable and valid in a query string's values).
LINK_SAFE = ":,()*="
S = TypeVar("S", bound="DataclassInstance")


@dataclass(frozen=True)
class Notice:
    """A query parameter that could not be used: its name, the bad value and what was used."""

    param: str
    value: str
    message: str

    def __str__(self) -> str:
        """Return the notice as shown above the page."""
        return f"Link parameter '{self.param}' = '{self.value}' ignored: {self.message}"


# ---- page settings in the link ------------------------------------------------------------
# A page declares its settings as a frozen dataclass whose fields are made by :func:`link`: the
# query parameter's name, what it may hold and its default. These functions read such a class
# from the query string, check data-dependent choices and write it back (non-default fields
# only). ``dashboard.controls`` is the one place that writes the URL; ``dashboard.links`` lists
# every page's class.
LINK_KEY = "benchuq_link"
ON_OFF = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}
Choice = str | int | float


@dataclass(frozen=True)
class LinkSpec:
    """How one settings field travels in the URL.

    Attributes
    ----------
    name : str
        The query parameter (also the key of the field's widget in the session state).
    doc : str
        What the value means, for people (the README's table of link parameters).
    choices : tuple
        The allowed values when they are fixed (strings, or numbers of a select slider).
    bounds : tuple of float, optional
        ``(lo, hi)`` of a number.
    data : bool
        The allowed values depend on the loaded data; the page checks them with
        :func:`check_choices` once it has the data.
    percent : bool
        A level: a proportion in the URL (``0.95``), percent on screen (``95``).
    sep : str
        Separator of a list value.
    """

    name: str
    doc: str
    choices: tuple[Choice, ...] = ()
    bounds: tuple[float, float] | None = None
    data: bool = False
    percent: bool = False
    sep: str = ","


def link(
    name: str,
    default: object,
    doc: str,
    *,
    choices: Sequence[Choice] = (),
    bounds: tuple[float, float] | None = None,
    data: bool = False,
    percent: bool = False,
    sep: str = ",",
) -> Any:
    """Make a dataclass field that travels in the link as ``name`` (see :class:`LinkSpec`).

    The field's type follows its default: ``bool`` (``on``/``off``), ``int``, ``float``, ``str``
    or a tuple of strings (``sep``-separated). An empty default (``""`` or ``()``) of a
    data-dependent field means "the page's automatic choice" (e.g. the top three models).
    """
    spec = LinkSpec(name, doc, tuple(choices), bounds, data, percent, sep)
    return field(default=default, metadata={LINK_KEY: spec})


def link_fields(cls: type) -> list[tuple[str, LinkSpec, Any]]:
    """``(attribute, spec, default)`` of every linked field of a settings dataclass."""
    return [
        (f.name, f.metadata[LINK_KEY], f.default) for f in fields(cls) if LINK_KEY in f.metadata
    ]


def link_range(cls: type, name: str) -> tuple[Any, Any]:
    """The widget range of the link field ``name`` of ``cls``: its bounds, in percent for a
    ``percent`` field (so a slider's range lives in the link spec only)."""
    spec = next(spec for _, spec, _ in link_fields(cls) if spec.name == name)
    if spec.bounds is None:
        raise ValueError(f"link field {name!r} has no bounds")
    low, high = spec.bounds
    if spec.percent:
        return round(100 * low, 6), round(100 * high, 6)
    return low, high


def _describe(spec: LinkSpec, default: object) -> str:
    if isinstance(default, bool):
        return "on or off"
    if spec.choices:
        return "one of " + ", ".join(format_value(c) for c in spec.choices)
    if spec.bounds is not None:
        what = "a whole number" if isinstance(default, int) else "a number"
        return f"{what} from {spec.bounds[0]:g} to {spec.bounds[1]:g}"
    return spec.doc


def parse_value(spec: LinkSpec, default: object, raw: str) -> tuple[object, str | None]:
    """Return the value of ``raw`` for a field (spec, default), or ``(default, message)``."""
    value: object = None
    if isinstance(default, bool):
        value = ON_OFF.get(raw.strip().lower())
    elif isinstance(default, int | float):
        lo, hi = spec.bounds or (-math.inf, math.inf)
        value = _number(raw, type(default), lo, hi)
        if (
            value is not None
            and spec.choices
            and not any(math.isclose(float(value), float(c)) for c in spec.choices)
        ):
            value = None
    elif isinstance(default, tuple):
        value = tuple(p.strip() for p in raw.split(spec.sep) if p.strip())
        if spec.choices and not set(value) <= set(spec.choices):
            value = None
    else:
        value = raw if not spec.choices or raw in spec.choices else None
    if value is None:
        shown = format_value(default) if default not in ("", ()) else "the automatic choice"
        return default, f"expected {_describe(spec, default)}; using {shown}."
    return value, None


def format_value(value: object, sep: str = ",") -> str:
    """Return a field's value as it appears in the URL."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float):
        return _fmt(value)
    if isinstance(value, tuple):
        return sep.join(_fmt(v) if isinstance(v, float) else str(v) for v in value)
    return str(value)


def parse_settings(cls: type[S], params: Mapping[str, str]) -> tuple[S, list[Notice], set[str]]:
    """Return the settings ``cls`` described by ``params``, notices and the attributes set.

    Bad values yield notices and keep their defaults; the attributes the link set are returned
    so that their data-dependent values can be checked later (:func:`check_choices`).
    """
    values: dict[str, object] = {}
    notices: list[Notice] = []
    for attr, spec, default in link_fields(cls):
        if spec.name not in params:
            continue
        value, message = parse_value(spec, default, params[spec.name])
        if message is None:
            values[attr] = value
        else:
            notices.append(Notice(spec.name, params[spec.name], message))
    return cls(**values), notices, set(values)


def settings_query(settings: object) -> dict[str, str]:
    """Return the query parameters of the fields that differ from their defaults, in field order.

    An absent parameter means its default, so a link is as short as the view allows; values
    are exact and short (:func:`format_value`). The one writer of the URL's values: the app's
    address bar, share box and report link and the CLI's report link.
    """
    return {
        spec.name: format_value(getattr(settings, attr), spec.sep)
        for attr, spec, default in link_fields(type(settings))
        if getattr(settings, attr) != default
    }


def view_query(settings: Settings, models: Sequence[str]) -> dict[str, str]:
    """Return the sidebar's parameters of a view on data with ``models`` (in data order).

    As :func:`settings_query`, and "all models" (every model, in data order) and weights of 1
    each are left out too: they are the defaults (``models`` and ``weights`` absent).

    Examples
    --------
    >>> view_query(Settings(level=0.9, weights=(1.0, 1.0), models=("a", "b")), ["a", "b"])
    {'level': '0.9'}
    """
    every = tuple(settings.models) == tuple(models)
    ones = all(w == 1.0 for w in settings.weights)
    short = replace(
        settings,
        models=() if every else settings.models,
        weights=() if ones else settings.weights,
    )
    return settings_query(short)


def query_string(query: Mapping[str, str]) -> str:
    """Return ``query`` as the text after ``?`` of a link, leaving ``: , ( ) * =`` readable.

    Examples
    --------
    >>> query_string({"data": "sample:mmlu", "priors": "*:a=normal(50,5)"})
    'data=sample:mmlu&priors=*:a=normal(50,5)'
    """
    return urlencode(query, safe=LINK_SAFE)


def address(base: str, query: Mapping[str, str]) -> str:
    """Return the link ``base?query`` (just ``base`` when every parameter is at its default).

    Examples
    --------
    >>> address("http://localhost:8501/", {}), address("/ranks", {"seed": "1"})
    ('http://localhost:8501/', '/ranks?seed=1')
    """
    return f"{base}?{query_string(query)}" if query else base


def upgrade_params(params: Mapping[str, str]) -> dict[str, str]:
    """Return ``params`` with old parameter names (:data:`OLD_NAMES`) under their new names.

    A link that has both keeps the new one. Old links keep opening the view they named.

    Examples
    --------
    >>> upgrade_params({"subgroups_level": "0.9", "seed": "1"})
    {'seed': '1', 'level': '0.9'}
    """
    out = {k: v for k, v in params.items() if k not in OLD_NAMES}
    for old, new in OLD_NAMES.items():
        if old in params:
            out.setdefault(new, params[old])
    return out


def check_choices(
    settings: S,
    allowed: Mapping[str, Sequence[str]],
    linked: Collection[str] = (),
    checks: Mapping[str, Callable[[Any], str | None]] | None = None,
) -> tuple[S, list[Notice]]:
    """Check data-dependent fields against ``allowed`` and ``checks``.

    ``allowed`` is ``{attribute: values}``; ``checks`` is ``{attribute: value -> message, or None
    when the value is fine}``.

    A choice that is not allowed falls back to the default; a list keeps its allowed items (all
    gone: the default); a value that fails its check falls back to the default. Only attributes
    in ``linked`` (set by a link) yield a notice; a value left from another data set falls back
    silently.
    """
    changes: dict[str, object] = {}
    notices: list[Notice] = []
    specs = {attr: (spec, default) for attr, spec, default in link_fields(type(settings))}
    for attr, check in (checks or {}).items():
        spec, default = specs[attr]
        value = getattr(settings, attr)
        if value == default or (message := check(value)) is None:
            continue
        changes[attr] = default
        if attr in linked:
            notices.append(Notice(spec.name, format_value(value, spec.sep), message))
    for attr, options in allowed.items():
        spec, default = specs[attr]
        value = getattr(settings, attr)
        if value == default:
            continue
        ok = set(options)
        if isinstance(value, tuple):
            kept = tuple(v for v in value if v in ok)
            if kept == value:
                continue
            changes[attr] = kept or default
            message = f"{', '.join(v for v in value if v not in ok)} not in the data; " + (
                "dropped." if kept else "using the automatic choice."
            )
        elif value in ok:
            continue
        else:
            changes[attr] = default
            shown = format_value(default) if default != "" else "the automatic choice"
            shown_options = ", ".join(options[:8]) + (", ..." if len(options) > 8 else "")
            message = f"not available for this data (expected one of {shown_options}); "
            message += f"using {shown}."
        if attr in linked:
            notices.append(Notice(spec.name, format_value(value, spec.sep), message))
    return (replace(settings, **changes) if changes else settings), notices


@dataclass(frozen=True)
class Settings:
    """The global controls of one view (the sidebar; everything every page shares).

    ``level`` is a proportion; ``weights`` are the raw numbers entered, one per category (see
    :meth:`normalized_weights`); ``models`` are the models shown, in data-set order.
    """

    data: str = link(
        "data",
        DEFAULT_DATA,
        "`sample:<name>` (a bundled sample), `shared:<id>` (a published data set) or `upload` "
        "(this session's upload)",
        data=True,
    )
    method: str = link("method", "bootstrap", "`bootstrap` or `bayes` (Bayesian model)", data=True)
    level: float = link("level", LEVEL, "interval level", bounds=LEVEL_BOUNDS, percent=True)
    reps: int = link("reps", REPS, "replicates or posterior draws", bounds=REPS_RANGE)
    seed: int = link("seed", SEED, "random seed", bounds=SEED_RANGE)
    metric: str = link("metric", "raw", "score scale", choices=METRICS)
    overall: str = link(
        "overall",
        "auto",
        "the overall score: `benchmarks` (lm-eval groups count once), `tasks` (mean over tasks) "
        "or `auto` (benchmarks for lm-eval files with groups, else tasks)",
        choices=OVERALLS,
    )
    weights: tuple[float, ...] = link(
        "weights",
        (),
        "one non-negative number per category, comma-separated (default: 1 each)",
        data=True,
    )
    models: tuple[str, ...] = link(
        "models", (), "the models shown, comma-separated (default: all)", data=True
    )
    statistic: str = link(
        "statistic",
        "mean",
        "what each item scores when it holds several answers: `mean`, `pass@K` (right in at "
        "least one of K tries) or `pass^K` (right in all K)",
        data=True,
    )

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
        elif (source := parse_source(data)).kind in ("upload", "shared") or (
            source.kind == "sample" and source.name in samples
        ):
            values["data"] = data
        else:
            bad(
                "data",
                f"expected one of {', '.join(sample_source(s) for s in samples)}; "
                f"using '{DEFAULT_DATA}'.",
            )
    if "method" in params:
        if params["method"] in methods:
            values["method"] = params["method"]
        else:
            bad("method", f"expected one of {', '.join(methods)}; using '{methods[0]}'.")
    if "statistic" in params:
        from benchuq.core.item_statistic import parse_statistic
        from benchuq.core.validation import InvalidArgument

        try:
            values["statistic"] = parse_statistic(params["statistic"]).label
        except InvalidArgument:
            bad("statistic", "expected mean, pass@K or pass^K; using 'mean'.")
    fields, field_notices = parse_fields(params)
    return values | fields, notices + field_notices


def parse_fields(params: Mapping[str, str]) -> tuple[dict[str, object], list[Notice]]:
    """The sidebar's data-independent fields in ``params`` (level, replicates, seed, ...):
    valid values, and a notice for each value the app cannot use as written."""
    values: dict[str, object] = {}
    notices: list[Notice] = []
    for attr, spec, default in link_fields(Settings):
        if spec.data or attr not in params:
            continue
        value, message = parse_value(spec, default, params[attr])
        if message is None:
            values[attr] = value
        else:
            notices.append(Notice(attr, str(params[attr]), message))
    return values, notices


def categories_query(
    edits: Mapping[str, str], tasks: Sequence[str], original: Sequence[str]
) -> str:
    """Return the ``categories`` parameter: the edited tasks' categories, as compact JSON.

    Only the tasks whose category differs from the data set's own (in task order); ``""`` when
    nothing differs.
    """
    changed = {
        t: edits[t] for t, c in zip(tasks, original, strict=True) if t in edits and edits[t] != c
    }
    return json.dumps(changed, ensure_ascii=False, separators=(",", ":")) if changed else ""


def parse_categories(raw: str, tasks: Sequence[str]) -> tuple[dict[str, str], Notice | None]:
    """Read ``{task: category}`` from the ``categories`` parameter.

    Unknown tasks and blank categories are dropped with a notice (an unreadable value drops
    everything).
    """
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deeply
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
    parsed = [_number(p, float, 0.0, 1e6) for p in parts]
    nums = [float(x) for x in parsed if x is not None]
    if len(parts) != len(categories) or len(nums) != len(parts) or sum(nums) <= 0:
        cats = ", ".join(categories)
        wanted = (
            f"one positive number for the one category {cats}"
            if len(categories) == 1
            else f"{len(categories)} non-negative numbers (not all 0) for the categories {cats}"
        )
        return None, Notice("weights", raw, f"expected {wanted}; using equal weights.")
    return tuple(nums), None


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
    """The shortest text that reads back as ``x`` (``0.834``, ``2``, ``1e-06``)."""
    return repr(float(x)).removesuffix(".0")
