"""Embedding consistency (METHODS 9): simulation against known truth, inputs and errors."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from benchuq.core.analyses.embeddings.io import (
    align,
    check_clusters,
    cluster_labels,
    read_embeddings,
    read_meta,
)
from benchuq.core.analyses.embeddings.posterior import (
    _folds,
    choose_heads,
    gaussian_stats,
    head_posteriors,
    log_posterior,
)
from benchuq.core.analyses.embeddings.resample import (
    REFIT_BUDGET,
    _influence_head,
    _perturbation_weights,
    _refit_head,
    _resample_counts,
    linear_cost,
    refit_cost,
)
from benchuq.core.analyses.embeddings.scores import consistency
from benchuq.core.analyses.embeddings.synthetic import SYNTHETIC_CASES, synthetic_clusters
from benchuq.core.data import DataError
from benchuq.core.validation import InvalidArgument


# ---- the synthetic study of [MHP] ------------------------------------------------------------
@pytest.fixture(scope="module")
def study() -> dict[str, object]:
    out = {}
    for case in SYNTHETIC_CASES:
        x, y = synthetic_clusters(case, k=10, n=300, d=16, seed=3)
        out[case] = consistency({case: x}, y, reps=200, seed=1).scores[0]
    return out


def test_separated_clusters_are_perfectly_consistent(study: dict) -> None:
    s = study["separated"]
    assert s.accuracy.estimate >= 0.99
    assert s.alp.estimate >= -0.05
    assert s.clipped == 0.0


def test_overlapping_clusters_score_chance(study: dict) -> None:
    s = study["overlapping"]
    assert abs(s.accuracy.estimate - 0.1) <= 0.1
    # labels carry no information: no better than the prior-only log(1/10)
    assert s.alp.estimate <= np.log(0.1) + 0.05


def test_cases_are_ordered_by_alp_and_accuracy(study: dict) -> None:
    sep, part, over = (study[c] for c in ("separated", "partial", "overlapping"))
    assert sep.alp.estimate > part.alp.estimate > over.alp.estimate
    assert sep.accuracy.estimate > part.accuracy.estimate > over.accuracy.estimate
    # the intervals separate them too
    assert sep.alp.low > part.alp.high and part.alp.low > over.alp.high


def test_in_sample_fit_overfits_where_cross_fitting_does_not() -> None:
    """Why folds=5 is the default: with one distribution, in-sample Gaussians of 100 entities in
    16 dimensions find structure that is not there."""
    x, y = synthetic_clusters("overlapping", k=5, n=100, d=16, seed=0)
    inside = consistency({"m": x}, y, folds=1, reps=50, eps=1e-3).scores[0]
    crossed = consistency({"m": x}, y, folds=5, reps=50, eps=1e-3).scores[0]
    assert inside.accuracy.estimate > 0.35
    assert abs(crossed.accuracy.estimate - 0.2) < 0.07


# ---- the Gaussian posterior ------------------------------------------------------------------
def test_log_posterior_matches_scipy() -> None:
    rng = np.random.default_rng(0)
    sizes = [40, 20]
    y = np.repeat([0, 1], sizes)
    x = rng.standard_normal((60, 3)) * [1.0, 2.0, 0.5] + np.eye(3)[y] * 2
    counts, sums, cross = gaussian_stats(x, y, 2)
    eps = 0.5
    got = log_posterior(counts, sums, cross, x, eps=eps)
    within = sum(((x[y == c] - x[y == c].mean(0)) ** 2).sum() for c in range(2))
    ridge = eps * (within / (60 * 3)) * 3 / 30  # eps * tau * d / mean cluster size
    ll = []
    for c in range(2):
        xc = x[y == c]
        cov = np.cov(xc.T, bias=True) + ridge * np.eye(3)
        ll.append(multivariate_normal(xc.mean(0), cov).logpdf(x) + np.log(sizes[c] / 60))
    ll = np.stack(ll, 1)
    np.testing.assert_allclose(got, ll - logsumexp(ll, axis=1, keepdims=True), atol=1e-10)


def test_heads_are_seeded_distinct_dimension_subsets() -> None:
    heads = choose_heads(100, 16, 8, np.random.default_rng(0))
    assert len(heads) == 16
    assert all(len(set(h)) == 8 and h.max() < 100 for h in heads)
    again = choose_heads(100, 16, 8, np.random.default_rng(0))
    assert all((a == b).all() for a, b in zip(heads, again, strict=True))
    assert [len(h) for h in choose_heads(10, 16, 64, np.random.default_rng(0))] == [10]


def test_resampled_counts_keep_every_cluster_size() -> None:
    y = np.repeat([0, 1, 2], [10, 30, 60])
    w = _resample_counts(y, 3, 2000, np.random.default_rng(0))
    assert w.shape == (2000, 100)
    for c, size in enumerate([10, 30, 60]):
        assert (w[:, y == c].sum(axis=1) == size).all()
        # multinomial within the cluster: each count has variance 1 - 1/n_c
        assert abs(w[:, y == c].var() - (1 - 1 / size)) < 0.05
    assert abs(w.mean() - 1) < 1e-12


def test_perturbation_weights_keep_cluster_totals_with_the_asked_spread() -> None:
    y = np.repeat([0, 1], [40, 200])
    w = _perturbation_weights(y, 2, 3000, np.random.default_rng(0), 0.1)
    assert (w > 0).all()
    np.testing.assert_allclose(w[:, y == 0].sum(axis=1), 40)
    np.testing.assert_allclose(w[:, y == 1].sum(axis=1), 200)
    assert abs(w[:, y == 1].std() - 0.1) < 0.005


def test_refit_with_integer_weights_equals_fitting_the_duplicated_entities() -> None:
    """A replicate is the procedure run on weighted entities: integer weights must give exactly
    the score of the data with every entity repeated that often (copies keep their fold)."""
    x, labels = synthetic_clusters("partial", k=3, n=30, d=5, seed=2)
    y = np.unique(labels, return_inverse=True)[1]
    rng = np.random.default_rng(0)
    for folds in (5, 1):
        fold = _folds(y, folds, rng) if folds > 1 else np.zeros(len(y), dtype=np.int64)
        w = rng.integers(0, 3, size=(3, len(y))).astype(float)
        w[0] = 1.0
        alp, acc = _refit_head(x - x.mean(axis=0), y, 3, fold, w, 4.0, -np.inf)
        for r in range(3):
            rows = np.repeat(np.arange(len(y)), w[r].astype(int))
            lp = head_posteriors(
                np.ascontiguousarray(x[rows].T), y[rows], 3, np.arange(5), 4.0, fold[rows]
            )
            assert alp[r] == pytest.approx(lp[np.arange(len(rows)), y[rows]].mean(), abs=1e-5)
            assert acc[r] == pytest.approx(np.mean(lp.argmax(axis=1) == y[rows]), abs=1e-12)


def _weighted_alp(
    xh: np.ndarray, y: np.ndarray, k: int, fold: np.ndarray, w: np.ndarray, log_clip: float
) -> float:
    """The weighted out-of-fold ALP of one head in float64, written directly: per fold the
    weighted statistics of the training entities through :func:`log_posterior` (eps 4)."""
    nfold = int(fold.max()) + 1
    lp = np.empty((len(y), k))
    for f in range(nfold):
        train = fold != f if nfold > 1 else np.ones(len(y), dtype=bool)
        parts = [(w[train & (y == c)], xh[train & (y == c)]) for c in range(k)]
        counts = np.array([wc.sum() for wc, _ in parts])
        sums = np.stack([wc @ xc for wc, xc in parts])
        cross = np.stack([(xc * wc[:, None]).T @ xc for wc, xc in parts])
        lp[fold == f] = log_posterior(counts, sums, cross, xh[fold == f], 4.0)
    own = lp[np.arange(len(y)), y]
    kept = w * (own >= log_clip)
    return float(kept @ np.where(kept > 0, own, 0.0) / kept.sum())


@pytest.mark.parametrize("folds", [5, 1])
def test_influence_is_the_derivative_of_the_weighted_alp(folds: int) -> None:
    """The linear mode's IF_j against a central finite difference of the point estimate in
    entity j's weight (computed independently, in float64), with the clip leaving some out."""
    x, labels = synthetic_clusters("partial", k=3, n=40, d=5, seed=2)
    y = np.unique(labels, return_inverse=True)[1]
    xh = x - x.mean(axis=0)
    fold = _folds(y, folds, np.random.default_rng(0)) if folds > 1 else np.zeros(120, dtype=int)
    log_clip = np.log(0.3)
    lp = head_posteriors(np.ascontiguousarray(x.T), y, 3, np.arange(5), 4.0, fold)
    assert 0 < np.mean(lp[np.arange(120), y] < log_clip) < 0.5  # the clip is active
    infl, infl_acc = _influence_head(xh, y, 3, fold, lp, 4.0, log_clip)
    step = 1e-5
    for j in range(0, 120, 7):
        up, down = np.ones(120), np.ones(120)
        up[j] += step
        down[j] -= step
        fd = (
            _weighted_alp(xh, y, 3, fold, up, log_clip)
            - _weighted_alp(xh, y, 3, fold, down, log_clip)
        ) / (2 * step)
        assert infl[j] == pytest.approx(fd, abs=1e-9, rel=1e-6)
    # accuracy: the held-out part only
    hits = (lp.argmax(axis=1) == y).astype(float)
    np.testing.assert_allclose(infl_acc, (hits - hits.mean()) / 120)


