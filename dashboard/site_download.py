"""The share box's "Publish as a site" download: the static leaderboard site of the current data
and settings as a zip (``presentation.site``, issue 44), the same files as ``benchuq site``."""

from __future__ import annotations

import streamlit as st

from benchuq.api.summaries import Headline
from benchuq.core.data import Benchmark
from benchuq.core.reading.meta import Meta
from benchuq.dashboard import cache
from benchuq.presentation.state import Settings
from benchuq.presentation.text import file_stem

__all__ = ["site_button", "site_zip"]

LABEL = "Publish as a site (.zip)"


def site_zip(bench: Benchmark, settings: Settings, headline: Headline, meta: Meta | None) -> bytes:
    """The site of ``bench`` at ``settings`` (method, replicates, seed, metric, level; every
    model, no weights) as zip bytes; dated by the data's own date (``presentation.site``)."""
    from benchuq.presentation.site import build_site, data_date

    s = settings
    draws = cache.get_draws(bench, s.method, s.reps, s.seed, s.metric).with_headline(headline)
    site = build_site(bench, draws, level=s.level, meta=meta, date=data_date(meta))
    return site.zip_bytes()


def site_button(bench: Benchmark | None, settings: Settings, key: str) -> None:
    """The download (built when clicked). The Bayesian method's settings live in this session,
    which a download built after the run cannot read: the button then says to switch."""
    if bench is None:
        return
    from typing import cast

    from benchuq.api.summaries import Overall, headline
    from benchuq.dashboard import upload  # upload -> controls -> this module

    loaded = upload.loaded_for(settings.data)
    meta = loaded.meta if loaded is not None else None
    rule = headline(
        bench, groups=meta.groups if meta else (), overall=cast(Overall, settings.overall)
    )
    bayes = settings.method != "bootstrap"
    st.download_button(
        LABEL,
        data=lambda: site_zip(bench, settings, rule, meta),
        file_name=f"{file_stem(bench.name)}_site.zip",
        mime="application/zip",
        key=key,
        on_click="ignore",
        disabled=bayes,
        help="Switch the method to Bootstrap to publish as a site (or run `benchuq site DATA "
        "--method bayes`)."
        if bayes
        else "A static leaderboard site of every model at these settings: index.html (works "
        "offline and on any static host, e.g. GitHub Pages), leaderboard.json, CSV, Every Eval "
        "Ever files and a badge per model. The same as `benchuq site DATA -o DIR`.",
    )
