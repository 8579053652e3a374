"""A closed output pipe and a flood of text (issue 31): ``benchuq ... --json | head`` ends
quietly, and a 1 MB model name is cut in every error message (first and last characters with the
length), in the CLI and in the messages the app shows."""

from __future__ import annotations

import subprocess
import sys

from benchuq.cli.main import CLOSED_PIPE, main
from benchuq.core.data import LONG_WORD, DataError
from benchuq.core.reading.loaders import load_files
from benchuq.core.validation import InvalidArgument, check_known


def test_a_closed_pipe_ends_quietly() -> None:
    script = (
        "import sys; from benchuq.cli.main import main; "
        "sys.exit(main(['leaderboard', 'sample:vtab1k', '--json']))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout is not None and proc.stderr is not None
    # the reader goes away before the output comes (as `| head` does once it has its lines):
    # a read of the first bytes would wait for the output, which now comes in one write that
    # fits the pipe's buffer, and no writer sees a closed pipe then
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(120) == CLOSED_PIPE
    assert err == ""


def test_a_huge_name_is_cut_in_every_message(tmp_path, capsys) -> None:
    name = "m" * 1_000_000
    text = str(DataError(f"unknown model '{name}'.", file=name, column=name, hint=name))
    assert len(text) < 2_000 and "[1,000,000 characters]" in text
    try:
        check_known([name], ["a"], what="models")
    except InvalidArgument as err:
        assert len(str(err)) < 1_000 and " characters]…" in str(err)
    data = f"model,task,n,correct\n{name},t,10,20\n".encode()
    try:
        load_files([("flood.csv", data)])
    except DataError as err:
        assert len(str(err)) < 4 * LONG_WORD + 1_000
    path = tmp_path / "flood.csv"
    path.write_bytes(data)
    assert main(["leaderboard", str(path)]) == 2
    err = capsys.readouterr().err
    assert 0 < len(err) < 4_000, len(err)
