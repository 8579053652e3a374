"""The CLI's words for the options core's messages name (``core.options``): ``--statistic pass@3``
where the Python API says `` `statistic="pass@3"` `` (issue 41).

:func:`cli_words` is the one place: every line the CLI prints passes through it
(``common.VisibleText``), and so does every string of a JSON document it writes
(:func:`cli_doc`).
"""

from __future__ import annotations

import shlex
from typing import Any

from benchuq.core.options import Named, render

__all__ = ["FLAGS", "cli_doc", "cli_words", "flag"]

#: Python keyword -> CLI flag, where the flag is not ``--`` + the keyword with ``-`` for ``_``.
FLAGS: dict[str, str] = {"base_model": "--base", "candidate_model": "--candidate"}


def flag(name: str) -> str:
    """The CLI flag of the Python keyword ``name``."""
    return FLAGS.get(name, "--" + name.replace("_", "-"))


def _value(value: object) -> str:
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    return shlex.quote(text) if any(c.isspace() for c in text) else text


def _form(named: Named) -> str:
    """``--flag VALUE`` (``--flag`` alone for an option named without a value; a list's items
    one after the other, as ``nargs`` flags take them)."""
    value = named.value
    if value is None:
        return flag(named.name)
    if isinstance(value, str) and value == named.text and value.startswith("["):  # [A, B]
        value = [v.strip() for v in value.strip("[]").split(",")]
    if isinstance(value, list | tuple):
        return " ".join([flag(named.name), *map(_value, value)])
    return f"{flag(named.name)} {_value(value)}"


def cli_words(text: str) -> str:
    """``text`` with every option core names (``core.options``) as the CLI's flag."""
    return render(text, _form) if "`" in text else text


def cli_doc(doc: Any) -> Any:
    """A JSON document with :func:`cli_words` applied to each of its strings (keys unchanged)."""
    if isinstance(doc, str):
        return cli_words(doc)
    if isinstance(doc, dict):
        return {k: cli_doc(v) for k, v in doc.items()}
    if isinstance(doc, list | tuple):
        return [cli_doc(v) for v in doc]
    return doc