def test_linear_replicates_agree_with_refit_ones_at_a_small_spread() -> None:
    """Same weights (spread 0.01): the first-order deviations are the refit ones, per model,
    with several heads and folds. No clip here: a refitted replicate in which an entity crosses
    the clip threshold jumps by its whole term, which the draws then multiply by
    ``1 / refit_spread``; the clip's part of the influence is checked against the finite
    difference above."""
    x, labels = synthetic_clusters("partial", k=4, n=60, d=12, seed=0)
    noisy = x + np.random.default_rng(1).standard_normal(x.shape)
    emb = {"clean": x, "noisy": noisy}
    options = {"heads": 3, "dims": 6, "reps": 200, "seed": 3, "refit_spread": 0.01, "eps": 0.5}
    for folds in (5, 1):
        refit = consistency(emb, labels, folds=folds, bootstrap="refit", clip=0, **options)
        linear = consistency(emb, labels, folds=folds, bootstrap="linear", clip=0, **options)
        for m in range(2):
            a, b = refit.alp_draws[:, m], linear.alp_draws[:, m]
            assert np.corrcoef(a, b)[0, 1] > 0.99
            assert b.std() / a.std() == pytest.approx(1.0, abs=0.03)
            assert linear.scores[m].alp.estimate == refit.scores[m].alp.estimate
        assert linear.settings["bootstrap"] == "linear"
        assert "linearised refit" in linear.scores[0].alp.method
        assert "leaves out the error of fitting" in linear.scores[0].accuracy.method


