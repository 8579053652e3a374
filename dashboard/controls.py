"""The global sidebar, every page's settings in the link, link notices, and the share box.

This module alone writes the URL. Widget values live in ``st.session_state`` under fixed keys. On
the first run of a session they are filled from the URL query string (``presentation.state``): the
sidebar's controls, and every page's settings (``dashboard.links``), kept in
``dashboard.session`` until the page is opened. A page calls :func:`bind` with its settings class
before its widgets (whose keys are the link names) and :meth:`Binding.read` after them; the
query string is then rewritten from the sidebar and every page's stored settings (non-default
values only), so the URL always describes the view, also after a page switch (which clears the
query string in a real browser). The open page travels as the URL's path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from benchuq.api.summaries import compact_prior_specs, parse_prior_specs
from benchuq.core.data import Benchmark, DataError
from benchuq.core.item_statistic import (
    fewest_answers,
    per_item,
    statistic_choices,
)
from benchuq.core.reading import loaders
from benchuq.core.reading.sources import parse_source, sample_source
from benchuq.dashboard import cache, links, publish, session
from benchuq.dashboard.bayes.view import BayesSettings
from benchuq.dashboard.context import Context
from benchuq.dashboard.site_download import site_button
from benchuq.dashboard.words import CONTROLS, OVERALL_LABELS, say
from benchuq.presentation import state
from benchuq.presentation.colors import model_colors
from benchuq.presentation.text import md_escape

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

UPLOAD_KEY = "_upload"  # session-only: this session's uploads (a cache.KeptUpload)
UPLOAD_LABEL_KEY = "_upload_label"
CATEGORY_EDITS_KEY = "_category_edits"  # {data value: {task: category}}
NAME_EDITS_KEY = "_name_edits"  # {data value: the name the user gave the data set}
NOTICES_KEY = "_link_notices"  # [[Notice, query of the run it was shown first or None], ...]
NOTICE_SLOT = "_notice_slot"  # this run's place (st.empty) for the notices, above the page
LINKED_KEY = "_linked"  # {settings class name: attributes a link set, not yet checked}
PENDING_UPLOAD = "_pending_upload"  # a lost upload's link choices, for when it is uploaded again
#: The share box of uploaded data: no link can carry files (as a report of them says).
UNSHARED = (
    "**No link yet:** these results were uploaded, and a link cannot carry files. Publish them "
    "first (Data page, 'Share these results'); the published view's link then opens this view "
    "for anyone."
)
SHARE_SLOT = "_share_slot"  # this run's sidebar slot (st.empty) for the share box
QUERY_KEY = "_query"  # the query string last written
RUN_KEY = "_run"  # runs of this session so far
BATTLES_KEY = "_battles_upload"  # session-only: uploaded battles (files, column mapping)
PAGE_PATH = "_page_path"  # this run's page (its URL path; set by dashboard/app.py)
UNSHARED_BATTLES = (
    "**No link yet:** this page shows battles uploaded in this session, and a link cannot carry "
    "files (it would open the sidebar's data set instead). Publish them first (Data page, "
    "'Share these results'); the published battles' link then opens this page with the same "
    "ratings for anyone."
)
SHARED_RUN = "_shared_run"  # the run whose share box is drawn
SITE_BENCH = "_site_bench"  # this run's data set, for the share box's site download
REBASE_KEY = "_rebase"  # set when a page's check changed its stored settings in this run
S = TypeVar("S", bound="DataclassInstance")
LEVEL_REASON = (
    "Default 83.4%: two non-overlapping 83.4% intervals correspond roughly to a 5% test of "
    "the difference (Goldstein & Healy 1995)."
)


def _init_from_url() -> None:
    """First run of a session: copy valid query parameters into the widgets' and pages' state."""
    ss = st.session_state
    if "_url_read" in ss:
        return
    params = state.upgrade_params(st.query_params.to_dict())  # old names: read as the new
    methods = list(cache.METHODS)
    values, notices = state.parse_static(params, samples=list(loaders.SAMPLES), methods=methods)
    d = state.Settings(method=methods[0])
    ss["data"] = values.get("data", d.data)
    ss["method"] = values.get("method", d.method)
    ss["level_pct"] = round(100 * float(values.get("level", d.level)), 1)  # type: ignore[arg-type]
    ss["reps"] = int(values.get("reps", d.reps))  # type: ignore[call-overload]
    ss["seed"] = int(values.get("seed", d.seed))  # type: ignore[call-overload]
    ss["metric"] = values.get("metric", d.metric)
    ss["overall"] = values.get("overall", d.overall)
    ss["statistic"] = values.get("statistic", d.statistic)
    ss["_pending"] = {k: params[k] for k in ("weights", "models", "categories") if k in params}
    if params.get("data") == state.UPLOAD:  # a reload lost the upload: keep these for its return
        ss[PENDING_UPLOAD], ss["_pending"] = ss["_pending"], {}
    ss[LINKED_KEY] = {}
    for cls, _ in links.PAGE_SETTINGS:
        page: DataclassInstance
        page, page_notices, linked = state.parse_settings(cls, params)
        session.keep(page)
        ss[LINKED_KEY][cls.__name__] = linked
        notices += page_notices
    if "priors" in ss[LINKED_KEY]["BayesSettings"]:  # checked against the data's models
        ss["_pending"]["priors"] = session.stored(BayesSettings).priors
    ss[NOTICES_KEY] = [[n, None] for n in notices]
    ss["_url_read"] = True


#: the sidebar's widget values at the end of the last run (kept outside the widgets' own state)
SIDEBAR_KEPT = "_sidebar_kept"
SIDEBAR_KEYS = ("data", "method", "level_pct", "reps", "seed", "metric", "overall", "statistic")


def _restore_sidebar() -> None:
    """Send the sidebar's values to the browser in every run, and put back those Streamlit dropped.

    A page switch keeps only the widget states the browser sent with it, and the browser itself
    may drop its copy of a sidebar widget at a page switch while the server keeps the value: such a
    widget is drawn at its default, a slider at its minimum, so an 83.4% level in use showed as 50%
    (CI's browser test, twice) and a dropped data selector raised. A value assigned before its
    widget is made travels with the widget, so the browser always shows the value in use.
    """
    ss = st.session_state
    kept = ss.get(SIDEBAR_KEPT, {})
    for key in dict.fromkeys([*kept, *SIDEBAR_KEYS]):
        if key not in ss:
            if key in kept:
                ss[key] = kept[key]
        elif key not in kept or _unchanged(ss[key], kept[key]):
            ss[key] = ss[key]


def _unchanged(value: object, kept: object) -> bool:
    """Whether a sidebar value is the one kept at the end of the last run: a value the user just
    changed is already in the browser, and sending it back could undo a quicker later change (a
    second key press on the level slider made while the first one's run was on its way)."""
    try:
        return bool(value == kept)
    except (TypeError, ValueError):  # values that do not compare (arrays): send them
        return True


def _keep_sidebar(categories: int) -> None:
    """Copy this run's sidebar values (with ``categories`` weights) for :func:`_restore_sidebar`,
    over the earlier copy: a run without data (a loading error) draws no weights, and keeps
    the last ones for the data's return."""
    ss = st.session_state
    keys = [*SIDEBAR_KEYS, "models", *(f"weight_{i}" for i in range(categories))]
    ss[SIDEBAR_KEPT] = {**ss.get(SIDEBAR_KEPT, {}), **{k: ss[k] for k in keys if k in ss}}


def _notice(notice: state.Notice) -> None:
    st.session_state[NOTICES_KEY].append([notice, None])


def _load(data: str) -> tuple[Benchmark | None, str | None]:
    """Return the data set named by ``data`` with this session's category edits applied."""
    ss = st.session_state
    try:
        if data == state.UPLOAD:
            bench = cache.read_upload(ss[UPLOAD_KEY]).bench
            if PENDING_UPLOAD in ss:
                ss["_pending"] = ss.pop(PENDING_UPLOAD)
        else:
            bench = _own(data)
            raw = ss.get("_pending", {}).pop("categories", None)
            if raw is not None:  # a link's category edits, once, for the sample it names
                linked, notice = state.parse_categories(raw, bench.tasks)
                if notice:
                    _notice(notice)
                if linked:
                    ss.setdefault(CATEGORY_EDITS_KEY, {})[data] = linked
        edits = ss.get(CATEGORY_EDITS_KEY, {}).get(data)
        bench = bench.with_categories(edits) if edits else bench
        name = ss.get(NAME_EDITS_KEY, {}).get(data)  # the Data page's name (issue 30)
        return (bench._replace(name=name) if name and name != bench.name else bench), None
    except DataError as err:
        return None, str(err)
    except Exception as err:
        return None, f"Loading '{data}' failed: {type(err).__name__}: {err}"


def _own(data: str) -> Benchmark:
    """A sample's or a published data set's own data (before this session's edits)."""
    source = parse_source(data)
    if source.kind == "shared":
        return publish.load_shared(data)
    return cache.load_sample(source.name)


def _sync_data_dependent(bench: Benchmark) -> None:
    """When the data set changes: weights and models from the link (first time) or defaults."""
    ss = st.session_state
    if ss.get("_bench_sig") == bench.data_hash and "models" in ss:
        return  # (a run without the data, e.g. a dropped upload, clears the widgets' state)
    cats = bench.category_names
    pending = ss.pop("_pending", {})
    weights = models = None
    if "weights" in pending:
        weights, notice = state.parse_weights(pending["weights"], cats)
        if notice:
            _notice(notice)
    if "models" in pending:
        models, notice = state.parse_models(pending["models"], bench.models)
        if notice:
            _notice(notice)
    if "priors" in pending:
        specs = pending["priors"]
        try:
            priors = tuple(compact_prior_specs(parse_prior_specs(list(specs), bench.models)))
        except DataError as err:
            raw = state.PRIOR_SEPARATOR.join(specs)
            _notice(state.Notice("priors", raw, f"{err}; using the default priors."))
            priors = ()
        session.keep(replace(cache.bayes_settings(), priors=priors))
    old_cats = ss.get("_bench_cats")
    if weights is None and old_cats == cats:
        weights = tuple(float(ss.get(f"weight_{i}", 1.0)) for i in range(len(cats)))
    for i, w in enumerate(weights or (1.0,) * len(cats)):
        ss[f"weight_{i}"] = float(w)
    if models is None and ss.get("_bench_models") == bench.models:
        models = tuple(ss.get("models", bench.models))
    ss["models"] = list(models or bench.models)
    ss["_bench_sig"] = bench.data_hash
    ss["_bench_cats"] = cats
    ss["_bench_models"] = bench.models


def _data_label(value: str) -> str:
    """Selectbox label (stable for a value: a published set keeps the name it was published
    with)."""
    source = parse_source(value)
    if source.kind == "upload":
        return "Uploaded data (this session)"
    if source.kind == "shared":
        return publish.label(value)
    return f"Sample: {source.name}"


#: the current data with each item's answers, when items hold several (the Plan page's input)
ANSWERS_KEY = "_bench_with_answers"


def _statistic(sb: Any, bench: Benchmark) -> Benchmark:
    """The Statistic control (issue 43), shown when items hold several answers: the data with
    each item scoring the chosen statistic (``core.item_statistic``, METHODS 2e). A linked
    statistic the data cannot give falls back to the mean with a notice."""
    ss = st.session_state
    choices = statistic_choices(bench)
    if ss.get("statistic", "mean") not in choices:
        if ss.get("statistic", "mean") != "mean":
            fewest = fewest_answers(bench)
            _notice(
                state.Notice(
                    "statistic",
                    ss["statistic"],
                    f"this data's items hold at most {fewest} answers each (the fewest); "
                    "using 'mean'."
                    if fewest
                    else "this data has no answers per item; using 'mean'.",
                )
            )
        ss["statistic"] = "mean"
    if len(choices) < 2:
        ss.pop(ANSWERS_KEY, None)
        return bench
    ss[ANSWERS_KEY] = bench  # the items with their answers: the Plan page plans more of them
    refused = None
    try:  # before the control: a statistic these answers cannot give goes back to the mean
        scored = per_item(bench, ss["statistic"])
    except DataError as err:  # e.g. pass@k of answers with partial credit
        refused = f"Item score {ss['statistic']} not applied; the mean is shown. {err}"
        ss["statistic"] = "mean"
        scored = bench
    sb.selectbox(
        "Item score",
        choices,
        key="statistic",
        format_func=CONTROLS["statistic"].shown,
        help="Items answered several times: the mean of every answer, pass@k (right in at least "
        "one of k tries) or pass^k (right in all k tries), each the unbiased estimate from an "
        "item's answers; intervals resample items with their answers (METHODS 2e).",
    )
    if refused:
        sb.error(say(refused))
    return scored


def sidebar(help_page: StreamlitPage) -> Context:
    """Render the global controls (linking to ``help_page``) and return the :class:`Context`.

    Parameters
    ----------
    help_page : StreamlitPage
        The Methods page, linked under the level slider.

    Returns
    -------
    Context
        The settings, the loaded data (or its loading error) and the model colours.
    """
    _init_from_url()
    _restore_sidebar()
    ss = st.session_state
    sb = st.sidebar
    options = [sample_source(name) for name in loaders.SAMPLES]
    if UPLOAD_KEY in ss:
        options.append(state.UPLOAD)
    shared = [*publish.opened(), ss["data"]]
    options += [v for v in dict.fromkeys(shared) if parse_source(v).kind == "shared"]
    if ss["data"] not in options:
        ss["data"] = state.DEFAULT_DATA
    sb.selectbox(
        "Data set",
        options,
        key="data",
        format_func=_data_label,
        help="Bundled samples, your uploaded files (upload them on the Data page), or "
        "published data sets opened from a link.",
    )
    if ss["data"] == state.UPLOAD:
        sb.caption("Files: " + md_escape(ss.get(UPLOAD_LABEL_KEY, "")))
    bench, error = _load(ss["data"])
    if bench is not None:
        _sync_data_dependent(bench)
        bench = _statistic(sb, bench)

    methods = list(cache.METHODS)
    sb.selectbox(
        "Uncertainty method",
        methods,
        key="method",
        format_func=lambda m: cache.METHODS[m].label,
        help=" ".join(f"{v.label}: {v.help}" for v in cache.METHODS.values()),
    )
    ranged(sb.slider, state.Settings, "level", "Interval level (%)", step=0.1, key="level_pct")
    sb.caption(LEVEL_REASON)
    sb.page_link(help_page, label="Why? See the Methods page", icon=":material/help:")
    c1, c2 = sb.columns(2)
    ranged(
        c1.number_input,
        state.Settings,
        "reps",
        "Replicates",
        step=500,
        help="Bootstrap replicates or posterior draws (R).",
    )
    ranged(
        c2.number_input,
        state.Settings,
        "seed",
        "Seed",
        step=1,
        help="Same seed, same numbers.",
    )
    sb.radio(
        "Metric",
        state.METRICS,
        key="metric",
        horizontal=True,
        format_func=lambda m: {"raw": "Raw", "normalized": "Normalized"}[m],
        help="Normalized: (x - min) / (max - min) per task over all models and replicates "
        "(METHODS 3).",
    )
    sb.radio(
        "Overall score",
        state.OVERALLS,
        key="overall",
        horizontal=True,
        format_func=OVERALL_LABELS.__getitem__,
        help="Benchmarks: the mean over benchmarks, each lm-eval group (e.g. mmlu) counting once "
        "as lm-eval scores it, as public leaderboards average; Tasks: the mean over all tasks; "
        "Auto: benchmarks for lm-eval files with groups, else tasks.",
    )

    weights: tuple[float, ...] = ()
    models: tuple[str, ...] = ()
    if bench is not None:
        cats = bench.category_names
        with sb.expander("Category weights", expanded=len(cats) <= 4):
            for i, cat in enumerate(cats):
                st.number_input(
                    md_escape(cat),
                    min_value=0.0,
                    max_value=1e6,
                    step=0.1,
                    key=f"weight_{i}",
                    format="%.2f",
                )
            weights = tuple(float(ss[f"weight_{i}"]) for i in range(len(cats)))
            norm = state.normalize_weights(weights)
            if sum(weights) <= 0:
                st.warning("All weights are 0: using equal weights.")
            st.caption(
                "Used (sum 1): "
                + ", ".join(f"{md_escape(c)} {w:.2f}" for c, w in zip(cats, norm, strict=True))
            )
        chosen = len(ss["models"])
        with sb.expander(f"Models shown ({chosen} of {len(bench.models)})", expanded=False):
            st.multiselect("Models shown", bench.models, key="models", label_visibility="collapsed")
        models = tuple(m for m in bench.models if m in ss["models"])
        if not models:
            sb.warning("No model selected: showing all.")
    settings = state.Settings(
        data=ss["data"],
        method=ss["method"],
        level=round(float(ss["level_pct"]) / 100, 4),
        reps=int(ss["reps"]),
        seed=int(ss["seed"]),
        metric=ss["metric"],
        overall=ss["overall"],
        weights=weights,
        models=models,
        statistic=ss["statistic"],
    )
    start = ss.get(QUERY_KEY)  # the view at the end of the last run
    for entry in ss[NOTICES_KEY]:
        if entry[1] is None and start is not None:
            entry[1] = start  # shown since the last run: kept while the view stays the same
    ss[RUN_KEY] = ss.get(RUN_KEY, 0) + 1
    ss[SHARE_SLOT] = st.sidebar.empty()
    ss["_settings"] = settings
    _keep_sidebar(len(bench.category_names) if bench is not None else 0)
    ss[SITE_BENCH] = bench
    _publish()
    colors = model_colors(bench.models) if bench is not None else {}
    return Context(settings=settings, bench=bench, error=error, colors=colors)


def _query() -> dict[str, str]:
    """Return the view's link: the sidebar, a sample's category edits, every page's settings.

    Defaults are left out (``state.view_query``), in a stable order: the sidebar's fields,
    ``categories``, then each page's fields in menu order (``links.PAGE_SETTINGS``).
    """
    ss = st.session_state
    settings: state.Settings = ss["_settings"]
    query = state.view_query(settings, ss.get("_bench_models", ()))
    edits = ss.get(CATEGORY_EDITS_KEY, {}).get(settings.data)
    if edits and settings.data != state.UPLOAD:
        try:
            own = _own(settings.data)
        except DataError:  # a published data set gone meanwhile: the page says so
            own = None
        if own and (changed := state.categories_query(edits, own.tasks, own.categories)):
            query[state.CATEGORIES_PARAM] = changed
    for cls, _ in links.PAGE_SETTINGS:
        query |= state.settings_query(session.stored(cls))
    return query


def _update_url(query: dict[str, str]) -> None:
    """Make the URL's query string ``query`` (in its order), dropping ours that are no longer
    set and old names (``state.OLD_NAMES``); names this app does not know are kept, after ours.
    """
    current = st.query_params.to_dict()
    ours = {*state.PARAM_NAMES, state.CATEGORIES_PARAM, *links.page_names(), *state.OLD_NAMES}
    wanted = query | {k: v for k, v in current.items() if k not in ours}
    if list(current.items()) != list(wanted.items()):
        st.query_params.from_dict(wanted)


def _publish() -> None:
    """Write the view into the URL and the share box; link notices go once the view changed."""
    ss = st.session_state
    query = _query()
    if ss.pop(REBASE_KEY, False):  # the app changed the view (a link value fell back), not the user
        for entry in ss[NOTICES_KEY]:
            entry[1] = entry[1] and query
    kept = [e for e in ss[NOTICES_KEY] if e[1] is None or e[1] == query]
    if len(kept) != len(ss[NOTICES_KEY]):
        ss[NOTICES_KEY] = kept
        _render_notices()
    if query == ss.get(QUERY_KEY) and ss.get(SHARED_RUN) == ss[RUN_KEY]:
        return
    ss[QUERY_KEY] = query
    _update_url(query)
    ss[SHARED_RUN] = ss[RUN_KEY]
    with ss[SHARE_SLOT].container(), st.popover("Share this view", icon=":material/share:"):
        if _battles_unshared(query.get("data", state.DEFAULT_DATA)):
            st.markdown(UNSHARED_BATTLES)
            return
        site_button(ss.get(SITE_BENCH), ss["_settings"], key=f"site_zip_{abs(hash(str(query)))}")
        if not parse_source(query.get("data", state.DEFAULT_DATA)).linkable:
            st.markdown(UNSHARED)  # a link to an upload would open nothing for its recipient
            return
        base = (st.context.url or "").split("?", 1)[0]
        st.code(state.address(base, query), language=None, wrap_lines=True)
        st.caption(
            "The link opens this page with every control above, each page's own settings and "
            "a sample's category edits. Uploaded data travels only once published (Data page, "
            "'Share these results')."
        )


def _battles_unshared(data: str) -> bool:
    """Whether this run's page is the Arena page showing battles uploaded in this session
    (no link carries them; a published battles table in ``data`` comes first there, #41)."""
    ss = st.session_state
    return (
        ss.get(PAGE_PATH) == publish.ARENA_PAGE
        and BATTLES_KEY in ss
        and not publish.is_battles(data)
    )


def show_notices() -> None:
    """Warn about link parameters that were ignored, above the page (until a control changes)."""
    st.session_state[NOTICE_SLOT] = st.empty()
    _render_notices()


def _render_notices() -> None:
    slot = st.session_state.get(NOTICE_SLOT)
    if slot is None:
        return
    with slot.container():
        for notice, _ in st.session_state[NOTICES_KEY]:
            st.warning(say(notice), icon=":material/link_off:")


# ---- a page's settings <-> its widgets and the link -----------------------------------------


def _to_ui(spec: state.LinkSpec, value: Any) -> Any:
    if spec.percent:
        return round(100 * float(value), 4)
    return list(value) if isinstance(value, tuple) else value


def _from_ui(spec: state.LinkSpec, default: Any, value: Any) -> Any:
    if spec.percent:
        return round(float(value) / 100, 6)
    if isinstance(default, tuple):
        return tuple(str(v) for v in value)
    return type(default)(value)


def _valid(value: Any, options: Sequence[str] | None) -> bool:
    if options is None:
        return True
    if isinstance(value, list | tuple):
        return set(value) <= set(options)
    return value in options


@dataclass
class Binding(Generic[S]):
    """A page's settings bound to its widgets; made by :func:`bind`.

    Attributes
    ----------
    value : settings dataclass
        The settings the widgets start from (checked against the data, automatic choices filled
        in).
    auto : dict
        The automatic choices (``{attribute: value}``) of data-dependent fields.
    """

    value: S
    auto: dict[str, Any] = field(default_factory=dict)

    def now(self) -> S:
        """The settings the widgets show at this point of the run (not stored; for a page that
        computes between its widgets). Call :meth:`read` once after the last widget."""
        fields_now = state.link_fields(type(self.value))
        ss = st.session_state
        return replace(
            self.value, **{a: _from_ui(spec, d, ss[spec.name]) for a, spec, d in fields_now}
        )

    def read(self, **values: Any) -> S:
        """Return the settings the widgets show now; stores them and rewrites the link.

        Parameters
        ----------
        **values
            Values (in the settings' units) of fields that have no widget of their own key,
            e.g. priors built by an editor.

        Returns
        -------
        settings dataclass
            The page's settings, automatic choices filled in. A field equal to its automatic
            choice is stored as the default, so it stays automatic (and out of the link).
        """
        ss = st.session_state
        current: dict[str, Any] = {}
        defaults: dict[str, Any] = {}
        for attr, spec, default in state.link_fields(type(self.value)):
            defaults[attr] = default
            if attr in values:
                current[attr] = values[attr]
                ss[spec.name] = _to_ui(spec, values[attr])
            else:
                current[attr] = _from_ui(spec, default, ss[spec.name])
        settings = replace(self.value, **current)
        automatic = {a: defaults[a] for a, v in self.auto.items() if current[a] == v}
        session.keep(replace(settings, **automatic))
        _publish()
        return settings


def bind(
    cls: type[S],
    *,
    choices: Mapping[str, Sequence[str]] | None = None,
    auto: Mapping[str, Any] | None = None,
    checks: Mapping[str, Callable[[Any], str | None]] | None = None,
) -> Binding[S]:
    """Bind a page's settings class to its widgets, whose keys are the fields' link names.

    Call it before the page's widgets and call :meth:`Binding.read` after them. The widgets start
    from their last state, else from this session's stored settings (a link's values on the
    first visit); data-dependent values not in ``choices`` fall back (with a notice when a link
    set them).

    Parameters
    ----------
    cls : type
        The page's settings dataclass (registered in ``dashboard.links``).
    choices : mapping, optional
        ``{attribute: allowed values}`` of the data-dependent fields.
    auto : mapping, optional
        ``{attribute: value}``: what an empty (automatic) data-dependent field means now, e.g.
        the top three models.
    checks : mapping, optional
        ``{attribute: value -> message or None}``: other data-dependent checks (a failing value
        falls back to the default).

    Returns
    -------
    Binding
        ``.value``: the starting settings; ``.read()``: the settings after the widgets.
    """
    ss = st.session_state
    allowed = dict(choices or {})
    automatic = dict(auto or {})
    linked = ss.get(LINKED_KEY, {}).pop(cls.__name__, set())
    checked, notices = state.check_choices(session.stored(cls), allowed, linked, checks)
    if checked != session.stored(cls):
        ss[REBASE_KEY] = True
    if notices:
        ss[NOTICES_KEY] += [[n, None] for n in notices]
        _render_notices()
    specs = state.link_fields(cls)
    defaults = {attr: default for attr, _, default in specs}
    start = {a: v for a, v in automatic.items() if getattr(checked, a) == defaults[a]}
    value = replace(checked, **start)
    for attr, spec, _ in specs:
        if spec.name not in ss or not _valid(ss[spec.name], allowed.get(attr)):
            ss[spec.name] = _to_ui(spec, getattr(value, attr))
    return Binding(value, automatic)


def seed(key: str, value: Any, options: Sequence[Any] | None = None) -> None:
    """Start the widget ``key`` at ``value`` unless it has a valid state (one of ``options``)."""
    ss = st.session_state
    if key not in ss or (options is not None and ss[key] not in options):
        ss[key] = value


def ranged(widget: Callable[..., Any], settings: type, name: str, label: str, **kwargs: Any) -> Any:
    """``widget(label, low, high, key=name, **kwargs)`` (a slider or number input) with the
    range of the link field ``name`` of ``settings`` (:func:`state.link_range`)."""
    low, high = state.link_range(settings, name)
    return widget(label, low, high, key=kwargs.pop("key", name), **kwargs)
