"""A static leaderboard site anyone can host (issue 44; pure, no streamlit).

:func:`build_site` turns a data set and its draws into files: ``index.html`` (the leaderboard
with intervals, rank ranges and tiers, per-category and per-task views, the data's run details,
the method in one sentence, downloads; vanilla JavaScript sorts and searches, everything inline,
no network request: a Content-Security-Policy with the hashes of the one style and the one script
allows nothing else), ``leaderboard.json`` (``benchuq leaderboard --json`` with ``tier``,
``rank_low`` and ``rank_high`` on each row), ``leaderboard.csv``, ``every_eval_ever.zip``
(``core.export_eee``) and ``badges/<model>.svg`` (``presentation.badges``). Tiers:
``core.summaries.tiers`` (METHODS 4c); rank ranges: the simultaneous rank confidence sets
(``core.summaries.rank_sets``, METHODS 4b) at the site's level, as the app's Ranks page draws them.

Deterministic: no clock is read (the date comes from the caller or the data), the zip's entries
carry a fixed time, so the same data and settings give byte-identical files.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from benchuq.core.data import Benchmark
from benchuq.core.draws import Draws, method_words
from benchuq.core.findings import group_intervals
from benchuq.core.reading.meta import Meta
from benchuq.core.summaries import group_scores
from benchuq.core.summaries.leader import overlap_test_level
from benchuq.core.summaries.rank_sets import rank_sets
from benchuq.core.summaries.tiers import tiers
from benchuq.core.validation import InvalidArgument, check_choice, check_level
from benchuq.presentation.badges import badge_files
from benchuq.presentation.text import csv_bytes, visible

__all__ = ["BY", "By", "SiteFiles", "build_site", "data_date", "site_date"]

By = Literal["overall", "category"]
BY: tuple[str, ...] = get_args(By)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can carry: no clock read


@dataclass(frozen=True)
class SiteFiles:
    """The site: ``files`` are ``(path under the site folder, bytes)`` pairs, ``index.html``
    first; :meth:`write` puts them in a folder, :meth:`zip_bytes` in an archive."""

    files: tuple[tuple[str, bytes], ...]
    models: int
    date: str

    def __repr__(self) -> str:
        return f"SiteFiles({len(self.files)} files, {self.size // 1024} KB, {self.models} models)"

    @property
    def size(self) -> int:
        """Bytes of all files together."""
        return sum(len(b) for _, b in self.files)

    def write(self, directory: str | Path) -> tuple[Path, ...]:
        """Write every file under ``directory`` (folders made as needed); returns the paths."""
        root = Path(directory)
        out = []
        for rel, data in self.files:
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            out.append(path)
        return tuple(out)

    def zip_bytes(self) -> bytes:
        """The files as a ZIP archive with fixed entry times (the same site, the same bytes)."""
        return _zip(self.files)


def _zip(files: Sequence[tuple[str, bytes | str]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel, data in files:
            info = zipfile.ZipInfo(rel, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buf.getvalue()


def data_date(meta: Meta | None) -> str:
    """The newest ``YYYY-MM-DD`` the data's file names carry (lm-eval, inspect_ai), or ``""``."""
    from benchuq.presentation.report import run_details

    runs = run_details(meta)
    found = [d for text in runs.get("dates", pd.Series(dtype=str)) for d in _DATE.findall(text)]
    return max(found, default="")


def site_date(date: str | None, environ: Mapping[str, str]) -> str:
    """The site's date: ``date`` when given, else ``SOURCE_DATE_EPOCH`` of ``environ`` as a UTC
    ``YYYY-MM-DD`` (the reproducible-builds convention), else ``""`` (:func:`build_site` then
    takes the data's own)."""
    if date:
        return date
    epoch = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if not epoch:
        return ""
    if not epoch.isdigit():
        raise InvalidArgument(
            f"SOURCE_DATE_EPOCH={epoch!r} is not a Unix time in whole seconds.",
            hint="e.g. SOURCE_DATE_EPOCH=$(git log -1 --format=%ct), or give the date.",
        )
    return datetime.fromtimestamp(int(epoch), tz=UTC).strftime("%Y-%m-%d")


