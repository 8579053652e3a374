"""The global sidebar: data set, uncertainty method, level, metric, weights, models, share link.

Widget values live in ``st.session_state`` under fixed keys. On the first run of a session they
are filled from the URL query string (``dashboard.state``); on every run the query string is
rewritten from them, so the URL always describes the view (also after a page switch, which
clears the query string in a real browser).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from benchuq.core.bayes.priors import format_prior_specs, parse_prior_specs
from benchuq.core.data import Benchmark, DataError
from benchuq.core.readers import loaders
from benchuq.dashboard import cache, publish, state
from benchuq.dashboard.colors import model_colors
from benchuq.dashboard.context import Context
from benchuq.dashboard.text import md_escape

UPLOAD_KEY = "_upload"  # session-only: the Benchmark loaded from this session's uploads
UPLOAD_LABEL_KEY = "_upload_label"
CATEGORY_EDITS_KEY = "_category_edits"  # {data value: {task: category}}
NOTICES_KEY = "_link_notices"
PENDING_UPLOAD = "_pending_upload"  # a lost upload's link choices, for when it is uploaded again
SHARE_SLOT = "_share_slot"  # this run's sidebar slot (st.empty) for the share box, and its query
LEVEL_REASON = (
    "Default 83.4%: two non-overlapping 83.4% intervals correspond roughly to a 5% test of "
    "the difference (Goldstein & Healy 1995)."
)


def _init_from_url() -> None:
    """First run of a session: copy valid query parameters into the widgets' state."""
    ss = st.session_state
    if "_url_read" in ss:
        return
    params = st.query_params.to_dict()
    methods = list(cache.METHODS)
    values, notices = state.parse_static(params, samples=list(loaders.SAMPLES), methods=methods)
    d = state.Settings(method=methods[0])
    ss["data"] = values.get("data", d.data)
    ss["method"] = values.get("method", d.method)
    ss["level_pct"] = round(100 * float(values.get("level", d.level)), 1)
    ss["reps"] = int(values.get("reps", d.reps))
    ss["seed"] = int(values.get("seed", d.seed))
    ss["metric"] = values.get("metric", d.metric)
    ss["rho"] = float(values.get("rho", d.rho))
    ss["_pending"] = {k: params[k] for k in ("weights", "models", "categories") if k in params}
    if params.get("data") == state.UPLOAD:  # a reload lost the upload: keep these for its return
        ss[PENDING_UPLOAD], ss["_pending"] = ss["_pending"], {}
    bayes, bayes_notices = state.parse_bayes(params)
    if "priors" in bayes:
        ss["_pending"]["priors"] = bayes.pop("priors")
    if bayes:
        ss[cache.BAYES_STATE] = cache.BayesSettings(**bayes)  # type: ignore[arg-type]
    ss[NOTICES_KEY] = [*notices, *bayes_notices]
    ss["_url_read"] = True


def _load(data: str) -> tuple[Benchmark | None, str | None]:
    """The data set named by ``data`` with this session's category edits applied."""
    ss = st.session_state
    try:
        if data == state.UPLOAD:
            bench = ss[UPLOAD_KEY]
            if PENDING_UPLOAD in ss:
                ss["_pending"] = ss.pop(PENDING_UPLOAD)
        else:
            bench = _own(data)
            raw = ss.get("_pending", {}).pop("categories", None)
            if raw is not None:  # a link's category edits, once, for the sample it names
                linked, notice = state.parse_categories(raw, bench.tasks)
                if notice:
                    ss[NOTICES_KEY].append(notice)
                if linked:
                    ss.setdefault(CATEGORY_EDITS_KEY, {})[data] = linked
        edits = ss.get(CATEGORY_EDITS_KEY, {}).get(data)
        return (bench.with_categories(edits) if edits else bench), None
    except DataError as err:
        return None, str(err)
    except Exception as err:
        return None, f"Loading '{data}' failed: {type(err).__name__}: {err}"


def _own(data: str) -> Benchmark:
    """A sample's or a published data set's own data (before this session's edits)."""
    if data.startswith(state.SHARED):
        return publish.load_shared(data)
    return cache.load_sample(data.split(":", 1)[1])


def _sync_data_dependent(bench: Benchmark) -> None:
    """When the data set changes: weights and models from the link (first time) or defaults."""
    ss = st.session_state
    if ss.get("_bench_sig") == bench.content_hash:
        return
    cats = bench.category_names
    pending = ss.pop("_pending", {})
    weights = models = None
    if "weights" in pending:
        weights, notice = state.parse_weights(pending["weights"], cats)
        if notice:
            ss[NOTICES_KEY].append(notice)
    if "models" in pending:
        models, notice = state.parse_models(pending["models"], bench.models)
        if notice:
            ss[NOTICES_KEY].append(notice)
    if "priors" in pending:
        specs = pending["priors"]
        try:
            priors = format_prior_specs(parse_prior_specs(list(specs), bench.models))
        except DataError as err:
            raw = state.PRIOR_SEPARATOR.join(specs)
            ss[NOTICES_KEY].append(state.Notice("priors", raw, f"{err}; using the default priors."))
        else:
            ss[cache.BAYES_STATE] = replace(cache.bayes_settings(), priors=tuple(priors))
    old_cats = ss.get("_bench_cats")
    if weights is None and old_cats == cats:
        weights = tuple(float(ss.get(f"weight_{i}", 1.0)) for i in range(len(cats)))
    for i, w in enumerate(weights or (1.0,) * len(cats)):
        ss[f"weight_{i}"] = float(w)
    if models is None and ss.get("_bench_models") == bench.models:
        models = tuple(ss.get("models", bench.models))
    ss["models"] = list(models or bench.models)
    ss["_bench_sig"] = bench.content_hash
    ss["_bench_cats"] = cats
    ss["_bench_models"] = bench.models


