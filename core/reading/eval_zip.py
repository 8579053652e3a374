"""The members of an inspect_ai ``.eval`` log (a ZIP), read one at a time (issue 26).

Members are stored, deflated (method 8: older logs) or compressed with Zstandard (method 93:
what current inspect_ai writes; the standard library's ``zipfile`` cannot read it, the
``zstandard`` package can, several frames included). Only the central directory and the members
asked for are read: ``header.json`` and ``summaries.json`` for a finished log, so a log's
``samples/`` are never decompressed when it has summaries. A damaged log (truncated ZIP, a
member missing, not JSON, a bad checksum) is a :class:`DataError` naming the file and the member.
"""

from __future__ import annotations

import io
import os
import re
import struct
import zipfile
import zlib
from typing import Any

from benchuq.core.budget import checkpoint
from benchuq.core.data import DataError
from benchuq.core.reading.meta import NO_SAMPLES, MissingMetric
from benchuq.core.reading.table import Source

__all__ = ["EVAL_SUFFIX", "is_eval_archive", "member_bytes", "open_archive", "read_log"]

EVAL_SUFFIX = ".eval"
ZSTD = 93
_LOCAL = struct.Struct("<4sHHHHHIIIHH")  # a ZIP local file header (30 bytes)
_JOURNAL_SUMMARY = re.compile(r"_journal/summaries/(\d+)\.json")
#: ``samples/<id>_epoch_<n>.json`` (one member) or ``samples/<id>_epoch_<n>/sample.json``.
_SAMPLE = re.compile(r"samples/(.+)_epoch_(\d+)(?:\.json|/sample\.json)")
READING_LOG = "Reading the .eval log"  # what a stopped read says
_FIX = "write the log again with inspect_ai (or check that the file was copied whole)."
#: A member larger than this (uncompressed) is refused before it is decompressed (the file size
#: cap of :mod:`.files`, ``BENCHUQ_MAX_FILE_MB``).
MAX_MEMBER_BYTES = int(os.environ.get("BENCHUQ_MAX_FILE_MB", "1024")) * 2**20


