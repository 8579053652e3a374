"""Methods: what each estimator assumes, when it misleads, and where it comes from."""

from importlib.resources import files

import streamlit as st

st.title("Methods")
st.caption(
    "What every number in this app means, what it assumes and when it misleads. "
    "References at the bottom."
)
text = files("benchuq.dashboard").joinpath("methods.md").read_text(encoding="utf-8")
for section in text.split("\n## ")[1:]:
    header, body = section.split("\n", 1)
    st.header(header)
    st.markdown(body)