def test_auto_mode_picks_linear_when_refitting_is_over_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x, y = synthetic_clusters("partial", k=3, n=40, d=6, seed=0)
    refit, linear = refit_cost(120, 3, 5, [3] * 4, 200), linear_cost(120, 3, 5, [3] * 4, 1000)
    assert linear < refit
    monkeypatch.setattr(
        "benchuq.core.analyses.embeddings.resample.REFIT_BUDGET", (linear + refit) / 2
    )
    res = consistency({"m": x}, y, seed=1, heads=4, dims=3)
    assert res.settings["bootstrap"] == "linear" and res.settings["reps"] == 1000
    monkeypatch.setattr("benchuq.core.analyses.embeddings.resample.REFIT_BUDGET", linear / 2)
    assert consistency({"m": x}, y, seed=1, heads=4, dims=3).settings["bootstrap"] == "scores"
    # the benchmark's size (20,000 entities, 16 heads x 64 dims, 8 clusters): linear, not scores
    assert linear_cost(20_000, 8, 5, [64] * 16, 1000) <= REFIT_BUDGET


def test_auto_mode_refits_small_problems_and_says_so() -> None:
    x, y = synthetic_clusters("partial", k=3, n=40, d=6, seed=0)
    small = consistency({"m": x}, y, seed=1, heads=4, dims=3)
    assert small.settings["bootstrap"] == "refit" and small.settings["reps"] == 200
    assert "refitting the Gaussians" in small.scores[0].alp.method
    fast = consistency({"m": x}, y, seed=1, heads=4, dims=3, bootstrap="scores")
    assert fast.settings["reps"] == 1000 and "held fixed" in fast.scores[0].alp.method
    assert fast.scores[0].alp.estimate == small.scores[0].alp.estimate
    assert refit_cost(20_000, 8, 5, [64] * 16, 200) > REFIT_BUDGET
    with pytest.raises(InvalidArgument, match="bootstrap 'exact'"):
        consistency({"m": x}, y, bootstrap="exact")


