"""Model and task names of lm-evaluation-harness output, read the way lm-eval writes them.

- A results file names its model by ``config.model_args`` ``pretrained=<hub id>`` (with
  ``@<revision>`` when a revision other than ``main`` is given), else the top-level
  ``model_name`` (v0.4), else ``model=`` in the model arguments (API models), else the file or
  folder name: lm-eval writes ``<output>/<model_name_sanitized>/results_<time>.json``, where the
  sanitized name replaces ``/`` by ``__``; it is turned back. A ``pretrained=`` that is a local
  path (``/...``, ``./...``) is not a name and is skipped.
- Sample files: ``samples_<task>_<time>.jsonl`` (v0.4) name the task; 2023 files
  (``--log_samples`` before timestamps) are named ``<model_args>_<task>.jsonl`` with ``/``
  written as ``__``, e.g. ``pretrained=EleutherAI__pythia-2.8b_winogrande.jsonl``: model
  ``EleutherAI/pythia-2.8b``, task ``winogrande``. Where a task name is known (from a results file
  in the same folder) the longest matching suffix is the task; else the model argument ends at the
  first single ``_`` after its last ``=`` (hub ids rarely hold ``_``, task names often do).
"""

from __future__ import annotations

import re

__all__ = [
    "SAMPLES_RE",
    "model_from_args",
    "model_name",
    "name_from_path",
    "name_note",
    "sample_file_names",
    "sample_name_note",
]

SAMPLES_RE = re.compile(r"^samples_(?P<task>.+?)_(?P<ts>\d{4}-\d{2}-\d{2}T[\d\-:.]+)\.jsonl$")
RESULTS_RE = re.compile(r"^(?P<model>.*?)_*results(?:_\d{4}-\d{2}-\d{2}T[\d\-:.]+)?\.json$")
OLD_SAMPLES_RE = re.compile(r"^(?P<args>[A-Za-z_]\w*=.+)\.jsonl$")


def _args_dict(args: object) -> dict[str, str]:
    if isinstance(args, dict):
        return {str(k): str(v) for k, v in args.items() if v is not None}
    if isinstance(args, str):
        return dict(part.split("=", 1) for part in args.split(",") if "=" in part)
    return {}


def model_from_args(args: object, *, revision: object = None) -> str | None:
    """``pretrained`` (``@revision``) or ``model`` from lm-eval model arguments, if a name."""
    d = _args_dict(args)
    name = d.get("pretrained") or d.get("model")
    if not name or name.startswith(("/", ".", "~")):
        return None
    rev = d.get("revision") or revision
    return f"{name}@{rev}" if rev and rev != "main" else name


def name_from_path(path: str) -> str:
    """A model name from a results file's name or, failing that, its folder (``__`` -> ``/``)."""
    parts = path.split("/")
    m = RESULTS_RE.match(parts[-1])
    stem = (m.group("model") if m else parts[-1].rsplit(".", 1)[0]).strip("_")
    if not stem and len(parts) > 1:
        stem = parts[-2]
    return stem.replace("__", "/") if stem else "model"


def model_name(obj: dict, file: str) -> str:
    """The model a results file is about (see the module docstring)."""
    config = c if isinstance(c := obj.get("config"), dict) else {}
    from_args = model_from_args(config.get("model_args"), revision=config.get("model_revision"))
    if from_args:
        return from_args
    if isinstance(obj.get("model_name"), str) and obj["model_name"].strip():
        return obj["model_name"].strip()
    return name_from_path(file)


def name_note(obj: dict, file: str) -> str | None:
    """The note for a results file whose model name is not in the file (``None`` when it is):
    where the name came from, why, and how to change it."""
    config = c if isinstance(c := obj.get("config"), dict) else {}
    if model_from_args(config.get("model_args"), revision=config.get("model_revision")):
        return None
    if isinstance(obj.get("model_name"), str) and obj["model_name"].strip():
        return None
    pretrained = _args_dict(config.get("model_args")).get("pretrained", "")
    why = (
        f"its pretrained= is a local path ('{pretrained}'), not a name, and it has no model_name"
        if pretrained
        else "no pretrained= or model= in config.model_args and no model_name"
    )
    name = name_from_path(file)
    parts = file.split("/")
    m = RESULTS_RE.match(parts[-1])
    stem = (m.group("model") if m else parts[-1].rsplit(".", 1)[0]).strip("_")
    fix = 'add "model_name": "<name>" to the file'
    if stem or len(parts) > 1:
        where = "file" if stem else "folder"
        return (
            f"model name '{name}' taken from the {where} name ({why}); to change it, {fix} or "
            f"rename the {where}."
        )
    return (
        f"the file names no model ({why}) and neither does its name: the model is called "
        f"'{name}'; to name it, {fix} or put it in a folder named after the model."
    )


def sample_name_note(model: str, source: str) -> str | None:
    """The note for a sample file's model name by ``source`` (``"results"``: a results file next
    to it, no note; ``"file"``, ``"folder"`` or ``"default"``)."""
    fix = "or load the sample files with their results_<time>.json (which names the model)"
    if source == "file":
        return (
            f"model name '{model}' taken from the file name (lm-eval's 2023 naming; the records "
            f"name no model); to change it, rename the file {fix}."
        )
    if source == "folder":
        return (
            f"model name '{model}' taken from the folder name (the sample file names no model); "
            f"to change it, rename the folder {fix}."
        )
    if source == "default":
        return (
            f"no model name in the sample file, its name, its folder or a results file next to "
            f"it: the model is called '{model}'; to name it, put the file in a folder named after "
            f"the model (lm-eval writes <output>/<model>/samples_<task>_<time>.jsonl) {fix}."
        )
    return None


def sample_file_names(base: str, *, known_tasks: tuple[str, ...] = ()) -> tuple[str | None, str]:
    """(model or ``None``, task) from a sample file's name (see the module docstring)."""
    m = SAMPLES_RE.match(base)
    if m:
        return None, m.group("task")
    old = OLD_SAMPLES_RE.match(base)
    if not old:
        return None, base.removesuffix(".jsonl").removeprefix("samples_")
    text = old.group("args")
    for task in sorted(known_tasks, key=len, reverse=True):
        if text.endswith("_" + task):
            return _old_model(text[: -len(task) - 1]), task
    last = text.rfind("=")
    split = re.search(r"(?<!_)_(?!_)", text[last + 1 :])
    if split is None:
        return _old_model(text), "task"
    cut = last + 1 + split.start()
    return _old_model(text[:cut]), text[cut + 1 :]


def _old_model(args: str) -> str | None:
    return model_from_args(args.replace("__", "/"))
