"""VTAB-1k, as in the paper: which vision models can be told apart, overall and per category.

Run: python docs/examples/vtab1k.py
"""

import benchuq as bq

bench = bq.load("sample:vtab1k")  # 16 models x 19 tasks in 3 categories (counts)
draws = bq.bootstrap(bench, reps=2000, seed=0)

board = bq.leaderboard(draws, level=0.95)
overall = board.to_frame().query("group == 'overall'")
print(overall[["model", "estimate", "low", "high", "tied_with_leader"]].head(5).to_string())

top3 = overall["model"].head(3).tolist()
print(bq.compare(draws, models=top3, level=0.95).to_frame()[["a", "b", "estimate", "p_value"]])

sets = bq.rank_sets(draws, level=0.95)
print("\n".join(sets.sentences()))

shares = bq.weights(bench, resolution=20).shares()  # who leads at each category weighting
print({model or "indeterminate": round(share, 2) for model, share in shares.items()})
