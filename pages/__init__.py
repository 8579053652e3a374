"""One thin file per dashboard page (run by ``st.navigation`` from ``dashboard/app.py``)."""
