"""Where the input files come from: paths, globs, folders and zip archives -> ``[(name, bytes)]``.

Rules (README "Accepted data"):

- a folder is read recursively; hidden folders (``.git``, ``__MACOSX`` ...) are not entered;
- files whose name alone says they are not results are set aside unread (named in the loader's
  note): hidden files such as ``.DS_Store`` and binary kinds (images, model weights, archives other
  than zip); every other file is judged by its content (``core.reading.classify``);
- in a HELM run folder (one holding ``run_spec.json``) only ``run_spec.json``, ``stats.json`` and
  ``per_instance_stats.json`` are read (the others, e.g. ``scenario_state.json``, can be large);
- a ``.zip`` is read like a folder (members named ``archive.zip/path``, in sorted order whatever
  the order stored, so a folder and its zip give the same data), up to
  :data:`MAX_ARCHIVE_BYTES` uncompressed; an inspect_ai ``.eval`` log (a ZIP too) is a file,
  never expanded (:mod:`.eval_zip` reads the members it needs);
- a pattern with ``*``, ``?`` or ``[`` that is not an existing path is expanded like a shell glob;
- a file is read in chunks up to :data:`MAX_FILE_BYTES` (``BENCHUQ_MAX_FILE_MB``, default 1024):
  a larger one (or an endless one such as ``/dev/zero``) is refused while reading, never read
  whole and then checked;
- reading stops between files, archive members and chunks once this thread's work is stopped
  (:func:`~benchuq.core.budget.checkpoint`: the app stops the read of a closed browser tab).
"""

from __future__ import annotations

import glob
import io
import os
import stat
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from benchuq.core.budget import MAX_ENTRIES, Stopped, checkpoint, work_bytes
from benchuq.core.data import DataError
from benchuq.core.reading.eval_zip import is_eval_archive
from benchuq.core.reading.table import Source

__all__ = [
    "READING_FILES",
    "Gathered",
    "expand_archives",
    "gather_paths",
    "is_zip",
    "read_capped",
    "read_member",
]

_REPACK = "the archive is damaged: download or create it again."
HELM_FILES = ("run_spec.json", "stats.json", "per_instance_stats.json")
#: Suffixes of files that are never results (set aside without reading them).
BINARY_SUFFIXES = frozenset(
    ".png .jpg .jpeg .gif .bmp .svg .pdf .ico .webp .bin .pt .pth .ckpt .safetensors .onnx "
    ".gguf .h5 .pkl .pickle .npy .npz .tar .gz .tgz .bz2 .xz .7z .rar .whl .so .dylib .exe "
    ".pyc .db .sqlite".split()
)
MAX_ARCHIVE_BYTES = 512 * 2**20
MAX_FILE_BYTES = int(os.environ.get("BENCHUQ_MAX_FILE_MB", "1024")) * 2**20
_CHUNK = 16 * 2**20
#: what a stopped read says (:func:`~benchuq.core.budget.checkpoint`)
READING_FILES = "Reading the files"


@dataclass(frozen=True)
class Gathered:
    """Files to read, names set aside unread, a default data-set name, and whether the input was
    a collection (a folder, an archive or several paths: non-result files are then skipped)."""

    files: tuple[tuple[str, bytes], ...]
    skipped: tuple[str, ...]
    name: str
    collection: bool


def set_aside(name: str) -> bool:
    """Whether a file is not read at all: hidden (``.DS_Store``) or of a binary kind."""
    base = PurePosixPath(name).name
    return base.startswith(".") or PurePosixPath(base).suffix.lower() in BINARY_SUFFIXES


