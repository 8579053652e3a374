"""Published data sets in the app: the Data page's "Share these results" block, the delete link,
and opening ``data=shared:<id>`` links (the sidebar calls :func:`load_shared`).

- Publishing is an explicit act (a button under a sentence saying who can see the data); it
  stores the data in use, with this session's category edits, through :mod:`benchuq.store`, and
  then switches the session to ``shared:<id>``, so the address bar, the sidebar's "Share this
  view" and a reload all carry the published data.
- Opening a published data set checks the store's index once per browser session (a reload is a
  new session, so a deleted or expired id says so at once) and then reads the data from a cache
  keyed by its content hash and id: only published data is ever shared between sessions.
- The delete link opens the Data page with ``delete=<token>``; nothing is deleted until the
  person confirms.
- An uploaded battles table (kept for the Arena page, ``upload.BATTLES_KEY``) is published as
  battles (:mod:`benchuq.store.battles`); its link opens the Arena page, and the score pages say
  that it holds battles (#41).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from benchuq import store
from benchuq.core.data import Benchmark, DataError
from benchuq.core.reading.battles import not_scores
from benchuq.core.reading.meta import Group, Loaded
from benchuq.core.reading.sources import parse_source
from benchuq.dashboard.cache import budgeted
from benchuq.dashboard.context import Context
from benchuq.presentation import state
from benchuq.presentation.text import md_escape
from benchuq.store import battles as store_battles

CHECKED = "_shared_checked"  # {"shared:<id>": content hash} opened in this session
RECEIPTS = "_published"  # {"shared:<id>": receipt JSON} published from this session
NAMES = "_shared_names"  # {"shared:<id>": its data set's name} opened or published here
MESSAGE = "_publish_message"  # (kind, text) shown once by the block
DELETE_PARAM = "delete"
DATA_PAGE = "data"  # the Data page's URL path (the delete link opens it)
ARENA_PAGE = "arena"  # the Arena page's URL path (a published battles link opens it)
BATTLES_IDS = "_shared_battles"  # {"shared:<id>": whether it holds battles}, checked once here


@budgeted
@st.cache_resource(max_entries=16, show_spinner="Loading the published data set…")
def _published(content_hash: str, ident: str) -> Loaded:
    """A published data set, cached by its content hash and id (no private data in the key)."""
    return store.open_store().read(ident)


def loaded_shared(data: str) -> Loaded:
    """The published data set ``shared:<id>`` with the lm-eval groups stored with it; unknown,
    expired or deleted ids raise a :class:`~benchuq.store.StoreError` whose text says so; a
    published battles table raises :class:`~benchuq.core.reading.battles.BattlesNotScores`."""
    if is_battles(data):
        raise not_scores(data)
    checked = st.session_state.setdefault(CHECKED, {})
    if data not in checked:
        checked[data] = store.open_store().record(data).content_hash
    loaded = _published(checked[data], store.parse_shared(data))
    st.session_state.setdefault(NAMES, {})[data] = loaded.bench.name
    return loaded


def load_shared(data: str) -> Benchmark:
    """The published data set ``shared:<id>`` (see :func:`loaded_shared`)."""
    return loaded_shared(data).bench


def is_battles(data: str) -> bool:
    """Whether ``data`` is a published battles table (asked of the store once per session;
    ``False`` for anything else, including ids the store cannot open: their page says why)."""
    if parse_source(data).kind != "shared":
        return False
    known = st.session_state.setdefault(BATTLES_IDS, {})
    if data not in known:
        try:
            known[data] = store_battles.is_battles_id(data)
        except (DataError, OSError):
            return False
    return bool(known[data])


def opened() -> list[str]:
    """Published data sets this session has opened (the sidebar lists them)."""
    return list(st.session_state.get(CHECKED, {}))


def label(data: str) -> str:
    """The sidebar's name of ``shared:<id>``: the name it was published with, then the start of
    its id; the id alone when the store cannot open it (the page says why). Read before the
    sidebar loads the data, so a link's first view already shows the name."""
    ident = f"{data.removeprefix(store.PREFIX)[:8]}…"
    name = st.session_state.get(NAMES, {}).get(data)
    if name is None:
        try:
            name = loaded_shared(data).bench.name
        except (DataError, OSError):  # unknown, expired, deleted, the store unreachable
            return f"Published: {ident}"
    return f"Published: {name} ({ident})"


