"""Uncertainty methods: each turns a :class:`~benchuq.core.data.Benchmark` into
:class:`~benchuq.core.draws.Draws` of per-task performance ``(R, M, T)``.

``bootstrap`` (METHODS 1: binomial/paired/clustered bootstrap, normal draws) and ``bayes``
(METHODS 6: the hierarchical model, its samplers and diagnostics).
"""

__all__: list[str] = []
