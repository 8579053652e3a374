"""An lm-evaluation-harness output folder: read every results file, score with intervals.

Run: python docs/examples/lm_eval_folder.py [FOLDER]   (default: the bundled MMLU 5-shot runs)
"""

import sys
from importlib.resources import files

import benchuq as bq

folder = sys.argv[1] if len(sys.argv) > 1 else str(files("benchuq.sample_data") / "mmlu")
bench = bq.load(folder, metric="acc")  # one results JSON per model; subjects grouped
print(f"{bench.name}: {len(bench.models)} models x {len(bench.tasks)} tasks")
for note in bench.notes[:3]:
    print("note:", note.splitlines()[0])

draws = bq.bootstrap(bench, reps=1000, seed=0)
board = bq.leaderboard(draws, level=0.95).to_frame()
print(board.query("group == 'overall'").head(8)[["model", "estimate", "low", "high"]])
leaders = board.loc[board.groupby("group")["estimate"].idxmax(), ["group", "model", "estimate"]]
print(leaders.to_string(index=False))  # the leader of each category
