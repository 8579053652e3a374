"""Methods: what each estimator assumes, when it misleads, and where it comes from; a glossary of
the pages' terms in plain words; the references as links."""

from importlib.resources import files

import streamlit as st

from benchuq.dashboard import plain

st.title("Methods")
st.caption(
    "What every number in this app means, what it assumes and when it misleads. A glossary of "
    "the terms the pages use and the references (with links) are at the bottom."
)
text = files("benchuq.dashboard").joinpath("methods.md").read_text(encoding="utf-8")
for section in text.split("\n## ")[1:]:
    header, body = section.split("\n", 1)
    if header.strip() == "References":
        continue  # shown last, as links
    st.header(header)
    st.markdown(body)
st.header("Glossary")
st.markdown(plain.glossary_markdown())
st.header("References")
st.markdown(plain.references_markdown())
