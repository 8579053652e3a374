"""Priors on the Beta parameters a_i, b_i of the hierarchical model and their text (METHODS 6).

Families (all on ``x > 0``):

- ``exponential(rate)``: density ``rate * exp(-rate x)``; the default, rate ``1e-4`` ([LGC] 2.2);
- ``normal(mean,sd)``: a normal truncated at 0 (the [LGC] simulation study uses
  ``normal(2000,10)``);
- ``gamma(shape,rate)``: density proportional to ``x^(shape-1) exp(-rate x)``.

Text form, one spec per ``--prior`` flag or UI line::

    MODEL:a=exponential(1e-4),b=exponential(1e-4)
    *:a=gamma(2,0.01)                 # every model; b keeps its prior
    ViT-B/16:b=normal(2000,10)

Specs apply in order, later ones overriding earlier ones; ``*`` means every model. Model names may
contain ``:`` (the last ``:`` followed by ``a=`` or ``b=`` separates name and body).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special, stats

from benchuq.core.data import DataError

__all__ = [
    "DEFAULT_PRIOR",
    "DEFAULT_RATE",
    "FAMILIES",
    "LogPrior",
    "ModelPrior",
    "Prior",
    "compact_prior_specs",
    "format_prior_specs",
    "parse_prior",
    "parse_prior_specs",
]

FAMILIES: dict[str, tuple[str, ...]] = {
    "exponential": ("rate",),
    "normal": ("mean", "sd"),
    "gamma": ("shape", "rate"),
}
DEFAULT_RATE = 1e-4


@dataclass(frozen=True)
class Prior:
    """One prior on a positive parameter: ``family`` in :data:`FAMILIES` and its ``params``."""

    family: str
    params: tuple[float, ...]

    def __post_init__(self) -> None:
        names = FAMILIES.get(self.family)
        if names is None:
            raise DataError(
                f"unknown prior family {self.family!r}.",
                hint="use exponential(rate), normal(mean,sd) or gamma(shape,rate).",
            )
        if len(self.params) != len(names):
            raise DataError(
                f"{self.family} takes {len(names)} parameter(s) ({', '.join(names)}), "
                f"got {len(self.params)}.",
                hint=f"write it as {self.family}({','.join(names)}), e.g. {_example(self.family)}.",
            )
        params = tuple(float(p) for p in self.params)
        object.__setattr__(self, "params", params)
        for name, value in zip(names, params, strict=True):
            if not np.isfinite(value):
                raise DataError(
                    f"{self.family} {name} must be a finite number, got {value}.",
                    hint=f"e.g. {_example(self.family)}.",
                )
            if name != "mean" and value <= 0:
                raise DataError(
                    f"{self.family} {name} must be > 0, got {value:g}.",
                    hint=f"use a positive {name}, e.g. {_example(self.family)}.",
                )

    def __str__(self) -> str:
        return f"{self.family}({','.join(f'{p:g}' for p in self.params)})"

    def logpdf(self, x: np.ndarray) -> np.ndarray:
        """Log density at ``x`` (``-inf`` for ``x <= 0``), including the normalising constant."""
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.family == "exponential":
                (rate,) = self.params
                out = np.log(rate) - rate * x
            elif self.family == "normal":
                mean, sd = self.params
                out = stats.norm.logpdf(x, mean, sd) - stats.norm.logsf(0.0, mean, sd)
            else:
                shape, rate = self.params
                out = shape * np.log(rate) - special.gammaln(shape) + (shape - 1) * np.log(x)
                out = out - rate * x
        return np.where(x > 0, out, -np.inf)

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        """Independent draws from the prior (used for simulation-based calibration)."""
        if self.family == "exponential":
            return rng.exponential(1.0 / self.params[0], size)
        if self.family == "normal":
            mean, sd = self.params
            lo = (0.0 - mean) / sd
            return stats.truncnorm.rvs(lo, np.inf, loc=mean, scale=sd, size=size, random_state=rng)
        shape, rate = self.params
        return rng.gamma(shape, 1.0 / rate, size)


DEFAULT_PRIOR = Prior("exponential", (DEFAULT_RATE,))


@dataclass(frozen=True)
class ModelPrior:
    """The priors of one model's Beta parameters: ``a`` and ``b``."""

    a: Prior = DEFAULT_PRIOR
    b: Prior = DEFAULT_PRIOR

    def __str__(self) -> str:
        return f"a={self.a},b={self.b}"