def is_eval_archive(src: Source) -> bool:
    """A ``.eval`` file (by name), or a ZIP whose root holds ``header.json`` or
    ``_journal/start.json`` (a log under another name)."""
    if src.name.lower().endswith(EVAL_SUFFIX):
        return True
    if src.data[:4] != b"PK\x03\x04":
        return False
    try:
        names = set(zipfile.ZipFile(io.BytesIO(src.data)).namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    return "header.json" in names or "_journal/start.json" in names


def open_archive(src: Source) -> zipfile.ZipFile:
    """The log's central directory (a :class:`DataError` when it is not a readable ZIP)."""
    if not src.data:
        raise DataError(
            "the .eval log is empty (0 bytes), member 'header.json' is missing.",
            file=src.name,
            hint=_FIX,
        )
    try:
        return zipfile.ZipFile(io.BytesIO(src.data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as err:
        raise DataError(
            "not a readable .eval log: the ZIP archive is truncated or damaged ("
            f"{err}); its central directory (which lists 'header.json' and the other members) "
            "cannot be read.",
            file=src.name,
            hint=_FIX,
        ) from None


def member_bytes(src: Source, archive: zipfile.ZipFile, member: str) -> bytes:
    """The uncompressed bytes of one member (stored, deflate or Zstandard), checksum checked."""
    try:
        info = archive.getinfo(member)
    except KeyError:
        raise DataError(f"member '{member}' is missing.", file=src.name, hint=_FIX) from None
    if info.file_size > MAX_MEMBER_BYTES:
        raise DataError(
            f"member '{member}' expands to {info.file_size / 2**20:,.0f} MB, more than "
            f"{MAX_MEMBER_BYTES / 2**20:g} MB.",
            file=src.name,
            hint="load a smaller log, or raise BENCHUQ_MAX_FILE_MB.",
        )
    limit = info.file_size + 1  # one byte more than declared: a member that lies is caught
    try:
        if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            data = _raw(src.data, info)
            if info.compress_type == zipfile.ZIP_STORED:
                out = bytes(data)
            else:
                out = zlib.decompressobj(-15).decompress(data, limit)
        elif info.compress_type == ZSTD:
            out = _zstd(_raw(src.data, info), limit)
        else:
            raise DataError(
                f"member '{member}' uses ZIP compression method {info.compress_type}, which "
                "inspect_ai does not write (stored, deflate and Zstandard are read).",
                file=src.name,
                hint=_FIX,
            )
    except DataError:
        raise
    except Exception as err:  # zlib.error, zstandard.ZstdError, struct.error ...
        raise DataError(
            f"member '{member}' cannot be decompressed ({type(err).__name__}: {err}).",
            file=src.name,
            hint=_FIX,
        ) from None
    if len(out) != info.file_size or zlib.crc32(out) != info.CRC:
        raise DataError(
            f"member '{member}' is damaged (its size or checksum does not match).",
            file=src.name,
            hint=_FIX,
        )
    return out


def _raw(data: bytes, info: zipfile.ZipInfo) -> memoryview:
    """The compressed bytes of a member (a view, not a copy), found through its local header."""
    at = info.header_offset
    head = _LOCAL.unpack_from(data, at)
    if head[0] != b"PK\x03\x04":
        raise ValueError("no local file header where the central directory points")
    start = at + _LOCAL.size + head[9] + head[10]
    end = start + info.compress_size
    if end > len(data):
        raise ValueError("the member runs past the end of the file (truncated)")
    return memoryview(data)[start:end]


def _zstd(data: memoryview, limit: int) -> bytes:
    """Zstandard frames (one or several) decompressed, at most ``limit`` bytes."""
    import zstandard

    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
    parts, total = [], 0
    while total < limit and (chunk := reader.read(limit - total)):
        parts.append(chunk)
        total += len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_log(src: Source) -> Any:
    """The header and per-sample summaries of a ``.eval`` log (:class:`inspect_log.Log`)."""
    from benchuq.core.reading.inspect_log import Log, header_fields, load_json

    archive = open_archive(src)
    names = archive.namelist()
    have = set(names)
    if "header.json" in have:
        head_member = "header.json"
    elif "_journal/start.json" in have:  # a log still being written
        head_member = "_journal/start.json"
    else:
        raise DataError(
            "member 'header.json' is missing: this is not an inspect_ai .eval log"
            + (f" (its members: {', '.join(names[:5])})." if names else " (the ZIP is empty)."),
            file=src.name,
            hint="load the .eval log as inspect_ai wrote it; rename other ZIP archives to .zip.",
        )
    header = load_json(member_bytes(src, archive, head_member), src.name, head_member)
    if head_member != "header.json" and isinstance(header, dict):
        header = {"status": "started", **header}
    ev, status, scorers = header_fields(header, src.name, head_member)

    def member_json(member: str) -> Any:
        return load_json(member_bytes(src, archive, member), src.name, member)

    if "summaries.json" in have:
        summaries = _listed(member_json("summaries.json"), src.name, "summaries.json")
        return Log(ev, status, scorers, summaries, "summaries.json")
    journal = sorted((int(m.group(1)), n) for n in names if (m := _JOURNAL_SUMMARY.fullmatch(n)))
    if journal:
        summaries = []
        for _, member in journal:
            checkpoint(READING_LOG)
            summaries += _listed(member_json(member), src.name, member)
        return Log(ev, status, scorers, summaries, journal[0][1].rsplit("/", 1)[0] + "/")
    samples = [n for n in names if _SAMPLE.fullmatch(n)]
    if not samples:
        raise MissingMetric(
            "the log holds no samples (no summaries.json, journal summaries or samples/).",
            reason=NO_SAMPLES,
            file=src.name,
            hint="run the eval with log_samples=True (the default), or load a finished log.",
        )
    rows = []
    for member in samples:
        checkpoint(READING_LOG)  # a closed tab's read ends between members (core.budget)
        s = member_json(member)
        if not isinstance(s, dict):
            raise DataError(
                f"member '{member}' is not a sample (not a JSON object).", file=src.name, hint=_FIX
            )
        match = _SAMPLE.fullmatch(member)
        assert match is not None
        rows.append(
            {
                "id": s.get("id", match.group(1)),
                "epoch": s.get("epoch", int(match.group(2))),
                "scores": s.get("scores"),
                "error": s.get("error"),
                "limit": s.get("limit"),
            }
        )
    return Log(ev, status, scorers, rows, "samples/")


def _listed(obj: Any, file: str, member: str) -> list[Any]:
    if not isinstance(obj, list):
        raise DataError(
            f"member '{member}' is not a list of sample summaries.", file=file, hint=_FIX
        )
    return obj