def _data_label(value: str) -> str:
    """Selectbox label (pure: AppTest and widget identity need a stable label)."""
    if value == state.UPLOAD:
        return "Uploaded data (this session)"
    if value.startswith(state.SHARED):
        return publish.label(value)
    return f"Sample: {value.split(':', 1)[1]}"


def sidebar(help_page: StreamlitPage) -> Context:
    """Render the global controls (linking to ``help_page``) and return the :class:`Context`."""
    _init_from_url()
    ss = st.session_state
    sb = st.sidebar
    options = [f"sample:{name}" for name in loaders.SAMPLES]
    if UPLOAD_KEY in ss:
        options.append(state.UPLOAD)
    shared = [*publish.opened(), ss["data"]]
    options += [v for v in dict.fromkeys(shared) if v.startswith(state.SHARED)]
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

    methods = list(cache.METHODS)
    sb.selectbox(
        "Uncertainty method",
        methods,
        key="method",
        format_func=lambda m: cache.METHODS[m].label,
        help=" ".join(f"{v.label}: {v.help}" for v in cache.METHODS.values()),
    )
    sb.slider(
        "Interval level (%)",
        min_value=50.0,
        max_value=99.5,
        step=0.1,
        key="level_pct",
        format="%.1f",
    )
    sb.caption(LEVEL_REASON)
    sb.page_link(help_page, label="Why? See the Methods page", icon=":material/help:")
    c1, c2 = sb.columns(2)
    c1.number_input(
        "Replicates",
        min_value=state.REPS_RANGE[0],
        max_value=state.REPS_RANGE[1],
        step=500,
        key="reps",
        help="Bootstrap replicates or posterior draws (R).",
    )
    c2.number_input(
        "Seed",
        min_value=state.SEED_RANGE[0],
        max_value=state.SEED_RANGE[1],
        step=1,
        key="seed",
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
    sb.slider(
        "Assumed correlation between models (rho)",
        0.0,
        state.RHO_RANGE[1],
        step=0.01,
        key="rho",
        help="Used by task-weight maps when draws are not paired (METHODS 5).",
    )

    settings = state.Settings(
        data=ss["data"],
        method=ss["method"],
        level=round(float(ss["level_pct"]) / 100, 4),
        reps=int(ss["reps"]),
        seed=int(ss["seed"]),
        metric=ss["metric"],
        rho=float(ss["rho"]),
        weights=weights,
        models=models,
    )
    query = _query(settings)
    _update_url(query)
    if ss.setdefault("_first_query", query) != query:
        ss[NOTICES_KEY] = []
    ss[SHARE_SLOT] = (st.sidebar.empty(), query)
    _share_box()
    colors = model_colors(bench.models) if bench is not None else {}
    return Context(settings=settings, bench=bench, error=error, colors=colors)


def _query(settings: state.Settings) -> dict[str, str]:
    """The link of a view: the global controls, a sample's category edits, and with the
    Bayesian method its settings."""
    query = state.to_query(settings)
    edits = st.session_state.get(CATEGORY_EDITS_KEY, {}).get(settings.data)
    if edits and settings.data != state.UPLOAD:
        try:
            own = _own(settings.data)
        except DataError:  # a published data set gone meanwhile: the page says so
            own = None
        if own and (changed := state.categories_query(edits, own.tasks, own.categories)):
            query["categories"] = changed
    if settings.method == "bayes":
        b = cache.bayes_settings()
        query |= state.bayes_query(b.priors, b.chains, b.warmup, b.interval, b.sampler)
    return query


def _update_url(query: dict[str, str]) -> None:
    """Write changed parameters and drop optional ones no longer set (only our names: pages may
    bind their own widgets to other parameters)."""
    current = st.query_params.to_dict()
    changed = {k: v for k, v in query.items() if current.get(k) != v}
    if changed:
        st.query_params.update(changed)
    for name in state.OPTIONAL_PARAM_NAMES:
        if name in current and name not in query:
            del st.query_params[name]


def finish(settings: state.Settings) -> None:
    """After the page ran: settings it changed (the Bayesian model's) go into the URL and the
    share box."""
    slot = st.session_state.get(SHARE_SLOT)
    query = _query(settings)
    if slot is not None and slot[1] != query:
        st.session_state[SHARE_SLOT] = (slot[0], query)
        _update_url(query)
        _share_box()


def _share_box() -> None:
    slot, query = st.session_state[SHARE_SLOT]
    with slot.container(), st.expander("Share this view"):
        base = (st.context.url or "").split("?", 1)[0]
        st.code(f"{base}?{urlencode(query)}", language=None, wrap_lines=True)
        st.caption(
            "The link carries every control above, a sample's category edits, and with the "
            "Bayesian method its priors and run settings. Uploaded data travels only once "
            "published (Data page, 'Share these results')."
        )


def show_notices() -> None:
    """Warn about link parameters that were ignored (shown until the user changes a control)."""
    for notice in st.session_state.get(NOTICES_KEY, []):
        st.warning(md_escape(str(notice)), icon=":material/link_off:")
