"""``benchuq report``: the HTML and the PDF of a sample, run in-process; the PDF's pages rendered to
PNG with poppler's pdftoppm (saved under tests/artifacts) and its text checked with pdftotext."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from browser_utils import ARTIFACTS

from benchuq.cli.main import main

pytestmark = pytest.mark.slow


def test_html_report_of_a_sample(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.html"
    assert main(["report", "sample:vtab1k", "-o", str(out), "--reps", "300", "--seed", "2"]) == 0
    assert f"wrote {out} (html" in capsys.readouterr().out
    doc = out.read_text(encoding="utf-8")
    assert "<script src" not in doc and "<link" not in doc  # nothing to fetch: offline
    # gaps, leaderboard, differences, rank sets, weighting map: drawn by plotly.js, inline once
    assert [f'id="fig-{k}"' in doc for k in range(1, 6)] == [True] * 5
    assert doc.count("Plotly.newPlot(") == 5 and doc.count("plotly.js v") == 1
    assert "No clear winner: Sup-Rotation-100% scores highest" in doc
    assert "Data: vtab1k · resampled from each task's count" in doc  # the figures' subtitles
    assert "?data=sample:vtab1k&amp;reps=300&amp;seed=2" in doc
    assert "benchuq report sample:vtab1k --method bootstrap --reps 300 --seed 2" in doc


def test_pdf_report_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The PDF holds the headline sentences, the figures (titles and axis text as text) and the
    reproducibility block; every page renders to a non-blank PNG."""
    out = tmp_path / "r.pdf"
    argv = ["report", "sample:vtab1k", "--format", "pdf", "-o", str(out), "--reps", "300"]
    assert main(argv) == 0
    assert out.read_bytes().startswith(b"%PDF")
    text = subprocess.run(
        ["pdftotext", "-layout", str(out), "-"], capture_output=True, text=True, check=True
    ).stdout
    flat = re.sub(r"\s+", " ", text)
    for needle in (
        "vtab1k — 16 models × 19 tasks",
        "No clear winner: Sup-Rotation-100% scores highest",
        "The best model is one of {Sup-Rotation-100%, Sup-Exemplar-100%} with 95% confidence.",
        "How far behind the leader? (top 8)",  # figure titles
        "All models: score with 83.4% intervals",
        "Top 6: differences",
        "Which ranks could each model hold?",
        "Who wins under which category weighting?",
        "Data: vtab1k",  # figure subtitles
        "Caveats",
        "Reproduce these numbers",
        "sha256 67ebecec",  # the parsed data's hash (Benchmark.data_hash, issue 30)
        "?data=sample:vtab1k",
    ):
        assert needle in flat, needle
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stem = ARTIFACTS / "report_vtab1k_page"
    subprocess.run(["pdftoppm", "-r", "70", "-png", str(out), str(stem)], check=True)
    pages = sorted(ARTIFACTS.glob("report_vtab1k_page-*.png"))
    assert len(pages) >= 3
    assert all(p.stat().st_size > 10_000 for p in pages)  # drawn, not blank


def test_report_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--models, --weights and --input-format; a bad model is an error naming the flag."""
    out = tmp_path / "w.html"
    argv = ["report", "sample:vtab1k", "--input-format", "long", "-o", str(out), "--reps", "200"]
    argv += ["--models", "Sup-100%", "Rotation", "VAE", "--weights", "1,0,0"]
    assert main(argv) == 0
    doc = out.read_text(encoding="utf-8")
    assert "3 models × 19 tasks" in doc and "Sup-100% leads with" in doc
    assert "--input-format long --weights 1,0,0 --models Sup-100% Rotation VAE" in doc
    assert main(["report", "sample:toy", "--models", "nope", "-o", str(out)]) == 2
    assert "--models" in capsys.readouterr().err
