"""Plain words: every advanced page opens with its question and how to read it, every term it
names has a glossary entry, the Methods page shows the glossary and links every reference."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import page_path

from benchuq.dashboard import plain

PAGES = Path(__file__).resolve().parents[2] / "pages"


def test_every_term_has_a_glossary_entry_and_every_intro_two_sentences() -> None:
    for page, (question, reading, terms) in plain.INTROS.items():
        assert (PAGES / f"{page}.py").exists(), page
        assert question.endswith("?") and reading.endswith(".")
        assert set(terms) <= set(plain.GLOSSARY), page
    assert all(url.startswith("https://") for _, url in plain.REFERENCES.values())


def test_references_in_methods_md_are_all_linked() -> None:
    text = (PAGES.parent / "dashboard" / "methods.md").read_text(encoding="utf-8")
    refs = text.split("\n## References", 1)[1]
    keys = {line.split("]")[0].split("[")[-1] for line in refs.splitlines() if "**[" in line}
    assert keys == set(plain.REFERENCES)


@pytest.mark.parametrize("page", ["compare", "ranks", "epp", "subgroups", "table"])
def test_advanced_pages_open_with_their_question(make_app, page: str) -> None:
    at = make_app({"reps": "200", "data": "sample:toy"}).run()
    at.switch_page(page_path(f"{page}.py")).run()
    assert not at.exception
    first = at.main.markdown[0]
    assert first.value == plain.intro_text(page)
    assert first.proto.help == plain.terms_help(page)


def test_methods_page_has_the_glossary_and_linked_references(make_app) -> None:
    at = make_app({"reps": "200"}).run()
    at.switch_page(page_path("methods.py")).run()
    headers = [h.value for h in at.header]
    assert headers[-2:] == ["Glossary", "References"]
    text = "\n".join(m.value for m in at.markdown)
    assert "**R-hat**: Agreement between independent sampler runs" in text
    assert "(https://arxiv.org/abs/2501.04234)" in text


def test_the_methods_page_describes_the_draws_the_app_makes() -> None:
    """The Methods page still said counts are redrawn as Binomial(n, p) and items resampled with
    replacement, while every page's note names mid-p confidence draws and a Dirichlet weighting
    with a pseudo-item (METHODS 2; audit of 30)."""
    text = (PAGES.parent / "dashboard" / "methods.md").read_text(encoding="utf-8")
    bootstrap = " ".join(text.split("## Bootstrap", 1)[1].split("\n## ", 1)[0].split())
    assert "Binomial(n, p)" not in bootstrap and "too short" not in bootstrap
    assert "mid-p Clopper–Pearson" in bootstrap and "Dirichlet" in bootstrap
    assert "pseudo-item" in bootstrap and "METHODS 2" in bootstrap
