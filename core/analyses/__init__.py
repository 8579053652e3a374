"""Analyses beside the draws path: they take a :class:`~benchuq.core.data.Benchmark` (or their
own inputs) and answer one question each.

``epp`` (METHODS 8: Elo-like paired performance), ``power`` (METHODS 10: designs and sample
sizes), ``subgroups`` (METHODS 7: empirical Bayes with robust intervals), ``embeddings``
(METHODS 9: embedding consistency), ``diff`` (METHODS 13: two runs compared item by item) with
``paired_tests`` (its exact and anytime-valid tests).
"""

__all__: list[str] = []