def build_site(
    bench: Benchmark,
    draws: Draws,
    *,
    level: float,
    title: str | None = None,
    by: By = "overall",
    date: str = "",
    meta: Meta | None = None,
    command: str = "",
) -> SiteFiles:
    """The site of ``bench`` with the uncertainty of ``draws`` at interval level ``level``.

    ``title`` defaults to the data set's name; ``by`` puts the overall or the per-category
    leaderboards first; ``date`` (``YYYY-MM-DD``) is shown and stamps the Every Eval Ever files
    (default: the data's own, :func:`data_date`; none: said so); ``meta`` gives the run
    details; ``command`` (shown when given) is what rebuilt the site.
    """
    from benchuq import __version__
    from benchuq.api import leaderboard
    from benchuq.core.export_eee import export_eee
    from benchuq.presentation.report import display_unit

    level = check_level(level)
    check_choice(by, BY, name="by")
    date = date or data_date(meta)
    stamp = _epoch(date) if date else "0"
    board = leaderboard(draws, level=level)
    table = _with_tiers_and_ranks(board.table, draws, level)
    board = replace(board, table=table)
    payload = board.payload()
    payload["notes"] = list(bench.notes) + payload["notes"]  # as `benchuq leaderboard --json`
    scale, _, suffix = display_unit(bench, normalized=draws.normalization is not None)
    name = visible(bench.name.strip()) or "data"
    overall = table[table["group"] == "overall"]
    badges = badge_files(
        name,
        (
            (
                str(r.model),
                int(r.tier),
                float(r.rank_low),
                float(r.rank_high),
                scale * float(r.estimate),
                scale * (float(r.high) - float(r.low)) / 2,
            )
            for r in overall.itertuples()
        ),
    )
    eee = export_eee(bench, draws.with_headline(None), level=level, meta=meta,
                     retrieved_timestamp=stamp)  # fmt: skip
    frame = board.to_frame().assign(
        level=level, method=draws.method, reps=draws.reps, seed=draws.seed
    )
    page = _Page(
        bench=bench,
        draws=draws,
        table=table,
        level=level,
        scale=scale,
        suffix=suffix,
        name=name,
        payload=payload,
        badges={m: f for m, (f, _) in badges.items()},
        badge_svgs={m: svg for m, (_, svg) in badges.items()},
        meta=meta,
    )
    index = page.html(title or name, by=by, date=date, command=command, version=__version__)
    files: list[tuple[str, bytes]] = [
        ("index.html", index.encode("utf-8")),
        ("leaderboard.json", (json.dumps(payload, indent=2) + "\n").encode("utf-8")),
        ("leaderboard.csv", csv_bytes(frame)),
        ("every_eval_ever.zip", _zip(eee.files)),
    ]
    files += [(f"badges/{f}", svg.encode("utf-8")) for f, svg in badges.values()]
    return SiteFiles(tuple(files), len(bench.models), date)


