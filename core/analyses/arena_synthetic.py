"""Simulated battles with known strengths, for the arena's simulation tests and benchmarks.

Each battle draws two distinct models uniformly. With ``d = beta_a - beta_b + gamma x``:

- ``ties="half"``: ``P(tie) = 2 tie min(p, 1 - p)`` with ``p = expit(d)`` and the rest split so
  that the expected score ``P(a) + P(tie) / 2`` is exactly ``p`` (the half-ties model's mean is
  right; its binomial variance is not, which the sandwich absorbs);
- ``ties="davidson"``: Davidson's model with tie ratio ``nu = tie``;
- ``prompts``: battles share prompts; a prompt shifts every model by ``prompt_sd`` logits in a
  random direction per model (correlated outcomes within a prompt);
- ``style``: a length covariate: each model's mean log length is ``style_link * beta_a`` plus
  noise, ``x = (len_a - len_b) / (len_a + len_b)``, and ``gamma = style``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit

from benchuq.core.reading.battles import Battles, battles_from_frame

__all__ = ["simulate_battles"]


def simulate_battles(
    beta: np.ndarray,
    *,
    n: int,
    tie: float = 0.3,
    ties: str = "half",
    seed: int = 0,
    prompts: int = 0,
    prompt_sd: float = 0.0,
    style: float = 0.0,
    style_link: float = 0.0,
) -> Battles:
    """``n`` battles among ``len(beta)`` models named ``m00, m01, ...`` (see the module).

    Examples
    --------
    >>> b = simulate_battles(np.array([0.5, 0.0, -0.5]), n=100, seed=1)
    >>> b.n, b.models
    (100, ('m00', 'm01', 'm02'))
    """
    rng = np.random.default_rng(seed)
    beta = np.asarray(beta, float)
    M = len(beta)
    a = rng.integers(0, M, n)
    b = (a + rng.integers(1, M, n)) % M
    d = beta[a] - beta[b]
    cols: dict[str, np.ndarray] = {}
    if prompts:
        p_of = rng.integers(0, prompts, n)
        shift = rng.normal(0.0, prompt_sd, (prompts, M))
        d = d + shift[p_of, a] - shift[p_of, b]
        cols["prompt"] = p_of.astype(str)
    if style or style_link:
        log_len = style_link * beta[:, None] + rng.normal(0.0, 0.3, (M, 1))
        la = np.exp(log_len[a, 0] + rng.normal(0.0, 0.3, n))
        lb = np.exp(log_len[b, 0] + rng.normal(0.0, 0.3, n))
        cols["length_a"], cols["length_b"] = la, lb
        d = d + style * (la - lb) / (la + lb)
    u = rng.random(n)
    if ties == "davidson":
        ea, eb = np.exp(d / 2), np.exp(-d / 2)
        den = ea + eb + tie
        pa, pt = ea / den, tie / den
    else:
        p = expit(d)
        pt = 2 * tie * np.minimum(p, 1 - p)
        pa = p - pt / 2
    winner = np.where(u < pa, "model_a", np.where(u < pa + pt, "tie", "model_b"))
    names = np.array([f"m{k:02d}" for k in range(M)], dtype=object)
    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, **cols})
    return battles_from_frame(frame, name="simulated")
