"""What every page gets: the current data, draws, level, weights and model selection.

``dashboard/app.py`` renders the sidebar (``dashboard.controls``) and stores one :class:`Context`
per run; a page calls :func:`current` and then, e.g., ``ctx.draws()``. :func:`guard` turns any
failure inside a page into an ``st.error`` message (never a traceback).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

import numpy as np
import streamlit as st

from benchuq.api.summaries import Headline, Overall, headline
from benchuq.core.data import Benchmark, DataError
from benchuq.core.draws import Draws
from benchuq.core.validation import InvalidArgument
from benchuq.dashboard import cache
from benchuq.dashboard.words import say
from benchuq.presentation.figures.common import FigureOptions
from benchuq.presentation.report import display_unit
from benchuq.presentation.state import Settings
from benchuq.presentation.text import md_escape

_KEY = "_benchuq_context"


@dataclass(frozen=True)
class Context:
    """The current view.

    Attributes
    ----------
        settings: the global controls (as carried by a shared link).
        bench: the loaded data set, or ``None`` when it failed to load (see ``error``).
        error: the message of a data-loading failure, else ``None``.
        colors: ``{model: colour}`` over all models of the data set (stable across pages).
    """

    settings: Settings
    bench: Benchmark | None
    error: str | None
    colors: dict[str, str]

    @property
    def level(self) -> float:
        """The sidebar's interval level (a proportion)."""
        return self.settings.level

    @property
    def models(self) -> tuple[str, ...]:
        """The models shown (all of them when the selection is empty)."""
        return self.settings.models or (self.bench.models if self.bench else ())

    @property
    def weights(self) -> np.ndarray:
        """Category weights summing to 1, in ``bench.category_names`` order."""
        return self.settings.normalized_weights()

    def require_bench(self) -> Benchmark:
        """Return the data set; show the loading error and stop the page if there is none."""
        if self.bench is None:
            st.error(
                say(self.error)
                if self.error
                else "No data loaded. Pick a sample or upload files on the Data page."
            )
            st.stop()
        return self.bench

    @property
    def headline(self) -> Headline:
        """What "overall" stands for: the sidebar's choice with the files' lm-eval groups."""
        from benchuq.dashboard import upload  # upload -> controls -> context

        loaded = upload.loaded_for(self.settings.data)
        groups = loaded.meta.groups if loaded is not None else ()
        overall = cast(Overall, self.settings.overall)
        return headline(self.require_bench(), groups=groups, overall=overall)

    def draws_all(self) -> Draws:
        """Return cached draws of every model (metric applied), whatever the model selection,
        with "overall" standing for :attr:`headline`."""
        s = self.settings
        draws = cache.get_draws(self.require_bench(), s.method, s.reps, s.seed, s.metric)
        headline = self.headline
        # keyed: the pages' cached calls hash these draws by their name, not their bytes
        return cache.keyed(draws.with_headline(headline), self._key(headline))

    def draws(self) -> Draws:
        """Return cached draws restricted to the models shown."""
        return self.draws_all().select_models(list(self.models))

    @property
    def draws_key(self) -> str:
        """A string naming the cached draws (a cache key for summaries of them)."""
        return self._key(self.headline)

    def _key(self, headline: Headline) -> str:
        s = self.settings
        key = cache.draws_key(self.require_bench(), s.method, s.reps, s.seed, s.metric)
        return f"{key}:overall={headline.kind}:{headline.label}"

    def figure_options(self, title: str = "") -> FigureOptions:
        """Colours and the display unit of the current metric (the report's and the CLI's rule,
        ``presentation.report.display_unit``)."""
        normalized = self.settings.metric == "normalized"
        scale, axis, _ = display_unit(self.require_bench(), normalized=normalized)
        return FigureOptions(self.colors, scale, axis, title)


def store(ctx: Context) -> None:
    """Store the context of this run (the app entry calls it once per run, before the page)."""
    st.session_state[_KEY] = ctx


def current() -> Context:
    """Return the context of this run (set by ``dashboard/app.py``)."""
    return st.session_state[_KEY]


@contextmanager
def guard(what: str = "This analysis") -> Iterator[None]:
    """Show any failure inside the block as ``st.error`` (the message Markdown-escaped: it may
    quote a name from the data) and go on."""
    try:
        yield
    except (DataError, InvalidArgument) as err:  # bad data, or a setting over a limit
        st.error(say(err))
    except Exception as err:
        st.error(f"{what} failed: {type(err).__name__}: {md_escape(err)}")