def _epoch(date: str) -> str:
    """``date`` (``YYYY-MM-DD``) as Unix seconds at midnight UTC, the Every Eval Ever files'
    ``retrieved_timestamp``; a malformed date is an :class:`InvalidArgument`."""
    try:
        day = datetime.strptime(date, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidArgument(
            f"date {date!r} is not a date as YYYY-MM-DD.", hint="e.g. --date 2026-01-31."
        ) from None
    return str(int(day.timestamp()))


def _with_tiers_and_ranks(table: pd.DataFrame, draws: Draws, level: float) -> pd.DataFrame:
    """``table`` (the leaderboard) with ``tier``, ``rank_low`` and ``rank_high`` per row: the
    group's tiers (METHODS 4c) and simultaneous rank sets (METHODS 4b) at ``level``."""
    parts = []
    for group, rows in table.groupby("group", sort=False):
        tier = tiers(draws, level=level, group=str(group))
        sc = group_scores(draws, group=str(group))
        sets = rank_sets(
            sc.values,
            sc.observed,
            draws.models,
            level=level,
            higher_is_better=sc.higher_is_better,
            label=sc.label,
        )
        at = [draws.models.index(m) for m in rows["model"]]
        parts.append(
            rows.assign(  # object columns: whole numbers, None (JSON null) without a score
                tier=_whole([tier[i] or np.nan for i in at], rows.index),
                rank_low=_whole([sets.simultaneous_low[i] for i in at], rows.index),
                rank_high=_whole([sets.simultaneous_high[i] for i in at], rows.index),
            )
        )
    return pd.concat(parts)


def _whole(values: Sequence[float], index: pd.Index) -> pd.Series:
    """Whole numbers as ``int``, a missing one (``nan``) as ``None``: an object column, so the
    JSON says ``2`` and ``null``, not ``2.0`` and ``NaN``."""
    return pd.Series([int(v) if np.isfinite(v) else None for v in values], index, dtype=object)


_STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1b1b1b;
background:#fafafa}
main{max-width:1080px;margin:0 auto;padding:1.2rem}
h1{margin:.2rem 0;font-size:1.7rem}h2{margin-top:2rem}h3{margin-bottom:.3rem}
.sub{color:#555;margin:.2rem 0}.method{background:#eef3f8;border-left:4px solid #1565c0;
padding:.6rem .8rem}
nav a{margin-right:1rem}
table{border-collapse:collapse;width:100%;background:#fff;margin:.4rem 0 1rem}
th,td{padding:.3rem .5rem;border-bottom:1px solid #e0e0e0;text-align:left;vertical-align:middle}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
th button{font:inherit;font-weight:600;background:none;border:0;padding:0;cursor:pointer;
color:inherit}
th button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid #f9a825}
th[aria-sort=ascending] button::after{content:" ▲"}
th[aria-sort=descending] button::after{content:" ▼"}
.tier{display:inline-block;padding:0 .45rem;border-radius:.6rem;color:#fff;background:#616161;
font-size:.85em}
.t1{background:#2e7d32}.t2{background:#1565c0}
tr.first-of-tier td,tr.first-of-tier th{border-top:2px solid #9e9e9e}
.search{margin:1rem 0}.search input{font:inherit;padding:.3rem .5rem;width:18rem}
.legend,.small{color:#555;font-size:.9em}
code{background:#eee;padding:0 .2rem;word-break:break-all}
svg.bar{vertical-align:middle}
"""

_SCRIPT = """
(function () {
  var status = document.getElementById('status');
  function key(cell, type) {
    var v = cell.getAttribute('data-v');
    if (type === 'text') { return v === null ? cell.textContent : v; }
    return v === null || v === '' ? NaN : parseFloat(v);
  }
  function sortBy(th) {
    var table = th.closest('table'), body = table.tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var type = th.getAttribute('data-type');
    var dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
    table.querySelectorAll('th[aria-sort]').forEach(function (h) {
      h.setAttribute('aria-sort', 'none');
    });
    th.setAttribute('aria-sort', dir);
    var sign = dir === 'ascending' ? 1 : -1;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col], type), y = key(b.cells[col], type), c;
      if (type === 'text') { c = sign * x.localeCompare(y); }
      else if (isNaN(x) || isNaN(y)) { c = isNaN(x) - isNaN(y); }
      else { c = sign * (x - y); }
      return c || (+a.getAttribute('data-i') - +b.getAttribute('data-i'));
    });
    rows.forEach(function (r) { body.appendChild(r); r.classList.remove('first-of-tier'); });
    status.textContent = (table.getAttribute('aria-label') || 'Table') + ' sorted by ' +
      th.textContent.trim() + ', ' + dir + '.';
  }
  document.querySelectorAll('table.sortable th button').forEach(function (b) {
    b.addEventListener('click', function () { sortBy(b.closest('th')); });
  });
  var search = document.getElementById('search');
  search.addEventListener('input', function () {
    var q = search.value.trim().toLowerCase(), shown = {};
    document.querySelectorAll('tr[data-model]').forEach(function (r) {
      var m = r.getAttribute('data-model'), hit = m.toLowerCase().indexOf(q) >= 0 ||
        (r.getAttribute('data-task') || '').toLowerCase().indexOf(q) >= 0;
      r.hidden = !hit;
      if (hit) { shown[m] = 1; }
    });
    status.textContent = Object.keys(shown).length + ' models match "' + search.value + '".';
  });
})();
"""


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def _e(text: object) -> str:
    """Text for HTML (content or attribute): invisible characters shown, markup escaped."""
    return html.escape(visible(str(text)), quote=True)


@dataclass(frozen=True)
class _Page:
    """What ``index.html`` shows (built by :func:`build_site`)."""

    bench: Benchmark
    draws: Draws
    table: pd.DataFrame
    level: float
    scale: float
    suffix: str
    name: str
    payload: dict[str, Any]
    badges: dict[str, str]
    badge_svgs: dict[str, str]
    meta: Meta | None

    def num(self, x: float) -> str:
        return "—" if not np.isfinite(x) else f"{self.scale * x:.1f}"

    def html(self, title: str, *, by: By, date: str, command: str, version: str) -> str:
        cats = list(self.draws.category_names) if len(self.draws.category_names) > 1 else []
        overall = self._board("overall", 2)
        by_cat = "".join(self._board(c, 3) for c in cats)
        sections = [("overall", "Overall", overall)]
        if cats:
            cat_html = f'<h2 id="categories-h">By category</h2>{by_cat}'
            sections.insert(0 if by == "category" else 1, ("categories", "By category", cat_html))
        sections += [
            ("tasks", "By task", self._tasks()),
            ("downloads", "Downloads", self._downloads()),
            ("badges", "Badges", self._badge_section()),
            ("data", "The data", self._data(date, command, version)),
        ]
        nav = " ".join(f'<a href="#{s}">{label}</a>' for s, label, _ in sections)
        body = "".join(f'<section id="{s}">{content}</section>' for s, _, content in sections)
        csp = (
            f"default-src 'none'; style-src {_sha(_STYLE)}; script-src {_sha(_SCRIPT)}; "
            "img-src data:; base-uri 'none'; form-action 'none'"
        )
        dated = f"results of {_e(date)}" if date else "undated results (the data carry no date)"
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="icon" href="data:,"><title>{_e(title)}</title>'
            f"<style>{_STYLE}</style></head><body><main>"
            f"<header><h1>{_e(title)}</h1>"
            f'<p class="sub">Data set: <strong>{_e(self.name)}</strong> · '
            f"{len(self.bench.models)} models × {len(self.bench.tasks)} tasks · {dated}</p>"
            f'<p class="method">{self._sentence()}</p></header>'
            f'<nav aria-label="Sections">{nav}</nav>'
            '<div class="search"><label for="search">Search models or tasks </label>'
            '<input id="search" type="search" autocomplete="off"></div>'
            '<p id="status" class="small" role="status" aria-live="polite"></p>'
            f"{body}</main><script>{_SCRIPT}</script></body></html>\n"
        )

    def _sentence(self) -> str:
        d = self.draws
        pct = f"{round(100 * self.level, 1):g}%"
        test = f"{round(100 * overlap_test_level(self.level), 1):g}%"
        label = str(self.payload["overall"]["label"])
        return (
            f"Each score is the {_e(label)} with its {pct} percentile interval from {d.reps} "
            f"replicates ({_e(method_words(d.method))}, seed {d.seed}); tier 1 holds the models "
            f"a paired {test} test cannot tell from the leader, each next tier the same below, "
            f"and each rank range holds all models' ranks together with {pct} confidence "
            "(docs/METHODS.md 2, 4b, 4c)."
        )

    def _board(self, group: str, level: int) -> str:
        rows = self.table[self.table["group"] == group]
        hib = bool(group_scores(self.draws, group=group).higher_is_better)
        label = "Overall: " + str(self.payload["overall"]["label"]) if group == "overall" else group
        pct = f"{round(100 * self.level, 1):g}%"
        head = (
            _th("Tier", "num")
            + _th("Rank range", "num")
            + _th("Model", "text")
            + _th(f"Score{self.suffix and ' (' + self.suffix + ')'}", "num",
                  "descending" if hib else "ascending")
            + _th(f"{pct} interval", "num")
            + '<th scope="col">Interval</th>'
            + _th("Items", "num")
        )  # fmt: skip
        lo_all = float(np.nanmin(rows["low"])) if len(rows) else 0.0
        hi_all = float(np.nanmax(rows["high"])) if len(rows) else 1.0
        body, last = [], None
        for i, r in enumerate(rows.itertuples()):
            tier = 0 if r.tier is None or pd.isna(r.tier) else int(r.tier)
            first = " first-of-tier" if last is not None and tier != last else ""
            last = tier
            ranks = "—" if pd.isna(r.rank_low) else (
                f"{int(r.rank_low)}" if r.rank_low == r.rank_high
                else f"{int(r.rank_low)}–{int(r.rank_high)}"
            )  # fmt: skip
            rank_key = "" if pd.isna(r.rank_low) else f"{r.rank_low + r.rank_high / 10000:.4f}"
            tier_cell = f'<span class="tier t{tier}">Tier {tier}</span>' if tier else "—"
            items = "" if pd.isna(r.items) else f"{r.items:.0f}"
            body.append(
                f'<tr data-i="{i}" data-model="{_e(r.model)}" data-tier="{tier}" '
                f'class="tier-row{first}">'
                f'<td class="num" data-v="{tier or ""}">{tier_cell}</td>'
                f'<td class="num" data-v="{rank_key}">{ranks}</td>'
                f'<th scope="row" data-v="{_e(r.model)}">{_e(r.model)}</th>'
                f'<td class="num" data-v="{_v(r.estimate)}">{self.num(r.estimate)}</td>'
                f'<td class="num" data-v="{_v(r.high - r.low)}">'
                f"{self.num(r.low)} – {self.num(r.high)}</td>"
                f"<td>{_bar(r.estimate, r.low, r.high, lo_all, hi_all, tier)}</td>"
                f'<td class="num" data-v="{_v(r.items)}">{items}</td></tr>'
            )
        tag = f"h{level}"
        legend = (
            '<p class="legend">Tier 1 (green): the data cannot tell these models from the '
            "leader; rows are best first, a line starts each next tier. Sort by any column with "
            "its header button (Enter or Space).</p>"
            if group == "overall"
            else ""
        )
        return (
            f'<{tag} id="{_anchor(group)}">{_e(label)}</{tag}>'
            f'<table class="sortable" aria-label="{_e(label)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>{legend}"
        )

    def _tasks(self) -> str:
        d = self.draws
        iv = group_intervals(d, d.tasks, level=self.level)
        category = dict(zip(d.tasks, d.categories, strict=True))
        pct = f"{round(100 * self.level, 1):g}%"
        head = (
            _th("Task", "text")
            + _th("Category", "text")
            + _th("Model", "text")
            + _th("Score", "num")
            + _th(f"{pct} interval", "num")
        )
        rows = [
            f'<tr data-i="{i}" data-model="{_e(r.model)}" data-task="{_e(r.group)}">'
            f'<td data-v="{_e(r.group)}">{_e(r.group)}</td>'
            f'<td data-v="{_e(category[r.group])}">{_e(category[r.group])}</td>'
            f'<td data-v="{_e(r.model)}">{_e(r.model)}</td>'
            f'<td class="num" data-v="{_v(r.estimate)}">{self.num(r.estimate)}</td>'
            f'<td class="num" data-v="{_v(r.high - r.low)}">{self.num(r.low)} – '
            f"{self.num(r.high)}</td></tr>"
            for i, r in enumerate(iv.itertuples())
        ]
        return (
            "<h2>By task</h2>"
            f'<p class="legend">Each model\'s score on each task with its {pct} percentile '
            "interval (no tiers: one task alone rarely separates models).</p>"
            f'<table class="sortable" aria-label="By task"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )

    def _downloads(self) -> str:
        pct = f"{round(100 * self.level, 1):g}%"
        items = [
            ("leaderboard.csv", "the leaderboard as a table (CSV), every group"),
            ("leaderboard.json", "the same as JSON (<code>benchuq leaderboard --json</code> with "
             "<code>tier</code>, <code>rank_low</code>, <code>rank_high</code>)"),
            ("every_eval_ever.zip", f"Every Eval Ever files (schema 0.3.0) with standard "
             f"errors and {pct} intervals (<code>benchuq export --format eee</code>)"),
        ]  # fmt: skip
        lis = "".join(f'<li><a href="{f}" download>{f}</a>: {what}</li>' for f, what in items)
        return f"<h2>Downloads</h2><ul>{lis}</ul>"

    def _badge_section(self) -> str:
        rows = []
        for model, file in self.badges.items():
            data = base64.b64encode(self.badge_svgs[model].encode("utf-8")).decode()
            rows.append(
                f'<tr data-model="{_e(model)}"><th scope="row">{_e(model)}</th>'
                f'<td><img alt="{_e(model)}: badge" src="data:image/svg+xml;base64,{data}"></td>'
                f"<td><code>![{_e(_md_alt(model))}](badges/{_e(file)})</code></td></tr>"
            )
        return (
            '<h2>Badges</h2><p class="legend">One SVG per model in <code>badges/</code> for '
            "model cards and READMEs: the overall rank range and score ± half the interval's "
            "width.</p>"
            '<table aria-label="Badges"><thead><tr><th scope="col">Model</th>'
            '<th scope="col">Badge</th><th scope="col">Markdown</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )

    def _data(self, date: str, command: str, version: str) -> str:
        from benchuq.presentation.report import NO_RUN_DETAILS, run_details

        runs = run_details(self.meta)
        if runs.empty:
            run_html = f"<p>{_e(NO_RUN_DETAILS)}</p>"
        else:
            head = "".join(f'<th scope="col">{_e(c)}</th>' for c in runs.columns)
            body = "".join(
                "<tr>" + "".join(f"<td>{_e(v)}</td>" for v in row) + "</tr>"
                for row in runs.itertuples(index=False)
            )
            run_html = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        notes = "".join(f"<li>{_e(n)}</li>" for n in self.payload["notes"])
        rebuilt = f"<p>Rebuilt with <code>{_e(command)}</code>.</p>" if command else ""
        return (
            f"<h2>The data</h2><p>Data set <strong>{_e(self.name)}</strong>: "
            f"{len(self.bench.models)} models, {len(self.bench.tasks)} tasks in "
            f"{len(self.bench.category_names)} categories"
            f"{'; dated ' + _e(date) if date else ''}.</p>"
            f"<h3>Harness and runs</h3>{run_html}"
            + (f"<h3>Notes on the data</h3><ul>{notes}</ul>" if notes else "")
            + f'{rebuilt}<p class="small">Built by benchuq {_e(version)}; the same data and '
            "settings give byte-identical files.</p>"
        )


def _md_alt(text: str) -> str:
    """``text`` as a Markdown image's alt text (backslashes and brackets escaped)."""
    return re.sub(r"([\\\[\]])", r"\\\1", text)


def _th(label: str, kind: str, sort: str = "none") -> str:
    cls = ' class="num"' if kind == "num" else ""
    return (
        f'<th scope="col"{cls} data-type="{kind}" aria-sort="{sort}">'
        f'<button type="button">{_e(label)}</button></th>'
    )


def _v(x: float) -> str:
    return f"{x:.10g}" if np.isfinite(x) else ""


def _anchor(group: str) -> str:
    return "board-" + hashlib.sha256(group.encode()).hexdigest()[:10]


def _bar(est: float, low: float, high: float, lo: float, hi: float, tier: int) -> str:
    """A small inline SVG of the interval on the group's common axis."""
    if not (np.isfinite(est) and np.isfinite(low) and np.isfinite(high)) or hi <= lo:
        return ""
    width = 140

    def x(v: float) -> float:
        return round(4 + (width - 8) * (v - lo) / (hi - lo), 1)

    color = {1: "#2e7d32", 2: "#1565c0"}.get(tier, "#616161")
    return (
        f'<svg class="bar" width="{width}" height="12" aria-hidden="true">'
        f'<line x1="{x(low)}" x2="{x(high)}" y1="6" y2="6" stroke="{color}" stroke-width="3"/>'
        f'<circle cx="{x(est)}" cy="6" r="3.5" fill="{color}"/></svg>'
    )
