"""What people see, without streamlit: figure builders, colours, the report's HTML and PDF,
text escaping and the app link's settings (issue 25).

Used by the CLI (``benchuq report``) and by the app (``dashboard/``, ``pages/``); it imports
``benchuq.core`` and never streamlit, ``dashboard`` or ``pages``
(``tests/package/test_imports.py``). Figure builders are pure ``(result, options) -> plotly Figure``
(``figures/``).
"""

from benchuq.presentation.mpl_config import ensure_config_dir

ensure_config_dir()  # before any module imports matplotlib (figures.ternary_static)

__all__: list[str] = []
