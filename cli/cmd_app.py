"""``benchuq app``: start the dashboard from wherever benchuq is installed."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from importlib.resources import files
from pathlib import Path

__all__ = [
    "app_path",
    "config_flags",
    "register",
    "run",
    "server_environment",
    "streamlit_command",
]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq app`` to the subcommands."""
    p = sub.add_parser(
        "app",
        help="start the dashboard (a Streamlit server)",
        description="Start the benchuq dashboard on the bundled samples (open the printed URL). "
        "Server settings come from the package's streamlit_config.toml; extra Streamlit flags "
        "follow a '--', e.g. benchuq app -- --server.maxUploadSize 100.",
    )
    p.add_argument("--port", type=int, default=8501, help="port to listen on (8501)")
    p.add_argument("--host", default="localhost", help="address to bind (localhost)")
    p.add_argument(
        "--headless",
        action="store_true",
        help="do not open a browser (for servers; set automatically without a display)",
    )
    p.add_argument("streamlit_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def app_path() -> Path:
    """The dashboard's entry script inside the installed package."""
    return Path(str(files("benchuq.dashboard"))) / "app.py"


def config_flags() -> list[str]:
    """``--section.option value`` for every setting of the bundled ``streamlit_config.toml``."""
    text = (files("benchuq.dashboard") / "streamlit_config.toml").read_text(encoding="utf-8")
    flags = []
    for section, options in tomllib.loads(text).items():
        for name, value in options.items():
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            flags += [f"--{section}.{name}", shown]
    return flags


def streamlit_command(
    port: int, host: str, *, headless: bool, extra: list[str] | None = None
) -> list[str]:
    """The ``python -m streamlit run`` command line that serves the dashboard."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app_path()),
        *config_flags(),
        "--server.port",
        str(port),
        "--server.address",
        host,
        "--server.headless",
        "true" if headless else "false",
        *(extra or []),
    ]


def run(args: argparse.Namespace) -> int:
    """Start the Streamlit server (replacing this process on POSIX)."""
    headless = args.headless or (sys.platform.startswith("linux") and not os.environ.get("DISPLAY"))
    extra = [a for a in args.streamlit_args if a != "--"]
    command = streamlit_command(args.port, args.host, headless=headless, extra=extra)
    env = server_environment(os.environ)
    if os.name == "posix":  # become the server: signals and the PID reach streamlit directly
        sys.stdout.flush()
        os.execve(command[0], command, env)
    return subprocess.call(command, env=env)


def server_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """Return the server's environment: ``environ`` with ``MALLOC_ARENA_MAX=2`` unless set.

    glibc gives each thread (each session's script) its own heap arena and keeps their freed
    pages; two arenas brought the load benchmark's RSS after 25 sessions from 553 to 407 MB
    (base 275 MB, ``BENCHUQ_CACHE_MB=256``; ``benchmarks/bench_load.py --arena-max``).
    """
    return {**environ, "MALLOC_ARENA_MAX": environ.get("MALLOC_ARENA_MAX", "2")}
