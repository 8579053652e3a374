"""Your own results in a pandas DataFrame (one row per model, task and item).

Run: python docs/examples/pandas_frame.py
"""

import numpy as np
import pandas as pd

import benchuq as bq

rng = np.random.default_rng(0)
rows = [
    (model, task, f"{task}-{i}", float(rng.random() < p + 0.1 * (task == "math")))
    for model, p in (("small", 0.55), ("medium", 0.62), ("large", 0.64))
    for task in ("math", "code", "qa")
    for i in range(25)  # a small run: 25 items per task
]
df = pd.DataFrame(rows, columns=["system", "benchmark", "question", "correct"])

bench = bq.from_frame(df, model="system", task="benchmark", item="question", score="correct")
draws = bq.bootstrap(bench, reps=2000, seed=0)  # paired: models answer the same items
board = bq.leaderboard(draws, level=0.95).to_frame().query("group == 'overall'")
print(board[["model", "estimate", "low", "high", "tied_with_leader"]])

# any statistic of the draws: the worst task per model, with a 95% interval
worst = bq.statistic(draws, lambda scores: scores.min(axis=1), name="worst task")
print(worst.to_frame())
