"""Model names that print alike: Unicode normalization (NFC) and look-alike letters (skeletons).

- **Normalization**: ``"Café"`` can be written with a composed ``é`` (U+00E9, NFC) or with ``e``
  and a combining accent (U+0065 U+0301, NFD); the two print identically. Names are compared in
  NFC form, so the two spellings are one model (:func:`nfc`); the merge says so in a note.
- **Look-alikes** (UTS #39 "confusables", a small table here: no dependency): ``gpt-4`` and
  ``gрt-4`` with a Cyrillic ``р`` (U+0440) are different strings that print the same. Their
  :func:`skeleton` (NFKC, then each look-alike letter as its Latin twin, zero-width characters
  dropped) is equal; they are kept as two models, and :func:`confusable_notes` names the
  characters that differ so a person can tell them apart and fix the file.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

__all__ = ["confusable_notes", "nfc", "skeleton"]

#: Letters of other scripts that print like a Latin letter in common fonts (Cyrillic, Greek,
#: Armenian and a few Latin extensions), from the Unicode confusables list (UTS #39).
LOOKALIKES = str.maketrans(
    {
        **dict(zip("аеорсухіјѕԁһӏԛԝ", "aeopcyxijsdhlqw", strict=True)),
        **dict(zip("АВЕКМНОРСТХЅІЈԌ", "ABEKMHOPCTXSIJG", strict=True)),
        **dict(zip("οναιςυκρτχ", "ovaicukptx", strict=True)),
        **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
        **dict(zip("օսոհց", "ounhg", strict=True)),
        **dict(zip("ɡɑıȷ", "gaij", strict=True)),
        "\u2010": "-",  # hyphen
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",  # figure dash
        "\u2013": "-",  # en dash
        "\u2212": "-",  # minus sign
        "\u200b": None,  # zero width space
        "\u200c": None,  # zero width non-joiner
        "\u200d": None,  # zero width joiner
        "\u2060": None,  # word joiner
        "\ufeff": None,  # zero width no-break space
    }
)


def nfc(name: str) -> str:
    """``name`` in Unicode normal form C (composed accents)."""
    return unicodedata.normalize("NFC", name)


def skeleton(name: str) -> str:
    r"""What ``name`` looks like: NFKC (full-width and compatibility forms folded), look-alike
    letters mapped to their Latin twins, zero-width characters dropped.

    Examples
    --------
    >>> skeleton("g\u0440t-4") == skeleton("gpt-4")
    True
    >>> skeleton("gpt-4") == skeleton("gpt-4o")
    False
    """
    return unicodedata.normalize("NFKC", name).translate(LOOKALIKES)


def _odd(name: str) -> str:
    """The characters of ``name`` that are not ASCII, each with its code point and name."""
    odd = dict.fromkeys(c for c in name if ord(c) > 127)
    return ", ".join(f"'{c}' U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}" for c in odd)


def confusable_notes(models: Sequence[str]) -> list[str]:
    """One note per set of different model names that look the same (see the module
    docstring); a name made of ASCII only is shown as is, others with their unusual
    characters."""
    by_look: dict[str, list[str]] = {}
    for m in models:
        by_look.setdefault(skeleton(m), []).append(m)
    notes = []
    for names in by_look.values():
        if len(names) < 2:
            continue
        shown = "; ".join(
            f"'{n}'" + (f" (has {_odd(n)})" if _odd(n) else " (plain ASCII)") for n in names
        )
        notes.append(
            f"{len(names)} model names look the same but are different text: {shown}. They are "
            "kept as different models; if they are one model, correct the name in its file "
            "(or the model column) so both are spelled the same."
        )
    return notes
