"""Small subgroups: direct, regression and empirical-Bayes estimates (METHODS 7).

:mod:`.estimates` (units, ``analyze``), :mod:`.lab` (the simulation lab ``simulate``) and
:mod:`.ebci` (robust empirical-Bayes critical values and intervals, ``docs/EBCI.md``). Import
``ebci`` and ``cva`` from :mod:`.ebci`: the package attribute ``ebci`` is that module.
"""

from benchuq.core.analyses.subgroups.ebci import FS_CORRECTIONS, EBCIResult
from benchuq.core.analyses.subgroups.estimates import (
    GROUPINGS,
    SubgroupResult,
    Units,
    analyze,
    units_from_benchmark,
    units_from_table,
)
from benchuq.core.analyses.subgroups.lab import LabResult, simulate

__all__ = [
    "FS_CORRECTIONS",
    "GROUPINGS",
    "EBCIResult",
    "LabResult",
    "SubgroupResult",
    "Units",
    "analyze",
    "simulate",
    "units_from_benchmark",
    "units_from_table",
]