def _example(family: str) -> str:
    return {"exponential": "exponential(1e-4)", "normal": "normal(2000,10)"}.get(
        family, "gamma(2,0.01)"
    )


_SPEC = re.compile(r"^(?P<model>.+):(?P<body>\s*[ab]\s*=.*)$", re.DOTALL)
_TERM = re.compile(r"^\s*(?P<param>[ab])\s*=\s*(?P<family>[A-Za-z_]+)\s*\((?P<args>[^()]*)\)\s*$")


def _split_terms(body: str) -> list[str]:
    """Split ``a=f(x,y),b=g(z)`` on commas outside parentheses."""
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            terms.append(body[start:i])
            start = i + 1
    terms.append(body[start:])
    return terms


def parse_prior(text: str, *, where: str = "prior") -> Prior:
    """``"normal(2000,10)"`` -> :class:`Prior`; bad text raises :class:`DataError`."""
    m = re.fullmatch(r"\s*([A-Za-z_]+)\s*\(([^()]*)\)\s*", text)
    if m is None:
        raise DataError(
            f"{where}: cannot read {text!r} as a prior.",
            hint="write family(parameters): exponential(1e-4), normal(2000,10) or gamma(2,0.01).",
        )
    family = m.group(1).lower()
    args = [s.strip() for s in m.group(2).split(",")] if m.group(2).strip() else []
    values = []
    for s in args:
        try:
            values.append(float(s))
        except ValueError:
            raise DataError(
                f"{where}: parameter {s!r} of {family} is not a number.",
                hint=f"use numbers only, e.g. {_example(family)}.",
            ) from None
    try:
        return Prior(family, tuple(values))
    except DataError as err:
        raise DataError(f"{where}: {err.message}", hint=err.hint) from None


def parse_prior_specs(specs: Sequence[str], models: Sequence[str]) -> dict[str, ModelPrior]:
    """Priors of every model from ``MODEL:a=...,b=...`` specs (applied in order; ``*`` = all).

    Models no spec names keep the default ``exponential(1e-4)`` on both parameters. Unknown models,
    families, malformed text and invalid parameters raise :class:`DataError` saying how to fix them.
    """
    out = {m: ModelPrior() for m in models}
    for spec in specs:
        m = _SPEC.match(spec)
        if m is None:
            raise DataError(
                f"prior spec {spec!r} is not of the form MODEL:a=FAMILY(...),b=FAMILY(...).",
                hint="e.g. '*:a=exponential(1e-4),b=exponential(1e-4)' or "
                "'MODEL:a=normal(2000,10)'.",
            )
        model = m.group("model").strip()
        if model != "*" and model not in out:
            known = ", ".join(list(models)[:8]) + (" ..." if len(models) > 8 else "")
            raise DataError(
                f"prior spec {spec!r} names model {model!r}, which is not in the data.",
                hint=f"use '*' for every model or one of: {known}.",
            )
        changes: dict[str, Prior] = {}
        for term in _split_terms(m.group("body")):
            t = _TERM.match(term)
            if t is None:
                raise DataError(
                    f"prior spec {spec!r}: cannot read {term.strip()!r}.",
                    hint="each part is a=FAMILY(params) or b=FAMILY(params), separated by commas.",
                )
            text = f"{t.group('family')}({t.group('args')})"
            who = "every model" if model == "*" else f"model {model!r}"
            where = f"prior on {t.group('param')} for {who}"
            changes[t.group("param")] = parse_prior(text, where=where)
        targets = list(out) if model == "*" else [model]
        for name in targets:
            cur = out[name]
            out[name] = ModelPrior(a=changes.get("a", cur.a), b=changes.get("b", cur.b))
    return out


