"""EmbeddingTree (METHODS 9): splits recover the informative meta feature; limits hold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchuq.core.analyses.embeddings.scores import consistency
from benchuq.core.analyses.embeddings.tree import binarize, fit_tree, parse_prior
from benchuq.core.data import DataError


def _world(seed: int = 0, n: int = 600) -> tuple[np.ndarray, pd.DataFrame]:
    """Embeddings driven by 'genre' (3 levels, strong) and 'year' (numeric, weaker); 'noise'
    is unrelated to the vectors."""
    rng = np.random.default_rng(seed)
    genre = rng.choice(["drama", "comedy", "horror"], size=n)
    year = rng.uniform(1950, 2020, size=n)
    noise = rng.choice(["p", "q"], size=n)
    x = rng.standard_normal((n, 12))
    x[:, 0] += 5.0 * (genre == "horror")
    x[:, 1] += 5.0 * (genre == "comedy")
    x[:, 2] += 2.0 * (year > 1985)
    meta = pd.DataFrame({"genre": genre, "year": year, "noise": noise})
    return x, meta


def test_binarize_levels_and_thresholds() -> None:
    _, meta = _world()
    feats = binarize(meta, ["genre", "year", "noise"], bins=4)
    labels = [f.yes for f in feats]
    assert {"genre = comedy", "genre = drama", "genre = horror"} <= set(labels)
    assert sum(lab.startswith("year <= ") for lab in labels) == 3
    assert [lab for lab in labels if lab.startswith("noise")] == ["noise = p"]


def test_tree_splits_on_the_informative_feature_first() -> None:
    x, meta = _world()
    tree = fit_tree(x, binarize(meta, ["noise", "year", "genre"]), max_depth=2, min_leaf=30)
    root = tree.nodes[0]
    assert root.split is not None and root.split.startswith("genre")
    assert all(not (n.split or "").startswith("noise") for n in tree.nodes)
    leaves = [n for n in tree.nodes if n.leaf is not None]
    assert all(n.size >= 30 for n in leaves)
    assert max(n.depth for n in tree.nodes) <= 2
    assert sum(n.size for n in leaves) == len(x)
    assert pd.Series(tree.labels).value_counts().to_dict() == {n.leaf: n.size for n in leaves}
    assert "split on [genre" in tree.text()
    assert tree.table().columns.tolist() == ["depth", "condition", "size", "split", "gain", "leaf"]


def test_leaves_separate_the_truth_better_than_a_noise_split() -> None:
    x, meta = _world(seed=1)
    feats = binarize(meta, ["genre", "noise"])
    tree = fit_tree(x, feats, max_depth=2, min_leaf=30)
    # without a gain threshold one genre is split again on noise (gain about -log 2) ...
    assert any((n.split or "").startswith("noise") and n.gain < -0.5 for n in tree.nodes)
    # ... with min_gain=0 the leaves are exactly the three genres
    pruned = fit_tree(x, feats, max_depth=2, min_leaf=30, min_gain=0.0)
    assert len(pruned.leaves) == 3
    assert pd.crosstab(pruned.labels, meta["genre"]).gt(0).sum(axis=1).eq(1).all()
    by_tree = consistency({"m": x}, pruned.labels, reps=50).scores[0]
    by_noise = consistency({"m": x}, meta["noise"].to_numpy(), reps=50).scores[0]
    assert by_tree.accuracy.estimate > 0.9
    assert by_tree.alp.estimate > by_noise.alp.estimate + 0.3


def test_prior_weight_can_steer_the_split() -> None:
    """The prior adds log(weight) to a split's total log-likelihood, so it decides close calls;
    with 150 entities a huge weight outweighs the genre signal."""
    x, meta = _world(n=150)
    feats = binarize(meta, ["genre", "noise"])
    plain = fit_tree(x, feats, max_depth=1, min_leaf=30)
    steered = fit_tree(x, feats, max_depth=1, min_leaf=30, prior={"noise": 1e300})
    assert plain.nodes[0].split.startswith("genre")
    assert steered.nodes[0].split == "noise = p"


def test_limits_and_bad_settings() -> None:
    x, meta = _world(n=100)
    feats = binarize(meta, ["genre"])
    stump = fit_tree(x, feats, max_depth=0)
    assert len(stump.nodes) == 1 and stump.leaves == ("all",)
    big_leaves = fit_tree(x, feats, max_depth=5, min_leaf=60)
    assert len(big_leaves.nodes) == 1  # no split leaves 60 on both sides
    with pytest.raises(DataError, match="min_leaf"):
        fit_tree(x, feats, min_leaf=1)
    with pytest.raises(DataError, match="must be positive"):
        fit_tree(x, feats, prior={"genre": 0.0})
    with pytest.raises(DataError, match="no meta column 'colour'"):
        binarize(meta, ["colour"])


def test_parse_prior() -> None:
    assert parse_prior(["genre=2", " year = 0.5"]) == {"genre": 2.0, "year": 0.5}
    for bad in ("genre", "genre=0", "=2", "genre=lots"):
        with pytest.raises(DataError, match="COLUMN=WEIGHT"):
            parse_prior([bad])