def read_capped(path: str | Path, *, limit: int | None = None) -> bytes:
    """The bytes of ``path``; more than ``limit`` (default :data:`MAX_FILE_BYTES`) is a
    :class:`DataError`, raised before reading when the file system gives the size and otherwise
    as soon as the limit is passed (``/dev/zero``, pipes: read in chunks). A regular file is
    read in one piece (no copy of a joined list of chunks)."""
    limit = MAX_FILE_BYTES if limit is None else limit
    too_big = DataError(
        f"the file is larger than {limit / 2**20:g} MB.",
        file=str(path),
        hint="give only the result files, or raise BENCHUQ_MAX_FILE_MB.",
    )
    chunks, total = [], 0
    try:
        with open(path, "rb", buffering=0) as f:
            info = os.fstat(f.fileno())
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise too_big
            step = info.st_size + 1 if stat.S_ISREG(info.st_mode) else _CHUNK
            while chunk := f.read(min(step, limit + 1 - total)):
                checkpoint(READING_FILES)
                chunks.append(chunk)
                total += len(chunk)
                if total > limit:
                    raise too_big
                step = _CHUNK
    except OSError as err:
        raise DataError(f"cannot read it: {err.strerror or err}.", file=str(path)) from None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def is_zip(data: bytes) -> bool:
    """Whether the bytes are a zip archive (its local-file signature)."""
    return data[:4] == b"PK\x03\x04"


def gather_paths(paths: Sequence[str | Path]) -> Gathered:
    """Read files, folders, zips and glob patterns (the CLI's ``DATA``; see the module rules)."""
    targets: list[tuple[str, Path]] = []
    for raw in paths:
        text = str(raw)
        p = Path(text)
        if not p.exists() and any(c in text for c in "*?["):
            found = sorted(glob.glob(text, recursive=True))
            if not found:
                raise DataError(
                    "the pattern matches no file.", file=text, hint="check the path and pattern."
                )
            targets += [(f, Path(f)) for f in found]
        elif not p.exists():
            raise DataError("no such file or folder.", file=text, hint="check the path.")
        else:
            targets.append((text, p))
    if not targets:
        raise DataError("no files were given.", hint="give a file, a folder or sample:<name>.")
    single = len(targets) == 1
    files: list[tuple[str, bytes]] = []
    skipped: list[str] = []
    for text, p in targets:
        if p.is_dir():
            for count, f in enumerate(_walk(p), start=1):
                checkpoint(READING_FILES)
                if count > MAX_ENTRIES:
                    raise DataError(
                        f"the folder holds more than {MAX_ENTRIES:,} files; at most "
                        f"{MAX_ENTRIES:,} are read.",
                        file=text,
                        hint="point benchuq at the results folder itself, or split it.",
                    )
                rel = f.relative_to(p).as_posix()
                name = rel if single else f"{text.rstrip('/')}/{rel}"
                (skipped.append(name) if set_aside(rel) else files.append((name, read_capped(f))))
        elif set_aside(p.name) and not single:
            skipped.append(text)
        else:
            files.append((p.name if single else text, read_capped(p)))
    if not files and not skipped:
        raise DataError(
            "the folder contains no files.", file=targets[0][0], hint="put result files in it."
        )
    files, more = expand_archives(files)
    first = targets[0][1]
    name = (first.name if first.is_dir() else first.stem) if single else "data"
    collection = not single or first.is_dir() or len(files) > 1
    return Gathered(tuple(files), tuple(skipped + more), name, collection)


def _walk(root: Path) -> Iterator[Path]:
    """Files under ``root`` in sorted order, hidden folders left out, HELM runs trimmed."""
    if (root / "run_spec.json").is_file():
        yield from (root / f for f in HELM_FILES if (root / f).is_file())
        return
    for child in sorted(root.iterdir()):
        if child.is_dir():
            if not child.name.startswith(".") and child.name != "__MACOSX":
                yield from _walk(child)
        elif child.is_file():
            yield child


