"""``benchuq report``'s app link is short (issue 30): defaults, every model and weights of 1
each are left out; what differs travels exactly."""

from __future__ import annotations

from benchuq.cli.cmd_report import _query
from benchuq.cli.main import build_parser
from benchuq.core.reading import loaders

MODELS = loaders.load_sample("vtab1k").models


def _link(*flags: str) -> str:
    args = build_parser("report").parse_args(["report", "sample:vtab1k", *flags])
    return _query(args, MODELS)


def test_the_report_link_leaves_out_defaults_and_all_models() -> None:
    assert _link() == "?data=sample:vtab1k"  # the data always: the report is about it
    every = ["--models", *MODELS, "--weights", "1,1,1", "--level", "0.834", "--seed", "0"]
    assert _link(*every) == "?data=sample:vtab1k"
    assert _link("--models", "VAE", "Rotation", "--weights", "2,1,0.5", "--level", "0.9") == (
        "?data=sample:vtab1k&level=0.9&weights=2,1,0.5&models=Rotation,VAE"  # data order
    )