def _root() -> str:
    """The app's address without the page path (``""`` when unknown, e.g. in AppTest)."""
    base = (st.context.url or "").split("?", 1)[0].rstrip("/")
    return base.removesuffix(f"/{DATA_PAGE}")


def _view_link(data: str) -> str:
    """The current view's link with ``data`` (every other parameter as in the address bar); a
    published battles table's link opens the Arena page."""
    kept = st.query_params.to_dict().items()
    query = {"data": data} | {k: v for k, v in kept if k not in (DELETE_PARAM, "data")}
    page = ARENA_PAGE if is_battles(data) else ""
    return state.address(f"{_root()}/{page}", query)


def _delete_link(receipt: dict[str, str]) -> str:
    return f"{_root()}/{receipt['delete_link']}"


def _publish(bench: Benchmark, source: str, groups: tuple[Group, ...]) -> None:
    """Callback of the publish button (``groups``: lm-eval's, kept with the data)."""
    ss = st.session_state
    try:
        receipt = store.open_store().publish(
            bench,
            days=int(ss["share_days"]),
            source=source,
            groups=groups,
            description=str(ss.get("share_description") or ""),
        )
    except (DataError, OSError) as err:
        ss[MESSAGE] = ("error", f"Publishing failed: {err}")
        return
    value = _remember(receipt, bench.name)
    ss.setdefault(CHECKED, {})[value] = bench.content_hash
    ss["data"] = value


def _remember(receipt: store.Receipt, name: str) -> str:
    """Keep a publish's receipt and name in the session; its ``shared:<id>`` value."""
    ss = st.session_state
    value = f"{store.PREFIX}{receipt.id}"
    ss.setdefault(RECEIPTS, {})[value] = receipt.to_json()
    ss.setdefault(NAMES, {})[value] = name
    return value


def _publish_battles(files: tuple[tuple[str, bytes], ...], mapping: dict[str, str]) -> None:
    """Callback of the publish button for the uploaded battles (the Arena page's)."""
    from benchuq.dashboard import upload
    from benchuq.dashboard.arena.cached import battles_of
    from benchuq.dashboard.cache import files_digest

    ss = st.session_state
    try:
        battles = battles_of(files_digest(files), tuple(sorted(mapping.items())), files)
        receipt = store_battles.publish_battles(
            battles,
            days=int(ss["share_days"]),
            source=", ".join(name for name, _ in files)[:500],
            description=str(ss.get("share_description") or ""),
        )
    except (DataError, OSError) as err:
        ss[MESSAGE] = ("error", f"Publishing failed: {err}")
        return
    value = _remember(receipt, battles.name)
    ss.setdefault(BATTLES_IDS, {})[value] = True
    ss.pop(upload.BATTLES_KEY, None)  # the Arena page now reads the published battles
    ss.pop(upload.BATTLES_NOTE_KEY, None)
    ss["data"] = value


def _delete(data: str, token: str) -> None:
    """Callback of the delete confirmation."""
    ss = st.session_state
    try:
        store.open_store().unpublish(data, token)
    except (DataError, OSError) as err:
        ss[MESSAGE] = ("error", f"Not deleted: {err}")
    else:
        ss[MESSAGE] = (
            "success",
            f"Deleted {data}: its data is gone from the store, and anyone opening its link "
            "now reads that it was deleted.",
        )
        for key in (CHECKED, RECEIPTS, BATTLES_IDS):
            ss.get(key, {}).pop(data, None)
        ss["data"] = state.DEFAULT_DATA
    st.query_params.pop(DELETE_PARAM, None)


def _keep() -> None:
    st.query_params.pop(DELETE_PARAM, None)


def _delete_prompt(data: str) -> None:
    token = st.query_params.get(DELETE_PARAM)
    if not token:
        return
    if not data.startswith(store.PREFIX):
        st.warning("This delete link names no published data set (its data= part is missing).")
        return
    st.warning(
        f"Delete the published data set {md_escape(data)}? Its data is removed from the store "
        "and anyone opening its link reads that it was deleted. This cannot be undone.",
        icon=":material/delete:",
    )
    c1, c2, _ = st.columns([1, 1, 4])
    c1.button(
        "Delete it", key="delete_shared", type="primary", on_click=_delete, args=(data, token)
    )
    c2.button("Keep it", key="keep_shared", on_click=_keep)


