"""The Streamlit dashboard: app entry, URL state, sidebar, cached core calls, plotly figures."""

from benchuq.presentation.mpl_config import ensure_config_dir

ensure_config_dir()  # before any module imports matplotlib
