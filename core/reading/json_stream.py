"""JSON read value by value (large inspect_ai logs, issue 18): :func:`pruned_json` builds only
the parts of a document a :data:`Shape` names and skips the rest without building it."""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from benchuq.core.reading.table import Source

__all__ = [
    "JsonText",
    "Shape",
    "pruned_json",
]

# ---- JSON read value by value (large inspect_ai logs, issue 18) ------------------------------
#: What :meth:`JsonText.pruned` keeps of a JSON value: ``"value"`` (the value itself), a dict
#: of the keys kept and their shapes (``"*"``: every key), or a one-element list (each element's).
Shape = str | dict[str, "Shape"] | list["Shape"]
UTF8_CHUNK = 2**20  # bytes of a file checked as UTF-8 at a time
_OBJECT = re.compile(rb"(\xef\xbb\xbf)?[ \t\n\r]*\{")  # the start of a JSON object
#: A structural character with JSON's whitespace around it.
_TOKEN = re.compile(r"[ \t\n\r]*([^ \t\n\r])[ \t\n\r]*")
#: Reads a JSON value without keeping its objects (each becomes ``None`` once read; an array
#: holds its elements until it ends): skipped messages and events are never built whole.
_SKIP = json.JSONDecoder(object_pairs_hook=lambda pairs: None)


@dataclass(frozen=True)
class JsonText:
    """A UTF-8 JSON file read value by value, so that what is skipped is never built.

    ``text`` is the file's bytes decoded as Latin-1: a character per byte, so a position in it
    is a byte position and it costs the file's size whatever characters the file holds (decoded
    as UTF-8, non-ASCII text would make it 2 to 4 times larger). The structure is checked here,
    skipped values by json's own scanner, and kept values are decoded from their bytes, so a walk
    accepts exactly what ``json.loads`` accepts. Where the JSON is malformed a walk raises
    ``ValueError`` (unworded: :func:`pruned_json` then returns ``None``)."""

    data: bytes
    text: str
    start: int  # after a UTF-8 byte-order mark

    def skip(self, pos: int) -> int:
        """The end of the JSON value at ``pos`` (checked, not kept)."""
        return int(_SKIP.raw_decode(self.text, pos)[1])

    def value(self, pos: int) -> tuple[object, int]:
        """The JSON value at ``pos`` and its end."""
        end = self.skip(pos)
        return json.loads(self.data[pos:end]), end

    def token(self, pos: int, chars: str) -> tuple[str, int]:
        """The one of ``chars`` next after whitespace at ``pos``, and the position after it and
        the whitespace that follows (a ValueError if another character or the end is there)."""
        match = _TOKEN.match(self.text, pos)
        if match is None or match[1] not in chars:
            raise ValueError(f"expected one of {chars!r} after byte {pos}")
        return match[1], match.end()

    def members(self, pos: int, take: Callable[[str, int], int]) -> int:
        """Walk the object at ``pos``: ``take(key, at)`` reads or skips the value at ``at`` and
        returns its end. Returns the end of the object (and of the whitespace after it)."""
        _, pos = self.token(pos, "{")
        if self.text[pos : pos + 1] == "}":
            return self.token(pos, "}")[1]
        while True:
            if self.text[pos : pos + 1] != '"':
                raise ValueError(f"expected a key at byte {pos}")
            key, end = _SKIP.raw_decode(self.text, pos)
            if not key.isascii():  # the characters of its bytes, not their Latin-1 reading
                key = json.loads(self.data[pos:end])
            char, pos = self.token(take(key, self.token(end, ":")[1]), ",}")
            if char == "}":
                return pos

    def elements(self, pos: int, take: Callable[[int], int]) -> int:
        """Walk the array at ``pos``: ``take(at)`` reads or skips the element at ``at`` and returns
        its end. Returns the end of the array (and of the whitespace after it)."""
        _, pos = self.token(pos, "[")
        if self.text[pos : pos + 1] == "]":
            return self.token(pos, "]")[1]
        while True:
            char, pos = self.token(take(pos), ",]")
            if char == "]":
                return pos

    def pruned(self, pos: int, shape: Shape) -> tuple[object, int]:
        """The JSON value at ``pos`` with only the parts named by ``shape`` (see :data:`Shape`),
        and its end. A value that is not the object or array its shape names is skipped and read
        as ``None``."""
        if isinstance(shape, str):
            return self.value(pos)
        if self.text[pos : pos + 1] != ("[" if isinstance(shape, list) else "{"):
            return None, self.skip(pos)
        if isinstance(shape, list):
            items: list[object] = []

            def element(at: int) -> int:
                item, end = self.pruned(at, shape[0])
                items.append(item)
                return end

            return items, self.elements(pos, element)
        return self.kept(pos, shape)

    def kept(self, pos: int, shape: dict[str, Shape]) -> tuple[dict[str, object], int]:
        """The object at ``pos`` with the keys ``shape`` names (pruned by their shapes) and its
        end; other keys are skipped (a repeated key: the last one, as ``json.loads`` does)."""
        kept: dict[str, object] = {}

        def member(key: str, at: int) -> int:
            inner = shape.get(key, shape.get("*"))
            if inner is None:
                return self.skip(at)
            kept[key], end = self.pruned(at, inner)
            return end

        return kept, self.members(pos, member)


def _json_text(src: Source) -> JsonText | None:
    """The file as :class:`JsonText`, or ``None`` if it is not UTF-8 text (UTF-16, undecodable:
    :func:`decode_text` words it)."""
    data = src.data
    start = 3 if data.startswith(codecs.BOM_UTF8) else 0
    if not data.isascii():
        decoder = codecs.getincrementaldecoder("utf-8")()
        view = memoryview(data)
        try:  # a MB at a time: no decoded copy of the whole file
            for at in range(start, len(data), UTF8_CHUNK):
                decoder.decode(view[at : at + UTF8_CHUNK], final=at + UTF8_CHUNK >= len(data))
        except UnicodeDecodeError:
            return None
    return JsonText(data, data.decode("latin-1"), start)


def pruned_json(src: Source, shape: dict[str, Shape]) -> dict[str, object] | None:
    """The file's JSON object with only the parts ``shape`` names (:meth:`JsonText.kept`), or
    ``None`` where this cannot read it (not UTF-8, not an object, malformed, nested too deeply):
    the caller then reads it with :func:`parse_json`, which words the error."""
    text = _json_text(src) if _OBJECT.match(src.data) else None
    if text is None:
        return None
    try:
        kept, end = text.kept(text.start, shape)
    except (ValueError, RecursionError):
        return None
    return kept if end == len(text.text) else None  # nothing after the object
