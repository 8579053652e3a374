"""Page settings of the session, kept across page switches (the link is written from them).

A page's settings (a frozen dataclass of ``state.link`` fields) are stored here under the class
name by ``dashboard.controls`` after each run of the page, so the link carries them while other
pages are open and a return to the page restores its widgets.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import streamlit as st

PAGE_STORE = "_page_settings"
if TYPE_CHECKING:
    from _typeshed import DataclassInstance

S = TypeVar("S", bound="DataclassInstance")


def stored(cls: type[S]) -> S:
    """Return this session's settings of ``cls`` (defaults until the page or a link sets them)."""
    value = st.session_state.get(PAGE_STORE, {}).get(cls.__name__)
    return value if isinstance(value, cls) else cls()


def keep(settings: object) -> None:
    """Store a page's settings (replacing the previous ones of the same class)."""
    st.session_state.setdefault(PAGE_STORE, {})[type(settings).__name__] = settings
