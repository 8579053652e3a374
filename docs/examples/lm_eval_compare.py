"""Did the bigger model really do better? Pairwise differences from an lm-eval folder.

Simultaneous (max-T) intervals and adjusted p-values over every pair of the chosen models.
Run: python docs/examples/lm_eval_compare.py
"""

from importlib.resources import files

import benchuq as bq

bench = bq.load(str(files("benchuq.sample_data") / "mmlu"))
draws = bq.bootstrap(bench, reps=2000, seed=0)
models = ["llama-7B_mmlu_5-shot", "llama-13B_mmlu_5-shot", "llama-30B_mmlu_5-shot"]

diffs = bq.compare(draws, models=models, level=0.95, correction="maxt")
print(diffs)  # CompareResult(data='mmlu', level=0.95, 3 rows): the model names are the files'
print(diffs.to_frame()[["a", "b", "estimate", "low", "high", "p_value"]].round(4))

humanities = bq.compare(draws, models=models, group="humanities")  # one category's score
print(humanities.to_frame()[["a", "b", "estimate", "p_value"]].round(4))