def test_multi_head_result_fields_and_reproducibility() -> None:
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b", "c"], 40)
    x = rng.standard_normal((120, 50))
    x[:, :5] += np.repeat(np.eye(3, 5) * 3, 40, axis=0)
    first = consistency({"m": x}, y, heads=8, dims=10, reps=100, seed=4)
    again = consistency({"m": x}, y, heads=8, dims=10, reps=100, seed=4)
    s = first.scores[0]
    assert (s.heads, s.dims) == (8, 10)
    assert s.alp.low <= s.alp.estimate <= s.alp.high <= 0
    assert 0 <= s.accuracy.low <= s.accuracy.estimate <= s.accuracy.high <= 1
    np.testing.assert_allclose(s.confusion.sum(axis=1), 1.0)
    assert s.confusion.shape == (3, 3)
    np.testing.assert_array_equal(first.alp_draws, again.alp_draws)
    assert first.table().columns[:5].tolist() == ["model", "alp", "alp_low", "alp_high", "accuracy"]


def test_paired_differences_find_the_better_model() -> None:
    x, y = synthetic_clusters("partial", k=4, n=100, d=8, seed=0)
    noisy = x + np.random.default_rng(1).standard_normal(x.shape) * 1.5
    res = consistency({"clean": x, "noisy": noisy}, y, reps=300)
    diff = res.differences(reference="clean").iloc[0]
    assert diff["model"] == "noisy"
    assert diff["alp_diff_high"] < 0 and diff["accuracy_diff_high"] < 0
    assert res.alp_draws.shape == (300, 2)


def test_clip_leaves_out_hopeless_entities_and_reports_it() -> None:
    x, y = synthetic_clusters("partial", k=4, n=50, d=4, seed=0)
    x[0] = 0.0
    x[0, 1] = 10.0  # one entity of cluster c0 deep in cluster c1's direction
    kept = consistency({"m": x}, y, clip=1e-6, reps=50, eps=1e-3).scores[0]
    every = consistency({"m": x}, y, clip=0.0, reps=50, eps=1e-3).scores[0]
    assert kept.clipped > 0 and every.clipped == 0
    assert kept.alp.estimate > every.alp.estimate


# ---- reading inputs --------------------------------------------------------------------------
def _npz(**arrays: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _meta(ids: list[str], labels: list[str]) -> pd.DataFrame:
    data = pd.DataFrame({"id": ids, "topic": labels}).to_csv(index=False).encode()
    return read_meta("meta.csv", data)


def test_formats_read_and_align_by_id() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3))
    ids = np.array(["d", "c", "b", "a"])
    meta = _meta(["a", "b", "c", "d"], ["x", "x", "y", "y"])
    npz = read_embeddings("emb.npz", _npz(ids=ids, layer_1=x, layer_2=x * 2))
    assert [s.model for s in npz] == ["layer_1", "layer_2"]
    aligned = align(npz, meta)
    np.testing.assert_allclose(aligned["layer_1"][0], x[3])
    frame = pd.DataFrame(x, columns=["v0", "v1", "v2"]).assign(id=ids)
    csv = read_embeddings("mine.csv", frame.to_csv(index=False).encode())
    buf = io.BytesIO()
    frame.to_parquet(buf)
    parquet = read_embeddings("mine.parquet", buf.getvalue())
    for s in (csv[0], parquet[0]):
        assert s.model == "mine"
        np.testing.assert_allclose(align([s], meta)["mine"], aligned["layer_1"])
    buf = io.BytesIO()
    np.save(buf, x)
    bare = read_embeddings("bare.npy", buf.getvalue())[0]
    np.testing.assert_allclose(align([bare], meta)["bare"], x)  # rows follow the meta table


def test_vectors_stored_as_lists() -> None:
    x = np.arange(12.0).reshape(4, 3)
    frame = pd.DataFrame({"id": list("abcd"), "embedding": [list(r) for r in x]})
    buf = io.BytesIO()
    frame.to_parquet(buf)
    parquet = read_embeddings("vec.parquet", buf.getvalue())[0]
    np.testing.assert_allclose(parquet.vectors, x)
    text = frame.assign(embedding=[json.dumps(list(r)) for r in x]).to_csv(index=False).encode()
    np.testing.assert_allclose(read_embeddings("vec.csv", text)[0].vectors, x)
    ragged = b'id,embedding\na,"[1, 2]"\nb,"[1, 2, 3]"\n'
    with pytest.raises(DataError, match=r"row 2, column 'embedding'.*same length"):
        read_embeddings("vec.csv", ragged)
    with pytest.raises(DataError, match=r"row 1, column 'embedding'.*cannot read the vector"):
        read_embeddings("vec.csv", b"id,embedding\na,[1;2]\nb,[3;4]\n")


