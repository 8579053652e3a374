"""Did the new version get better, or did it regress? Two runs compared item by item.

AlpacaEval's judge preferences of claude-2 (the base) and claude-2.1 (the candidate) on the
same 805 instructions: the paired difference with its interval, the verdict against a 1-point
margin, and the standard errors side by side (why a harness's own stderr is too small, or why
an unpaired comparison finds nothing). Two separate runs work the same way:
``bq.diff(bq.load("base_logs/"), bq.load("candidate_logs/"))``.
Run: python docs/examples/two_runs.py
"""

import benchuq as bq

runs = bq.load("sample:alpaca_eval")
d = bq.diff(runs, base_model="claude-2", candidate_model="claude-2.1", margin=0.01)
print(d)  # DiffResult(data='alpaca_eval', level=0.95, 2 rows)
print(d.result.overall.sentence)  # the verdict in words, with its interval and p-value
cols = ["task", "difference", "low", "high", "p_value", "verdict", "se_paired", "se_unpaired"]
print(d.to_frame()[cols].round(4))
print("a CI job would exit", bq.diff(runs, base_model="claude-2", candidate_model="claude-2.1",
                                     fail_on="worse").exit_code())  # fmt: skip