def expand_archives(
    files: Sequence[tuple[str, bytes]],
) -> tuple[list[tuple[str, bytes]], list[str]]:
    """Replace each zip archive by its members (see the module rules); other files pass."""
    out: list[tuple[str, bytes]] = []
    skipped: list[str] = []
    expanded = 0  # bytes all archives together expand to
    for name, data in files:
        checkpoint(READING_FILES)
        zip_start = data[:4] in (b"PK\x03\x04", b"PK\x05\x06")  # a member, or an empty zip
        if not zip_start and PurePosixPath(name).suffix.lower() == ".zip" and data:
            raise DataError(  # read as text it gave a message about a wide table's columns
                "not a zip archive: it does not begin with a zip's signature, so it is damaged, "
                "incomplete or another format named .zip.",
                file=name,
                hint="create the archive again, or give the file its real suffix.",
            )
        if not is_zip(data) or is_eval_archive(Source(name, data)):
            out.append((name, data))
            continue
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
            members = sorted(  # a folder's order (:func:`_walk`), not the order stored
                (m for m in archive.infolist() if not m.is_dir()),
                key=lambda m: PurePosixPath(m.filename).parts,
            )
        except (zipfile.BadZipFile, OSError) as err:
            raise DataError(
                f"not a readable zip archive ({err}).", file=name, hint="create the archive again."
            ) from None
        if len(members) > MAX_ENTRIES:
            raise DataError(
                f"the archive holds {len(members):,} files; at most {MAX_ENTRIES:,} are read.",
                file=name,
                hint="archive only the result files, or split the archive.",
            )
        expanded += sum(m.file_size for m in members)
        # held while read, and parsing needs at least as much again: half the work budget
        cap = min(MAX_ARCHIVE_BYTES, work_bytes() // 2)
        if expanded > cap:
            raise DataError(
                f"the archives expand to more than {cap // 2**20} MB together (the limit of "
                "archives and of one request's work, BENCHUQ_WORK_MB).",
                file=name,
                hint="archive only the result files (for HELM: run_spec.json, stats.json and "
                "per_instance_stats.json of each run).",
            )
        paths = [PurePosixPath(m.filename) for m in members]
        runs = {str(p.parent) for p in paths if p.name == "run_spec.json"}
        for m, path in zip(members, paths, strict=True):
            parent = str(path.parent)
            if path.is_absolute() or ".." in path.parts:  # never resolved: named, not read
                skipped.append(f"{name}/{m.filename}")
                continue
            if any(part.startswith(".") or part == "__MACOSX" for part in path.parts[:-1]):
                continue
            if parent in runs and path.name not in HELM_FILES:
                continue
            label = f"{name}/{m.filename}"
            checkpoint(READING_FILES)
            if set_aside(path.name):
                skipped.append(label)
            else:
                out.append((label, read_member(archive, m, archive_name=name)))
    return out, skipped


def read_member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, *, archive_name: str) -> bytes:
    """The bytes of one archive member; a member that cannot be read (damaged, encrypted,
    compressed with a method this reader lacks) is a :class:`DataError` naming the archive and
    the member."""
    label = f"{archive_name}/{member.filename}"
    try:
        with archive.open(member) as f:
            parts = []
            while chunk := f.read(_CHUNK):  # a stopped read ends between chunks
                parts.append(chunk)
                checkpoint(READING_FILES)
        return parts[0] if len(parts) == 1 else b"".join(parts)
    except Stopped:
        raise
    except NotImplementedError:  # a subclass of RuntimeError, so caught before it
        raise DataError(
            f"this archive member is compressed with method {member.compress_type}, which "
            "this reader does not support.",
            file=label,
            hint="create the archive again with the standard method (deflate), e.g. "
            "`zip -r results.zip folder/`.",
        ) from None
    except RuntimeError as err:  # zipfile's word for an encrypted member
        if member.flag_bits & 0x1:
            raise DataError(
                "this archive member is encrypted (password-protected).",
                file=label,
                hint="create the archive again without a password.",
            ) from None
        raise DataError(
            f"this archive member cannot be read ({err}).", file=label, hint=_REPACK
        ) from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as err:
        raise DataError(
            f"this archive member is damaged ({err}).", file=label, hint=_REPACK
        ) from None
