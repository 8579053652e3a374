"""The embeddings workflow is written once (core.analyses.embeddings.workflow): the CLI and the
app call it, and the app's "split only where the likelihood rises" reaches the CLI (--min-gain)."""

from __future__ import annotations

import contextlib
import doctest
import io
import json

import pandas as pd

from benchuq.cli.main import main
from benchuq.core.analyses.embeddings import align, load_embedding_sample, workflow
from benchuq.core.analyses.embeddings.workflow import score_embeddings

FAST = {"depth": 2, "heads": 2, "dims": 8, "bootstrap": "scores", "reps": 50}
COLUMNS = ["dataset", "length_words"]


def _cli(*flags: str) -> dict:
    argv = ["embeddings", "sample:alpaca_eval", "--label", *COLUMNS, "--json", *flags]
    argv += [x for k, v in FAST.items() for x in (f"--{k}", str(v))]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == 0
    return json.loads(out.getvalue())


def test_cli_tree_and_min_gain_are_the_workflow_s() -> None:
    sets, meta = load_embedding_sample("alpaca_eval")
    trees = {}
    for flag, min_gain in (((), False), (("--min-gain",), True)):
        want = score_embeddings(align(sets, meta), meta, COLUMNS, min_gain=min_gain, **FAST)
        assert want.tree is not None
        got = pd.DataFrame(_cli(*flag)["tree"])
        pd.testing.assert_frame_equal(got, want.tree.table(), check_dtype=False)
        trees[min_gain] = want.tree.table()
    assert len(trees[True]) < len(trees[False])  # a split that loses likelihood is left out


def test_examples_run() -> None:
    assert doctest.testmod(workflow).failed == 0