def _published_info(data: str, receipt: dict[str, str] | None) -> None:
    if receipt is None:
        st.info(
            f"In use: the published data set {md_escape(data)}. Anyone who has its link can "
            "see it; it stays until it expires (see the note below) unless its publisher "
            "deletes it.",
            icon=":material/public:",
        )
        st.code(_view_link(data), language=None, wrap_lines=True)
        return
    st.success(
        f"Published until {receipt['expires'][:10]}. Anyone who has this link sees these data "
        "and this view:",
        icon=":material/public:",
    )
    st.code(_view_link(data), language=None, wrap_lines=True)
    st.markdown(
        "**Delete link** — keep it private; it is shown only in this browser tab. Opening it "
        "asks before deleting."
    )
    st.code(_delete_link(receipt), language=None, wrap_lines=True)
    st.caption(
        f"Or from a terminal: `benchuq unpublish {receipt['id']} --token "
        f"{receipt['delete_token']}` (with the same BENCHUQ_STORE as this app)."
    )


def _publish_form(
    what: str, name: str, on_click: Callable[..., None], args: tuple[Any, ...]
) -> None:
    """The publish form: what is stored (``what``, under ``name``), the description, the days
    and the button that calls ``on_click(*args)``."""
    try:
        config = store.StoreConfig.from_env()
    except DataError as err:
        st.error(f"Publishing is not available: {err}")
        return
    st.markdown(
        f"Publishing stores {what} — in "
        f"{md_escape(config.describe())}. **Anyone who has the link can see these data**; "
        "nobody can find them without it. You get a delete link; the data are removed when "
        "they expire."
    )
    st.text_input(
        "Description (optional)",
        key="share_description",
        max_chars=store.DESCRIPTION_LIMIT,
        placeholder="e.g. nightly run of 2026-11-26, base models only",
        help=f"Stored with the data under {name}, and shown to whoever opens the link.",
    )
    c1, c2 = st.columns([1, 2])
    c1.number_input("Keep for (days)", 1, config.max_days, value=config.days, key="share_days")
    c2.button(
        "Publish and get a link",
        key="publish",
        type="primary",
        icon=":material/share:",
        on_click=on_click,
        args=args,
    )


def share_block(ctx: Context, source: str = "") -> None:
    """The Data page's "Share these results": publish the upload, show the links of a published
    data set, or confirm a delete link. ``source`` names the uploaded files (provenance)."""
    st.subheader("Share these results")
    data = ctx.settings.data
    _delete_prompt(data)
    kind, text = st.session_state.pop(MESSAGE, ("", ""))
    if kind:
        getattr(st, kind)(md_escape(text))
    kind = parse_source(data).kind
    from benchuq.dashboard import upload  # upload -> controls -> publish

    battles = st.session_state.get(upload.BATTLES_KEY)
    if battles is not None:  # uploaded battles travel only once published (#41)
        st.markdown("**The uploaded battles** (rated on the Arena page):")
        files, mapping = battles
        _publish_form(
            "the battles as parsed — who met whom, the outcome, prompt and judge labels, not "
            "your files",
            "the file's name",
            _publish_battles,
            (files, mapping),
        )
        return
    if kind == "shared":
        if ctx.bench is not None or is_battles(data):
            _published_info(data, st.session_state.get(RECEIPTS, {}).get(data))
    elif kind == "sample":
        st.caption(
            "Bundled samples travel in links as they are: copy the sidebar's 'Share this view'. "
            "Upload your own results above to publish them."
        )
    elif ctx.bench is not None:
        loaded = upload.loaded_for(data)
        bench = ctx.bench
        _publish_form(
            f"the data in use — {len(bench.models)} models × {len(bench.tasks)} tasks as "
            "parsed, with your category edits and notes, not your files",
            f"its name, '{bench.name}' (rename it below)",
            _publish,
            (bench, source, loaded.meta.groups if loaded is not None else ()),
        )
