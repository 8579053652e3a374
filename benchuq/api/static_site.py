"""``bq.site``: the static leaderboard site ``benchuq site`` writes (issue 44; the layout is
``benchuq.presentation.site``, the tiers and rank ranges docs/METHODS.md 4b-4c). Named
``static_site``, not ``site``: the function ``benchuq.api.site`` would hide a module of that
name (``tests/package/test_public_api.py``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from benchuq.core.validation import InvalidArgument, check_level, check_types

if TYPE_CHECKING:
    from benchuq.core.data import Benchmark
    from benchuq.core.draws import Draws

__all__ = ["Site", "site"]


@dataclass(frozen=True)
class Site:
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
            f"Site({str(self.index)!r}, {len(self.files)} files, {self.size // 1024} KB, "
            f"{len(self.badges)} badges)"
        )


def site(
    bench: Benchmark,
    path: str | Path,
    *,
    draws: Draws | None = None,
    level: float = 0.834,
    reps: int = 2000,
    seed: int = 0,
    title: str | None = None,
    by: Literal["overall", "category"] = "overall",
    date: str | None = None,
) -> Site:
    """Write the static leaderboard site ``benchuq site`` writes into the folder ``path``.

    Parameters
    ----------
    bench
        The data.
    path
        The folder to write into (made if missing).
    draws
        The draws behind the intervals (default: :func:`benchuq.bootstrap` with ``reps`` and
        ``seed``).
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
    Site
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
    from benchuq.api import bootstrap
    from benchuq.presentation.badges import safe_names
    from benchuq.presentation.site import build_site, site_date

    level = check_level(level)
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise InvalidArgument(f"path {str(target)!r} is a file; give a folder to write into.")
    if draws is None:
        draws = bootstrap(bench, reps=reps, seed=seed)
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
    return Site(
        directory=target,
        index=target / "index.html",
        leaderboard=target / "leaderboard.json",
        badges={m: target / "badges" / f"{stems[m]}.svg" for m in bench.models},
        files=paths,
        size=files.size,
        date=files.date,
    )
