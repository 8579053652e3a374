"""The report's PDF pages as a reader sees them (issue 30): every page of the VTAB-1k sample's and
the lm-eval v0.4 folder's report is rendered with pdftoppm and checked: no ink beyond the
margins (nothing cut or overflowing), no nearly blank page, and page 1 holds the two-line answer
and exactly one chart (pdftotext). The page images are kept under tests/artifacts to look at."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from browser_utils import ARTIFACTS

from benchuq.cli.main import main

pytestmark = pytest.mark.slow

LM_EVAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "lm_eval" / "results_v04"
DPI = 40
MARGIN_MM = 14  # the report's @page margin
FREE_MM = 9  # the outer band of each page where no ink may fall (text or a figure past its box)
FIGURE_TITLES = (
    "How far behind the leader?",
    "All models: score with",
    "differences",
    "Which ranks could each model hold?",
    "Who wins under which category weighting?",
)


def _pages(pdf: Path, stem: str) -> list[np.ndarray]:
    """Every page as a grey image (0 black .. 255 white), also saved as PNG artifacts."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob(f"{stem}-*.png"):
        old.unlink()
    subprocess.run(["pdftoppm", "-r", "60", "-png", str(pdf), str(ARTIFACTS / stem)], check=True)
    raw = subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", str(pdf)], capture_output=True)
    out, data = [], raw.stdout
    while data:
        m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", data)
        assert m, "pdftoppm wrote no PGM page"
        w, h = int(m.group(1)), int(m.group(2))
        start = m.end()
        out.append(np.frombuffer(data[start : start + w * h], np.uint8).reshape(h, w))
        data = data[start + w * h :]
    return out


def _page_text(pdf: Path, page: int) -> str:
    args = ["pdftotext", "-f", str(page), "-l", str(page), "-layout", str(pdf), "-"]
    text = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return re.sub(r"\s+", " ", text)


def _check_pages(pdf: Path, stem: str) -> list[np.ndarray]:
    pages = _pages(pdf, stem)
    assert len(pages) >= 2
    band = round(FREE_MM / 25.4 * DPI)
    for k, img in enumerate(pages, start=1):
        ink = img < 200
        outer = ink.copy()
        outer[band:-band, band:-band] = False
        assert not outer.any(), f"page {k}: ink beyond the margins (cut or overflowing content)"
        rows = ink.any(axis=1).mean()
        assert rows > 0.12, f"page {k}: nearly blank ({rows:.0%} of its rows have ink)"
    return pages


@pytest.mark.parametrize(
    ("data", "stem", "name"),
    [
        ("sample:vtab1k", "report_pages_vtab1k", "vtab1k"),
        (str(LM_EVAL), "report_pages_lm_eval_v04", "results_v04: 2 models x 16 benchmarks"),
    ],
)
def test_report_pages(
    data: str, stem: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pdf = tmp_path / "report.pdf"
    assert main(["report", data, "-o", str(pdf), "--reps", "300", "--seed", "1"]) == 0
    capsys.readouterr()
    pages = _check_pages(pdf, stem)
    first = _page_text(pdf, 1)
    assert f"Benchmark report: {name}" in first
    answer = re.search(
        r"(leads with|No clear winner:).*of the simulated leaderboards\. The data .*together\)",
        first,
    )
    assert answer, first  # who leads and how sure; what the data cannot decide
    assert sum(t in first for t in FIGURE_TITLES) == 1, first  # one chart
    assert "Findings" not in first and "Leaderboard" not in first
    whole = " ".join(_page_text(pdf, k) for k in range(1, len(pages) + 1))
    # subtitles and axis titles end inside their figure (they were cut at the right before)
    for end in ("intervals at 95% (for all pairs together)", "(rank sets)", "dot: observed"):
        assert end in whole, end
    for section in ("Per task", "Caveats", "Methods", "Reproduce these numbers"):
        assert section in whole, section
    if "results_v04" in name:  # lm-eval files
        assert "Run details" in whole and "lm-eval, git 82b812f" in whole
        assert "2025-03-03" in whole  # the run dates, from the file names
        assert "Publish them first" in whole and "data=upload" not in whole
        # a model name in the "best here" column and a column head reads whole: it may break
        # after its "/" only, never at a hyphen mid-name (audit of 30: "Llama-3.2-" / "1B")
        for model in ("Qwen/Qwen2.5-1.5B", "meta-llama/Llama-3.2-1B"):
            cut = [t for t in whole.split() if model.startswith(t) and t.endswith("-")]
            assert not cut, (model, cut)
    else:  # a task table says nothing of how it was made: the report says so (audit of 30)
        assert "Run details" in whole and "the files do not say which harness" in whole


def test_long_model_names_head_their_columns_without_breaking_the_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """15 Pythia checkpoints named "EleutherAI/pythia-v1.1-12b@step113000": the per-category and
    per-task tables' headers would not wrap, so the task and "best here" columns shrank to a
    letter and the report ran to 45 pages of one-letter lines (audit of 30). The headers wrap."""
    data = LM_EVAL.parent / "results_v03" / "pythia_12b_checkpoints_5shot"
    pdf = tmp_path / "report.pdf"
    assert main(["report", str(data), "-o", str(pdf), "--reps", "200"]) == 0
    capsys.readouterr()
    pages = _check_pages(pdf, "report_pages_pythia_checkpoints")
    assert len(pages) <= 16
