"""core.priors: densities, sampling, and the MODEL:a=...,b=... spec parser (METHODS 6)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from benchuq.core.data import DataError
from benchuq.core.methods.bayes.priors import (
    DEFAULT_PRIOR,
    LogPrior,
    ModelPrior,
    Prior,
    compact_prior_specs,
    format_prior_specs,
    parse_prior,
    parse_prior_specs,
)

PRIORS = [
    Prior("exponential", (0.5,)),
    Prior("normal", (3.0, 2.0)),
    Prior("normal", (-1.0, 1.0)),  # mostly below 0: the truncation matters
    Prior("gamma", (2.5, 0.3)),
]


@pytest.mark.parametrize("prior", PRIORS, ids=str)
def test_density_integrates_to_one_and_matches_samples(prior: Prior) -> None:
    total, _ = integrate.quad(lambda x: np.exp(prior.logpdf(np.array(x))), 0, np.inf)
    assert total == pytest.approx(1.0, abs=1e-6)
    assert prior.logpdf(np.array([-1.0, 0.0])).tolist() == [-np.inf, -np.inf]
    draws = prior.sample(np.random.default_rng(0), 4000)
    assert np.all(draws > 0)

    def cdf(x: np.ndarray) -> np.ndarray:
        return np.array(
            [
                integrate.quad(lambda t: np.exp(prior.logpdf(np.array(t))), 0, v)[0]
                for v in np.atleast_1d(x)
            ]
        )

    grid = np.quantile(draws, [0.1, 0.3, 0.5, 0.7, 0.9])
    np.testing.assert_allclose(cdf(grid), [0.1, 0.3, 0.5, 0.7, 0.9], atol=0.03)


def test_vectorised_log_prior_matches_each_prior() -> None:
    x = stats.expon.rvs(scale=3, size=(5, len(PRIORS)), random_state=1)
    ref = np.stack([p.logpdf(x[:, i]) for i, p in enumerate(PRIORS)], axis=1)
    np.testing.assert_allclose(LogPrior(PRIORS)(x), ref, rtol=1e-12)


def test_parse_specs_in_order_with_star_and_colons_in_names() -> None:
    models = ["ViT-B/16", "org/model:v2", "other"]
    got = parse_prior_specs(
        [
            "*:a=gamma(2, 0.01)",
            "org/model:v2:b=normal(2000,10),a=exponential(1e-3)",
            "other:a=Exponential(2)",
        ],
        models,
    )
    assert got["ViT-B/16"] == ModelPrior(a=Prior("gamma", (2, 0.01)), b=DEFAULT_PRIOR)
    assert got["org/model:v2"] == ModelPrior(
        a=Prior("exponential", (1e-3,)), b=Prior("normal", (2000, 10))
    )
    assert got["other"].a == Prior("exponential", (2,))
    assert parse_prior_specs([], models) == dict.fromkeys(models, ModelPrior())
    assert format_prior_specs(got) == [
        "ViT-B/16:a=gamma(2,0.01),b=exponential(0.0001)",
        "org/model:v2:a=exponential(0.001),b=normal(2000,10)",
        "other:a=exponential(2),b=exponential(0.0001)",
    ]
    assert parse_prior_specs(format_prior_specs(got), models) == got


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("m1:a=exponential(-1)", "rate must be > 0"),
        ("m1:a=exponential(0)", "rate must be > 0"),
        ("m1:b=normal(5,0)", "sd must be > 0"),
        ("m1:b=normal(5,-2)", "sd must be > 0"),
        ("m1:a=gamma(0,1)", "shape must be > 0"),
        ("m1:a=gamma(2,x)", "not a number"),
        ("m1:a=gamma(2)", "takes 2 parameter"),
        ("m1:a=normal(nan,1)", "finite"),
        ("m1:a=cauchy(0,1)", "unknown prior family"),
        ("m9:a=gamma(2,1)", "not in the data"),
        ("m1 a=gamma(2,1)", "not of the form"),
        ("m1:c=gamma(2,1)", "not of the form"),
        ("m1:a=gamma(2,1),b=", "cannot read"),
    ],
)
def test_bad_specs_say_how_to_fix(spec: str, message: str) -> None:
    with pytest.raises(DataError, match=message) as err:
        parse_prior_specs([spec], ["m1", "m2"])
    assert "How to fix" in str(err.value)


def test_parse_single_prior() -> None:
    assert parse_prior(" normal( 2000 , 10 ) ") == Prior("normal", (2000, 10))
    with pytest.raises(DataError, match="cannot read"):
        parse_prior("normal 2000")


def test_compact_specs_keep_a_prior_for_every_model_as_one_spec() -> None:
    """Links (issue 30): "all models" stays one spec; the old per-model form compacts to it."""
    models = [f"org/m{i}:v1" for i in range(20)]
    star = ["*:a=normal(50,5)"]
    got = parse_prior_specs(star, models)
    assert compact_prior_specs(got) == star
    assert compact_prior_specs(parse_prior_specs(format_prior_specs(got), models)) == star
    odd = parse_prior_specs(
        ["*:b=gamma(2.123456789,0.01)", "org/m3:v1:a=normal(2000.5,10)"], models
    )
    specs = compact_prior_specs(odd)  # exact numbers (format_prior_specs rounds to 6 digits)
    assert specs == ["*:b=gamma(2.123456789,0.01)", "org/m3:v1:a=normal(2000.5,10)"]
    assert parse_prior_specs(specs, models) == odd
    assert compact_prior_specs(parse_prior_specs([], models)) == []
    assert compact_prior_specs({}) == []


def test_compact_specs_reproduce_any_priors() -> None:
    rng = np.random.default_rng(0)
    models = ["A", "B", "C", "D"]
    pool = [DEFAULT_PRIOR, *PRIORS]
    for _ in range(200):
        priors = {
            m: ModelPrior(a=pool[rng.integers(len(pool))], b=pool[rng.integers(len(pool))])
            for m in models
        }
        specs = compact_prior_specs(priors)
        assert parse_prior_specs(specs, models) == priors
        assert len(";".join(specs)) <= len(";".join(format_prior_specs(priors)))
