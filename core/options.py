"""Options named in messages, each surface in its own words (issue 41, "one API grammar").

A message or note of ``core`` that tells the user to set an option names it once, with
:func:`option`: the Python keyword and value in backticks, ``option("statistic", "pass@3")`` ->
`` `statistic="pass@3"` ``. That text is the Python API's own words, so ``str(err)`` of a
:class:`~benchuq.core.data.DataError` and ``bench.notes`` need no rendering; the other surfaces
turn every such marker into theirs with :func:`render` (the one rule):

- the CLI (``benchuq.cli.words.cli_words``): ``--statistic pass@3``;
- the app (``benchuq.dashboard.words.say``): the control's label as the page shows it, or the
  Python form where no control sets the option.

Only the names in :data:`OPTIONS` are markers, so other backticked text is left alone; a
``--flag`` of benchuq's own CLI written into a core message is refused by
``tests/core/test_options.py``. Another tool's flags (``lm_eval --log_samples``) stay as they are:
the user types them there.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["OPTIONS", "Named", "named_options", "option", "pieces", "render"]

#: The options the messages of ``core`` and the Python API name, by their Python keyword (each a
#: keyword of the Python API and a flag of the CLI, ``tests/core/test_options.py``).
OPTIONS: frozenset[str] = frozenset(
    {
        "accuracy",
        "backend",
        "base_model",
        "candidate_model",
        "failed",
        "group_by",
        "human",
        "interval",
        "items",
        "judge",
        "labels",
        "margin",
        "method",
        "metric",
        "overall",
        "reps",
        "rounds",
        "runs",
        "statistic",
        "tasks",
        "ties",
    }
)

_MARKER = re.compile(r"`([a-z][a-z0-9_]*)=([^`\n]*)`")


@dataclass(frozen=True)
class Named:
    """One option a message names: ``name`` (the Python keyword), ``value`` (the Python value,
    ``None`` when the message names the option alone) and ``text`` (the value as written: a
    placeholder such as ``N`` or ``SCORER/KEY`` stays text)."""

    name: str
    value: object
    text: str


def option(name: str, *value: object, text: str | None = None) -> str:
    """The marker naming option ``name`` (set to the one ``value``, if given; none names the
    option alone; ``text``: a placeholder written as it is, ``option("items", text="N")``) in a
    message.

    Examples
    --------
    >>> option("statistic", "pass@3")
    '`statistic="pass@3"`'
    >>> option("accuracy", [0.7, 0.72])
    '`accuracy=[0.7, 0.72]`'
    >>> option("judge")
    '`judge=`'
    >>> option("items", text="N")
    '`items=N`'
    """
    if name not in OPTIONS:
        raise ValueError(f"option {name!r} is not in core.options.OPTIONS")
    if len(value) > 1:
        raise TypeError(f"option {name!r} takes one value, got {len(value)}")
    if text is None:
        if not value:
            text = ""
        elif isinstance(value[0], str):
            text = json.dumps(value[0], ensure_ascii=False)
        else:
            text = repr(value[0])
    return f"`{name}={text}`"


def _named(match: re.Match[str]) -> Named:
    text = match.group(2)
    if not text:
        return Named(match.group(1), None, "")
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):  # a placeholder: items=N
        value = text
    return Named(match.group(1), value, text)


def named_options(text: str) -> list[Named]:
    """The options ``text`` names, in order."""
    return [_named(m) for m in _MARKER.finditer(text) if m.group(1) in OPTIONS]


def pieces(text: str) -> list[str | Named]:
    """``text`` cut into its plain runs and the options it names, in order (a surface that
    escapes the plain text, as the app's Markdown does, renders each kind its own way)."""
    out: list[str | Named] = []
    start = 0
    for match in _MARKER.finditer(text):
        if match.group(1) in OPTIONS:
            out += [text[start : match.start()], _named(match)]
            start = match.end()
    out.append(text[start:])
    return [p for p in out if p != ""]


def render(text: str, form: Callable[[Named], str]) -> str:
    """``text`` with every option it names replaced by ``form`` of it (a surface's words).

    Examples
    --------
    >>> render(f"use {option('statistic', 'mean')}.", lambda o: f"--{o.name} {o.value}")
    'use --statistic mean.'
    """
    return "".join(p if isinstance(p, str) else form(p) for p in pieces(text))