def format_prior_specs(priors: dict[str, ModelPrior]) -> list[str]:
    """The shortest spec list that reproduces ``priors`` (for URLs, JSON and cache keys)."""
    default = ModelPrior()
    return [f"{m}:{p}" for m, p in priors.items() if p != default]


def compact_prior_specs(priors: Mapping[str, ModelPrior]) -> list[str]:
    """A short spec list that reproduces ``priors``, for links: a ``*`` spec for a prior many
    models share, then the models that differ from it; parameters at their default are left
    out and numbers are exact (shortest round-trip text).

    A prior written for every model stays one spec however many models the data has. The
    ``*`` priors are chosen among the default and the three most common priors of each
    parameter, for the shortest text.

    Examples
    --------
    >>> a = ModelPrior(a=Prior("normal", (50, 5)))
    >>> c = ModelPrior(a=Prior("normal", (50, 5)), b=Prior("gamma", (2, 0.01)))
    >>> compact_prior_specs({"A": a, "B": a, "C": c})
    ['*:a=normal(50,5)', 'C:b=gamma(2,0.01)']
    """

    def candidates(part: str) -> list[Prior]:
        common = Counter(getattr(p, part) for p in priors.values()).most_common(3)
        return list(dict.fromkeys([DEFAULT_PRIOR, *(prior for prior, _ in common)]))

    def specs(shared: dict[str, Prior]) -> list[str]:
        out = []
        everyone = [f"{k}={_exact(v)}" for k, v in shared.items() if v != DEFAULT_PRIOR]
        if everyone:
            out.append(f"*:{','.join(everyone)}")
        for model, p in priors.items():
            own = [f"{k}={_exact(v)}" for k, v in (("a", p.a), ("b", p.b)) if v != shared[k]]
            if own:
                out.append(f"{model}:{','.join(own)}")
        return out

    options = [specs({"a": a, "b": b}) for a in candidates("a") for b in candidates("b")]
    return min(options, key=lambda out: len(";".join(out)))  # the first of the shortest


def _exact(p: Prior) -> str:
    """``family(params)`` with each number's shortest round-trip text (``Prior.__str__`` rounds)."""
    return f"{p.family}({','.join(repr(x).removesuffix('.0') for x in p.params)})"


class LogPrior:
    """Vectorised ``log p_i(x[..., i])`` for per-model priors along the last axis of ``x``.

    Every family is written as ``c0 + c1 x + c2 (x - m)^2 + c3 log x`` with per-model coefficients,
    so one numpy expression evaluates all models at once (the sampler calls this in its inner loop).
    """

    def __init__(self, priors: Sequence[Prior]) -> None:
        coef = np.zeros((5, len(priors)))
        for i, p in enumerate(priors):
            if p.family == "exponential":
                (rate,) = p.params
                coef[:, i] = (np.log(rate), -rate, 0.0, 0.0, 0.0)
            elif p.family == "normal":
                mean, sd = p.params
                c0 = -np.log(sd) - 0.5 * np.log(2 * np.pi) - stats.norm.logsf(0.0, mean, sd)
                coef[:, i] = (c0, 0.0, -0.5 / sd**2, 0.0, mean)
            else:
                shape, rate = p.params
                c0 = shape * np.log(rate) - special.gammaln(shape)
                coef[:, i] = (c0, -rate, 0.0, shape - 1.0, 0.0)
        self.c0, self.c1, self.c2, self.c3, self.m = coef
        self.has_c2 = bool(np.any(self.c2 != 0.0))
        self.has_c3 = bool(np.any(self.c3 != 0.0))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Log densities at ``x > 0`` (the caller keeps ``x`` positive; no check, for speed)."""
        out = self.c0 + self.c1 * x
        if self.has_c2:
            out = out + self.c2 * (x - self.m) ** 2
        if self.has_c3:
            out = out + self.c3 * np.log(x)
        return out
