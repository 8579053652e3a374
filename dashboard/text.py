"""Showing user-supplied strings safely: never as HTML, and with markdown syntax escaped."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_escape(text: object) -> str:
    """``text`` with every markdown/HTML-significant character backslash-escaped.

    Use it whenever a model, task, category or file name goes into ``st.markdown``,
    ``st.caption``, ``st.warning`` or a widget label (all of which render markdown).
    """
    return _MD_SPECIAL.sub(r"\\\1", str(text))