def test_numeric_meta_is_cut_into_quantile_bins() -> None:
    meta = pd.DataFrame({"age": np.arange(100)}, index=[str(i) for i in range(100)])
    labels = cluster_labels(meta, "age", bins=4)
    assert len(set(labels)) == 4
    assert pd.Series(labels).value_counts().tolist() == [25, 25, 25, 25]


# ---- bad input -------------------------------------------------------------------------------
def test_mismatched_ids_name_the_id_file_and_column() -> None:
    meta = _meta(["a", "b", "c"], ["x", "x", "y"])
    sets = read_embeddings("emb.npz", _npz(ids=np.array(["a", "b", "z"]), m=np.ones((3, 2))))
    with pytest.raises(DataError) as err:
        align(sets, meta)
    text = str(err.value)
    assert "'c'" in text and "meta.csv" in text and "row 3" in text and "column 'id'" in text
    assert "How to fix" in text


def test_extra_embedding_ids_are_reported() -> None:
    meta = _meta(["a", "b"], ["x", "y"])
    sets = read_embeddings(
        "emb.npz", _npz(ids=np.array(["a", "b", "q"]), m=np.arange(6.0).reshape(3, 2))
    )
    with pytest.raises(DataError, match=r"emb.npz.*row 3.*'q'"):
        align(sets, meta)


def test_a_cluster_of_one_entity_is_refused() -> None:
    with pytest.raises(DataError) as err:
        check_clusters(np.array(["x", "x", "y", "x"]), file="meta.csv", column="topic")
    text = str(err.value)
    assert "cluster 'y' has only one entity" in text and "row 3" in text
    assert "column 'topic'" in text and "merge" in text
    with pytest.raises(DataError, match="only one entity"):
        consistency({"m": np.zeros((4, 2))}, ["x", "x", "y", "x"], reps=10)


def test_non_finite_values_name_row_and_column() -> None:
    frame = pd.DataFrame({"id": ["a", "b", "c"], "v0": [1.0, 2.0, 3.0], "v1": [0.0, np.inf, 1.0]})
    with pytest.raises(DataError) as err:
        read_embeddings("emb.csv", frame.to_csv(index=False).encode())
    text = str(err.value)
    assert "non-finite" in text and "row 2" in text and "column 'v1'" in text
    x = np.ones((3, 4))
    x[2, 1] = np.nan
    with pytest.raises(DataError, match=r"row 3, column 'dimension 1'.*non-finite"):
        read_embeddings("e.npz", _npz(m=x))


@pytest.mark.parametrize(
    ("name", "data", "pattern"),
    [
        ("e.npy", None, r"shape \(5,\)"),
        ("e.txt", b"1,2", "unsupported embedding file type"),
        ("e.csv", b"id,v0\na,1\nb,x\n", r"row 2, column 'v0'.*must be numbers"),
        ("e.npz", b"not an archive", "cannot read"),
    ],
)
def test_bad_files_give_clear_messages(name: str, data: bytes | None, pattern: str) -> None:
    if data is None:
        buf = io.BytesIO()
        np.save(buf, np.ones(5))
        data = buf.getvalue()
    with pytest.raises(DataError, match=pattern):
        read_embeddings(name, data)


def test_row_count_mismatch_of_a_bare_array() -> None:
    buf = io.BytesIO()
    np.save(buf, np.ones((4, 2)))
    sets = read_embeddings("e.npy", buf.getvalue())
    with pytest.raises(DataError, match="4 rows but the meta table has 3"):
        align(sets, _meta(["a", "b", "c"], ["x", "x", "y"]))


def test_missing_meta_value_and_unknown_column() -> None:
    meta = read_meta("m.csv", b"id,topic\na,x\nb,\nc,y\n")
    with pytest.raises(DataError, match=r"row 2, column 'topic'.*missing"):
        cluster_labels(meta, "topic")
    with pytest.raises(DataError, match="no meta column 'nope'"):
        cluster_labels(meta, "nope")
