"""The Streamlit dashboard: app entry, URL state, sidebar, cached core calls, plotly figures."""
