"""The app's words for the options core's messages name (``core.options``, issue 41): the control
that sets the option, by its label as the page shows it (the sidebar's **Item score**: the mean
of every answer), where the Python API says `` `statistic="mean"` `` and the CLI
``--statistic mean``. An option no control sets keeps its Python form, as code.

:func:`say` is the one place an error or a note becomes Markdown on a page: the options in the
app's words, everything else escaped (``presentation.text.md_escape``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchuq.core.options import Named, option, pieces
from benchuq.presentation.text import md_escape

__all__ = ["CONTROLS", "JUDGE_METHOD", "OVERALL_LABELS", "Control", "app_form", "say"]


@dataclass(frozen=True)
class Control:
    """The control that sets an option: its ``label`` as ``page`` shows it and how it shows a
    value (``shown``)."""

    label: str
    page: str
    shown: Callable[[object], str] = str


def _statistic(value: object) -> str:
    from benchuq.core.item_statistic import parse_statistic

    try:
        return parse_statistic(str(value)).words.capitalize()
    except ValueError:  # a placeholder
        return str(value)


def _method(value: object) -> str:
    from benchuq.dashboard.cache import METHODS

    return METHODS[str(value)].label if str(value) in METHODS else str(value)


def _judge_method(value: object) -> str:
    from benchuq.presentation.report_judge import METHOD_LABELS

    return METHOD_LABELS.get(str(value), str(value))


def _percents(value: object) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(f"{100 * float(v):g}" for v in value)
    return str(value)


def _switch(on: str) -> Callable[[object], str]:
    return lambda value: "on" if value == on else "off"


def _rounds(value: object) -> str:
    from benchuq.dashboard.epp.view import ROUND_LABELS

    return ROUND_LABELS.get(str(value), str(value))


#: the sidebar's Overall score radio, value -> option shown
OVERALL_LABELS = {"auto": "Auto", "benchmarks": "Benchmarks", "tasks": "Tasks"}


def _overall(value: object) -> str:
    return OVERALL_LABELS.get(str(value), str(value))


#: Python keyword -> the control that sets it (the labels as the pages write them; checked
#: against the pages' sources by tests/app/test_app_option_words.py)
CONTROLS: dict[str, Control] = {
    "statistic": Control("Item score", "the sidebar", _statistic),
    "method": Control("Uncertainty method", "the sidebar", _method),
    "reps": Control("Replicates", "the sidebar"),
    "overall": Control("Overall score", "the sidebar", _overall),
    "metric": Control("Metric (lm-eval, HELM; inspect_ai: scorer)", "the Data page"),
    "failed": Control(
        "Count samples that errored or hit a limit as wrong (inspect_ai logs)",
        "the Data page",
        _switch("wrong"),
    ),
    "runs": Control("Keep every run", "the Data page", _switch("all")),
    "tasks": Control("Task table (optional): task, category, n[, chance]", "the Data page"),
    "margin": Control("Margin (points)", "the Two runs page"),
    "base_model": Control("Base run (the reference)", "the Two runs page"),
    "candidate_model": Control("Candidate run", "the Two runs page"),
    "judge": Control("Judge score column", "the Judge page"),
    "human": Control("Human label column", "the Judge page"),
    "labels": Control("Labels (optional)", "the Judge page"),
    "accuracy": Control("Accuracies (%), one per model", "the Plan page", _percents),
    "items": Control("Items per task", "the Plan page"),
    "rounds": Control("A round is one", "the Win probabilities page", _rounds),
}
#: the Judge page's estimator (``method=`` of the judge analysis, whose values differ from the
#: sidebar's uncertainty methods)
JUDGE_METHOD = Control("Estimator", "the Judge page", _judge_method)
_JUDGE_METHODS = ("ppi++", "rogan-gladen", "classical")


def app_form(named: Named) -> str:
    """One option in the app's words, as Markdown: ``the sidebar's **Item score**: the mean of
    every answer``; the Python form as code where no control sets the option."""
    control = CONTROLS.get(named.name)
    if named.name == "method" and named.value in _JUDGE_METHODS:
        control = JUDGE_METHOD
    if control is None:
        return "`" + option(named.name, text=named.text).strip("`") + "`"
    text = f"{control.page}'s **{md_escape(control.label)}**"
    if named.value is not None:
        text += ": " + md_escape(control.shown(named.value))
    return text


def say(text: object) -> str:
    """``text`` (an error, a hint, a note) as Markdown for ``st.error``, ``st.caption`` and the
    like: every option it names in the app's words (:func:`app_form`), the rest escaped."""
    return "".join(md_escape(p) if isinstance(p, str) else app_form(p) for p in pieces(str(text)))
