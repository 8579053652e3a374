"""``bq.site``: the static leaderboard site ``benchuq site`` writes (issue 44; the layout is
``benchuq.presentation.site``, the tiers and rank ranges docs/METHODS.md 4b-4c). Named
``static_site``, not ``site``: the function ``benchuq.api.site`` would hide a module of that
name (``tests/package/test_public_api.py``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from benchuq.core.defaults import LEVEL
from benchuq.core.validation import check_level, check_types
from benchuq.deprecation import deprecated_names

if TYPE_CHECKING:
    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws

__all__ = ["SiteResult", "site"]


@dataclass(frozen=True)
class SiteResult:
    """The site written by :func:`site`: its folder, ``index.html``, ``leaderboard.json``, one
    badge per model (``badges``: model -> path), every file, the total size and the date shown
    (``""``: none)."""

    directory: Path
    index: Path
    leaderboard: Path
    badges: dict[str, Path]
    files: tuple[Path, ...]
    size: int
    date: str

    def __repr__(self) -> str:
        return (
            f"SiteResult({str(self.index)!r}, {len(self.files)} files, {self.size // 1024} KB, "
            f"{len(self.badges)} badges)"
        )


def site(
    bench: Benchmark,
    path: str | Path,
    *,
    draws: Draws | None = None,
    level: float = LEVEL,
    reps: int = 2000,
    seed: int = 0,
    title: str | None = None,
    by: Literal["overall", "category"] = "overall",
    date: str | None = None,
) -> SiteResult:
    """Write the static leaderboard site ``benchuq site`` writes into the folder ``path``.

    Parameters
    ----------
    bench
        The data.
    path
        The site's folder (made if missing): ``index.html``, ``leaderboard.json``, ``badges/``.
    draws
        The draws behind the intervals and tiers (default: :func:`benchuq.bootstrap` with
        ``reps`` and ``seed``).
    level
        Interval level; tier 1 is the leaderboard's ``tied_with_leader`` at this level, rank
        ranges are the simultaneous rank sets at it (METHODS 4c).
    title
        The page's title (default: the data set's name).
    by
        ``"overall"`` or ``"category"``: which leaderboards come first.
    date
        ``YYYY-MM-DD`` shown on the page (default: ``SOURCE_DATE_EPOCH``, else none): never the
        clock, so the same data give byte-identical files.

    Returns
    -------
    SiteResult
        The paths written.

    Examples
    --------
    >>> import tempfile
    >>> import benchuq as bq
    >>> out = bq.site(bq.load("sample:toy"), tempfile.mkdtemp(), reps=200, date="2026-01-01")
    >>> out.index.name, sorted(out.badges), out.date
    ('index.html', ['A', 'B'], '2026-01-01')
    """
    check_types(locals())
    from benchuq.api.reporting import output_draws
    from benchuq.presentation.badges import safe_names
    from benchuq.presentation.site import build_site, site_date

    level = check_level(level)
    target, draws = output_draws(bench, path, draws, reps=reps, seed=seed)
    files = build_site(
        bench,
        draws,
        level=level,
        title=title,
        by=by,
        date=site_date(date, os.environ),
        meta=bench.context.meta,
    )
    paths = files.write(target)
    stems = safe_names(bench.models)
    return SiteResult(
        directory=target,
        index=target / "index.html",
        leaderboard=target / "leaderboard.json",
        badges={m: target / "badges" / f"{stems[m]}.svg" for m in bench.models},
        files=paths,
        size=files.size,
        date=files.date,
    )


if not TYPE_CHECKING:  # the old name, for one release (issue 41)
    __getattr__ = deprecated_names(
        __name__, {"Site": ("SiteResult", "benchuq.api.static_site")}, globals()
    )
