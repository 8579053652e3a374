"""A corpus of hostile inputs (#19): each a file name and its bytes, made here (no downloads).

Classes: table structure, encodings and invisible characters, numbers (NaN, infinity, 1e308,
10**400, booleans, fractions), names (formulas, markup, numeric-looking, duplicates, very long),
JSON shapes (lm-eval, inspect_ai, records, JSON Lines), binary and archives (zip traversal,
nested, corrupt), and a few well-formed controls whose answer is known (``expect`` models).
"""

from __future__ import annotations

import functools
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
LM_EVAL = REAL / "lm_eval/results_v04/Qwen__Qwen2.5-1.5B__results_2025-03-03T00-05-12.300060.json"
INSPECT = REAL / "inspect_ai/2025-05-12T20-28-26-04-00_security-guide.json"
EVAL = REAL / "inspect_ai/eval_zip/log_formats.eval"
HEAD = "model,task,category,n,correct\n"
GOOD = HEAD + "A,t1,c1,100,60\nA,t2,c2,100,70\nB,t1,c1,100,50\nB,t2,c2,100,80\n"


@dataclass(frozen=True)
class Case:
    """One input: ``name`` (the file name, as uploaded), ``data``; ``expect``: the models a
    correct load must find (``None``: refusing it is also right)."""

    id: str
    name: str
    data: bytes
    expect: tuple[str, ...] | None = None


def _q(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _rows(models: list[str], tasks: tuple[str, ...] = ("t1", "t2")) -> str:
    return HEAD + "".join(
        f"{_q(m)},{_q(t)},c{j % 2},100,{40 + 5 * i + 3 * j}\n"
        for i, m in enumerate(models)
        for j, t in enumerate(tasks)
    )


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _structure() -> list[Case]:
    c = [
        ("only_separators", ",\n\n,"),
        ("empty", ""),
        ("blank_lines", "\n\n\n"),
        ("spaces", "   \t  "),
        ("bom_only", "\ufeff"),
        ("header_only", HEAD),
        ("one_column", "model\nA\nB\n"),
        ("no_model_column", "x,y\n1,2\n"),
        ("ragged_row", HEAD + "A,t1,c1,100\n"),
        ("extra_field", HEAD + "A,t1,c1,100,60,9\n"),
        ("unbalanced_quote", HEAD + 'A,"t1,c1,100,60\n'),
        ("duplicate_columns", "model,task,n,n,correct\nA,t,1,1,1\n"),
        ("semicolons", GOOD.replace(",", ";")),
        ("tabs", GOOD.replace(",", "\t")),
        ("crlf", GOOD.replace("\n", "\r\n")),
        ("cr_only", GOOD.replace("\n", "\r")),
        ("trailing_commas", GOOD.replace("\n", ",\n")),
        ("mixed_separators", HEAD + "A;t1;c1;100;60\nB,t1,c1,100,50\n"),
        ("blank_rows_between", GOOD.replace("\n", "\n\n")),
        ("header_twice", GOOD + HEAD),
        ("long_line", HEAD + "A,t1,c1,100," + "9" * 200_000 + "\n"),
        ("many_columns", ",".join(f"c{i}" for i in range(5000)) + "\n" + ",".join("1" * 5000)),
        ("duplicate_model_task", GOOD + "A,t1,c1,100,61\n"),
        ("missing_category_cells", GOOD.replace(",c1,", ",,")),
        ("whitespace_cells", GOOD.replace(",", " , ")),
        ("quoted_numbers", HEAD + 'A,t1,c1,"100","60"\nB,t1,c1,"100","50"\n'),
        ("newline_in_name", HEAD + '"A\nB",t1,c1,100,60\nC,t1,c1,100,50\n'),
        ("comma_in_name", HEAD + '"A,B",t1,c1,100,60\nC,t1,c1,100,50\n'),
        ("one_model", HEAD + "A,t1,c1,100,60\nA,t2,c2,100,70\n"),
        ("one_task", HEAD + "A,t1,c1,100,60\nB,t1,c1,100,50\n"),
        ("wide_format", "model,t1,t2\nA,0.6,0.7\nB,0.5,0.8\n"),
        ("wide_with_text", "model,t1,t2\nA,0.6,x\nB,0.5,0.8\n"),
        ("accuracy_column", "model,task,n,accuracy\nA,t,100,0.6\nB,t,100,1.5\n"),
        ("percent_signs", "model,task,n,accuracy\nA,t,100,60%\nB,t,100,50%\n"),
        (
            "items_format",
            "model,task,item,correct\n"
            + "".join(f"{m},t,{i},{(i + k) % 2}\n" for k, m in enumerate("AB") for i in range(20)),
        ),
        ("items_missing_item", "model,task,item,correct\nA,t,,1\nB,t,1,0\n"),
        ("items_score_range", "model,task,item,score\nA,t,1,7\nB,t,1,0.5\n"),
        ("yaml_like", "model: A\ntask: t\n"),
        ("markdown_table", "| model | task |\n|---|---|\n| A | t |\n"),
        ("html", "<html><body><table><tr><td>A</td></tr></table></body></html>"),
    ]
    ab = ("A", "B")
    expect = {
        "one_model": ("A",),
        "semicolons": ab,
        "tabs": ab,
        "crlf": ab,
        "one_task": ab,
        "blank_rows_between": ab,
        "quoted_numbers": ab,
        "comma_in_name": ("A,B", "C"),
    }
    return [Case(k, f"{k}.csv", v.encode(), expect.get(k)) for k, v in c]


def _encodings() -> list[Case]:
    return [
        Case("utf16_le", "u16le.csv", GOOD.encode("utf-16"), ("A", "B")),
        Case("utf16_be_bom", "u16be.csv", b"\xfe\xff" + GOOD.encode("utf-16-be"), ("A", "B")),
        Case("utf16_broken", "u16bad.csv", b"\xff\xfe" + b"A\x00\x00\xd8"),
        Case("latin1", "latin1.csv", _rows(["Café", "B"]).encode("latin-1")),
        Case("invalid_utf8", "bad8.csv", HEAD.encode() + b"A\xff\xfe,t1,c1,100,60\n"),
        Case("nul_early", "nul0.csv", HEAD.encode() + b"A\x00,t1,c1,100,60\n"),
        Case(
            "nul_after_4k",
            "nul4k.csv",
            (_rows([f"m{i}" for i in range(120)])).encode() + b"Z,t\x00x,c1,100,5\n",
        ),
        Case(
            "bidi_override",
            "bidi.csv",
            _rows(["\u202egnp.exe", "B"]).encode(),
            ("\u202egnp.exe", "B"),
        ),
        Case("zero_width", "zw.csv", _rows(["A", "A\u200b"]).encode(), ("A", "A\u200b")),
        Case("control_chars", "ctl.csv", _rows(["A\x07\x1b[31m", "B"]).encode()),
        Case("emoji_names", "emoji.csv", _rows(["🤖", "👩‍🔬"]).encode(), ("🤖", "👩‍🔬")),
        # one file, both Unicode forms of one name: two models, the decomposed one labelled so
        Case("combining", "comb.csv", _rows(["e\u0301", "\u00e9"]).encode(), ("é (NFD)", "é")),
        Case("rtl_text", "rtl.csv", _rows(["نموذج", "מודל"]).encode(), ("نموذج", "מודל")),
        Case("bom_then_data", "bom.csv", b"\xef\xbb\xbf" + GOOD.encode(), ("A", "B")),
        Case("double_bom", "bom2.csv", b"\xef\xbb\xbf\xef\xbb\xbf" + GOOD.encode()),
        Case("utf8_overlong", "overlong.csv", HEAD.encode() + b"\xc0\xaf,t1,c1,100,60\n"),
        Case("surrogate_escape", "surr.csv", HEAD.encode() + b"\xed\xa0\x80,t1,c1,100,60\n"),
        Case("form_feed", "ff.csv", _rows(["A\x0c", "B"]).encode()),
        Case("del_char", "del.csv", _rows(["A\x7f", "B"]).encode()),
        Case("line_separator", "ls.csv", _rows(["A\u2028B", "C"]).encode()),
    ]


def _numbers() -> list[Case]:
    bad = {
        "nan_n": "nan",
        "inf_n": "inf",
        "neg_inf_n": "-inf",
        "huge_n": "1e308",
        "over_n": "1e309",
        "bigint_n": "1" + "0" * 400,
        "negative_n": "-5",
        "zero_n": "0",
        "fraction_n": "10.5",
        "comma_decimal_n": "1,5",
        "hex_n": "0x10",
        "bool_text_n": "true",
        "n_2_53": str(2**53 + 2),
        "exp_n": "1e2",
        "space_n": " 100 ",
        "plus_n": "+100",
        "empty_n": "",
        "nan_text_n": "NaN",
        "null_text_n": "null",
        "percent_n": "100%",
    }
    out = [
        Case(k, f"{k}.csv", (HEAD + f"A,t1,c1,{_q(v)},5\nB,t1,c1,100,50\n").encode())
        for k, v in bad.items()
    ]
    correct = {
        "correct_gt_n": "150",
        "correct_negative": "-1",
        "correct_nan": "nan",
        "correct_inf": "inf",
        "correct_fraction": "5.5",
        "correct_bigint": "9" * 400,
        "correct_1e308": "1e308",
    }
    out += [
        Case(k, f"{k}.csv", (HEAD + f"A,t1,c1,100,{_q(v)}\nB,t1,c1,100,50\n").encode())
        for k, v in correct.items()
    ]
    out += [
        Case(
            "n_1e15",
            "n15.csv",
            (
                HEAD + "A,t,c,1000000000000000,500000000000000\n"
                "B,t,c,1000000000000000,400000000000000\nC,t,c,10,5\n"
            ).encode(),
        ),
        Case(
            "all_zero_correct",
            "zero.csv",
            (HEAD + "A,t1,c1,100,0\nB,t1,c1,100,0\n").encode(),
            ("A", "B"),
        ),
        Case(
            "all_full_correct",
            "full.csv",
            (HEAD + "A,t1,c1,100,100\nB,t1,c1,100,100\n").encode(),
            ("A", "B"),
        ),
        Case("n_one", "n1.csv", (HEAD + "A,t1,c1,1,1\nB,t1,c1,1,0\n").encode(), ("A", "B")),
        Case("wide_1e308", "w308.csv", b"model,t1,t2\nA,1e308,1.7e308\nB,-1e308,1e308\n"),
        Case("accuracy_nan", "accnan.csv", b"model,task,n,accuracy\nA,t,100,nan\nB,t,100,.5\n"),
        Case("estimate_1e308", "e308.csv", b"model,task,estimate,se\nA,t,1e308,1e307\nB,t,.5,.1\n"),
        Case("se_huge", "se308.csv", b"model,task,estimate,se\nA,t,0.5,1e300\nB,t,.5,.1\n"),
        Case(
            "estimate_ok",
            "est.csv",
            b"model,task,estimate,se\nA,t,12.5,0.3\nB,t,-3,0.1\n",
            ("A", "B"),
        ),
        Case(
            "accuracy_tiny", "acctiny.csv", b"model,task,n,accuracy\nA,t,100,1e-320\nB,t,100,.5\n"
        ),
    ]
    return out


def _names() -> list[Case]:
    names = {
        "formula_eq": ['=HYPERLINK("http://evil.example","x")', "B"],
        "formula_cmd": ["=cmd|' /C calc'!A0", "B"],
        "formula_at": ["@SUM(1+1)", "B"],
        "formula_plus": ["+1+1", "-2+3"],
        "formula_tab": ["\t=1", "B"],
        "formula_mix": ['=HYPERLINK("http://evil.example","x")', "+1+1", "-2+3", "@SUM(1+1)", "B"],
        "markdown_link": ["[click](http://evil.example)", "**bold**"],
        "html_link": ['<a href="http://evil.example">x</a>', "<img src=x onerror=alert(1)>"],
        "script": ["<script>alert(1)</script>", "B"],
        "url_name": ["http://evil.example/path", "www.evil.example"],
        "path_traversal": ["../../etc/passwd", "C:\\Windows\\system32"],
        "numeric_like": ["1", "1.0", "01", "1e0"],
        "case_and_space": ["a", "A", " A", "A "],
        "latex": ["$x^2$", "\\(y\\)"],
        "very_long_name": ["x" * 100_000, "B"],
        "name_300_characters": ["n" * 300, "B"],  # over a file name's 255 bytes (issue 40)
        "sql_like": ["'; DROP TABLE results; --", "B"],
        "template": ["{{7*7}}", "${7*7}"],
        "percent_fmt": ["%s%s%n", "{0}"],
        "dots": [".", ".."],
        "null_words": ["None", "null"],
        "many_models": [f"m{i}" for i in range(300)],
    }
    out = []
    for k, models in names.items():
        expect = None if k in ("formula_tab", "case_and_space") else tuple(models)
        out.append(Case(k, f"{k}.csv", _rows(models).encode(), expect))
    out.append(
        Case(
            "hostile_task_names",
            "tasks.csv",
            _rows(["A", "B"], ("=1+1", "<b>t</b>")).encode(),
            ("A", "B"),
        )
    )
    out.append(newline_task_items())
    out.append(
        Case("hostile_file_name", "[a](http://evil.example)=1.csv", GOOD.encode(), ("A", "B"))
    )
    return out


NEWLINE_TASK = "line one\nline two | =1+1"


def newline_task_items() -> Case:
    """Item-level scores of two runs (``A`` base, ``B`` candidate) on a task whose name holds a
    newline and a ``|`` (issue 40: it ended ``benchuq diff --format markdown``'s table)."""
    rows = "".join(
        f"{m},{_q(t)},q{k},{(k * (3 + i) + j) % 5 < 3:d}\n"
        for i, m in enumerate(("A", "B"))
        for j, t in enumerate((NEWLINE_TASK, "t2"))
        for k in range(30)
    )
    return Case("newline_task_items", "runs.csv", ("model,task,item,score\n" + rows).encode(),
                ("A", "B"))  # fmt: skip


def _records(records: object) -> bytes:
    return json.dumps(records).encode()


def _json() -> list[Case]:
    rec = [
        {"model": "A", "task": "t", "n": 10, "correct": 5},
        {"model": "B", "task": "t", "n": 10, "correct": 6},
    ]
    big = "1" + "0" * 400
    raw = {
        "json_empty_list": b"[]",
        "json_empty_object": b"{}",
        "json_null": b"null",
        "json_number": b"1",
        "json_string": b'"x"',
        "json_true": b"true",
        "json_deep": b"[" * 50_000 + b"]" * 50_000,
        "json_deep_objects": b'{"a":' * 5000 + b"1" + b"}" * 5000,
        "json_truncated": b'[{"model": "A", "task"',
        "json_trailing": b"[]]",
        "json_list_of_lists": b"[[1,2],[3,4]]",
        "json_nan_literal": b'[{"model":"A","task":"t","n":NaN,"correct":1}]',
        "json_infinity": b'[{"model":"A","task":"t","n":10,"correct":Infinity}]',
        "json_bigint_n": b'[{"model":"A","task":"t","n":' + big.encode() + b',"correct":5}]',
        "json_float_overflow": b'[{"model":"A","task":"t","n":1e999,"correct":5}]',
        "json_duplicate_keys": b'[{"model":"A","model":"B","task":"t","n":10,"correct":5}]',
    }
    out = [Case(k, f"{k}.json", v) for k, v in raw.items()]
    out += [
        Case("json_records_ok", "rec.json", _records(rec), ("A", "B")),
        Case(
            "json_bool_counts",
            "boolc.json",
            _records([{**r, "n": True, "correct": True} for r in rec[:1]] + rec[1:]),
        ),
        Case("json_object_name", "objn.json", _records([{**rec[0], "model": {"x": 1}}, rec[1]])),
        Case("json_list_name", "listn.json", _records([{**rec[0], "model": [1, 2]}, rec[1]])),
        Case(
            "json_number_vs_text",
            "numtxt.json",
            _records([{**rec[0], "model": 1}, {**rec[1], "model": "1", "task": "u"}]),
        ),
        Case(
            "json_number_names",
            "numn.json",
            _records([{**rec[0], "model": 1}, {**rec[1], "model": 2}]),
            ("1", "2"),
        ),
        Case("json_null_name", "nulln.json", _records([{**rec[0], "model": None}, rec[1]])),
        Case(
            "json_string_counts",
            "strc.json",
            _records([{**r, "n": str(r["n"]), "correct": str(r["correct"])} for r in rec]),
            ("A", "B"),
        ),
        Case("json_wrapped", "wrap.json", _records({"data": rec}), ("A", "B")),
        Case("json_mixed_records", "mixed.json", _records([rec[0], 5, rec[1]])),
        Case("jsonl_ok", "ok.jsonl", b"\n".join(json.dumps(r).encode() for r in rec), ("A", "B")),
        Case("jsonl_bad_line", "bad.jsonl", json.dumps(rec[0]).encode() + b"\n{oops\n"),
        Case(
            "jsonl_bigint",
            "big.jsonl",
            b'{"model":"A","task":"t","item":1,"score":'
            + big.encode()
            + b'}\n{"model":"B","task":"t","item":1,"score":1}\n',
        ),
        Case(
            "jsonl_bool_items",
            "bitems.jsonl",
            b"\n".join(
                json.dumps(
                    {"model": m, "task": "t", "item": i, "correct": bool((i + k) % 2)}
                ).encode()
                for k, m in enumerate("AB")
                for i in range(10)
            ),
        ),
    ]
    out += _lm_eval() + _inspect()
    return out


def _lm_eval() -> list[Case]:
    text = LM_EVAL.read_text()
    doc = json.loads(text)
    task = next(iter(doc["results"]))
    key = next(k for k in doc["results"][task] if k.startswith("acc,"))
    out = [Case("lm_eval_ok", "lm_ok.json", text.encode())]
    for k, v in {
        "bigint": "1" + "0" * 400,
        "nan": "NaN",
        "inf": "Infinity",
        "bool": "true",
        "string": '"0.5"',
        "negative": "-0.5",
        "over_one": "7",
        "null": "null",
        "object": '{"x": 1}',
    }.items():
        patched = json.dumps(doc).replace(
            f'"{key}": {doc["results"][task][key]}', f'"{key}": {v}', 1
        )
        out.append(Case(f"lm_eval_acc_{k}", f"lm_{k}.json", patched.encode()))
    for k, v in {"bigint": int("1" + "0" * 400), "negative": -3, "bool": True, "zero": 0}.items():
        d = json.loads(text)
        d.setdefault("n-samples", {})[task] = {"original": v, "effective": v}
        out.append(Case(f"lm_eval_nsamples_{k}", f"lm_ns_{k}.json", json.dumps(d).encode()))
    d = json.loads(text)
    d["results"] = {}
    out.append(Case("lm_eval_no_results", "lm_none.json", json.dumps(d).encode()))
    d = json.loads(text)
    d["config"] = {"model_args": "pretrained=" + "=HYPERLINK(1)" + "/" * 1000}
    out.append(Case("lm_eval_hostile_model_args", "lm_args.json", json.dumps(d).encode()))
    return out


def _inspect() -> list[Case]:
    doc = json.loads(INSPECT.read_text())
    out = [Case("inspect_ok", "inspect_ok.json", json.dumps(doc).encode())]
    for k, v in {
        "bigint": int("1" + "0" * 400),
        "nan": float("nan"),
        "negative": -1.0,
        "list": [1],
        "none": None,
        "object": {"a": 1},
        "letter": "Z",
    }.items():
        d = json.loads(json.dumps(doc))
        for s in d["samples"]:
            for score in s["scores"].values():
                score["value"] = v
        out.append(Case(f"inspect_value_{k}", f"inspect_{k}.json", json.dumps(d).encode()))
    d = json.loads(json.dumps(doc))
    d["eval"]["model"] = '<a href="http://evil.example">m</a>'
    out.append(Case("inspect_hostile_model", "inspect_model.json", json.dumps(d).encode()))
    d = json.loads(json.dumps(doc))
    d["samples"] = []
    out.append(Case("inspect_no_samples", "inspect_empty.json", json.dumps(d).encode()))
    return out


def _patched_zip(*, flag: int = 0, method: int | None = None, flip_data: bool = False) -> bytes:
    """A one-member stored zip with its headers or data changed: general-purpose ``flag`` bits
    set (bit 0: encrypted), the compression ``method`` number replaced, or a data byte flipped
    (the CRC no longer matches)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("a.csv", GOOD.encode())
    data = bytearray(buf.getvalue())
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    data[local + 6] |= flag
    data[central + 8] |= flag
    if method is not None:
        data[local + 8 : local + 10] = method.to_bytes(2, "little")
        data[central + 10 : central + 12] = method.to_bytes(2, "little")
    if flip_data:
        start = local + 30 + len("a.csv")
        data[start] ^= 0xFF
    return bytes(data)


def _binary() -> list[Case]:
    return [
        Case("zip_bad_crc", "crc.zip", _patched_zip(flip_data=True)),
        Case("zip_encrypted_member", "locked.zip", _patched_zip(flag=1)),
        Case("zip_unknown_method", "method.zip", _patched_zip(method=97)),
        Case("png", "x.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100),
        Case("png_named_csv", "x.csv", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100),
        Case("gzip", "x.csv", b"\x1f\x8b\x08\x00" + b"\x00" * 50),
        Case("random_bytes", "rand.csv", bytes(range(256)) * 8),
        Case("parquet_magic_garbage", "x.parquet", b"PAR1" + b"\x00garbage" * 10 + b"PAR1"),
        Case("zip_corrupt", "x.zip", b"PK\x03\x04" + b"\x00" * 40),
        Case("eval_ok", "log.eval", EVAL.read_bytes(), ("ollama/llama3.1",)),
        Case("eval_truncated", "cut.eval", EVAL.read_bytes()[: EVAL.stat().st_size // 2]),
        Case("eval_empty", "empty.eval", b""),
        Case("eval_text", "text.eval", b"not a zip archive\n"),
        Case("eval_zip_not_a_log", "nolog.eval", _zip({"notes.txt": b"hello"})),
        Case(
            "eval_summaries_not_json",
            "spaces.eval",
            _zip(
                {
                    "header.json": b'{"eval": {}, "status": "success"}',
                    "summaries.json": b" " * 2**24,
                }
            ),
        ),
        Case("zip_empty", "empty.zip", _zip({})),
        Case("zip_ok", "ok.zip", _zip({"a.csv": GOOD.encode()}), ("A", "B")),
        Case("zip_traversal", "trav.zip", _zip({"../../evil.csv": GOOD.encode()}), ("A", "B")),
        Case("zip_absolute", "abs.zip", _zip({"/etc/evil.csv": GOOD.encode()}), ("A", "B")),
        Case("zip_nested", "nest.zip", _zip({"inner.zip": _zip({"a.csv": GOOD.encode()})})),
        Case("zip_hidden_only", "hid.zip", _zip({".hidden/a.csv": GOOD.encode()})),
        Case(
            "zip_license_and_data",
            "lic.zip",
            _zip(
                {
                    "LICENSE.txt": b"MIT License\n\nPermission is hereby granted",
                    "README.md": b"# x",
                    "a.csv": GOOD.encode(),
                }
            ),
            ("A", "B"),
        ),
        Case(
            "zip_two_conflicting",
            "two.zip",
            _zip({"a.csv": GOOD.encode(), "b.csv": GOOD.replace("60", "61").encode()}),
        ),
        Case("zip_many_members", "many.zip", _zip({f"d/{i}.txt": b"note" for i in range(300)})),
        Case("zip_compressible", "bomb.zip", _zip({"a.csv": GOOD.encode() + b" " * 5_000_000})),
        Case("elf", "x.bin", b"\x7fELF" + b"\x00" * 60),
        Case("pdf", "x.pdf", b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"),
        Case("xlsx_magic", "x.xlsx", _zip({"[Content_Types].xml": b"<Types/>"})),
        Case("sqlite", "x.csv", b"SQLite format 3\x00" + b"\x00" * 100),
    ]


def _valid_rows_zip(megabytes: int) -> bytes:
    """``megabytes`` MB of valid long-table rows, deflated to about a thousandth of that (the
    zip that took a server to 13 GB, issue 31), written a block at a time."""
    block = "".join(f"m{i},t1,c,100,50\n" for i in range(20)).encode()
    block *= 2**20 // len(block)  # about 1 MB of a short period: deflate's best case
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        with z.open("rows.csv", "w") as out:
            out.write(b"model,task,category,n,correct\n")
            for _ in range(megabytes * 2**20 // len(block)):
                out.write(block)
    return buf.getvalue()


#: The ids of :func:`work_cases`, known without building them (a test collection names them).
WORK_IDS = ("wide_200000_columns", "zip_20000_entries", "million_models", "zip_of_500mb_valid_rows")


def work_cases() -> list[Case]:
    """The small files that cause large work (issue 31), for the memory and time checks."""
    return _work()


def work_case(case_id: str) -> Case:
    """One of :func:`work_cases` by its id."""
    return next(c for c in _work() if c.id == case_id)


def _work() -> list[Case]:
    """Small files that cause large work: wide, many entries, many models, a dense zip (built
    once per process and only when used: 3 s of CPU that each test collection, on every
    parallel worker, used to repeat up to three times)."""
    return list(_work_built())


@functools.cache
def _work_built() -> tuple[Case, ...]:
    many_entries = _zip({f"f{i}.csv": b"model,task,n,correct\na,t,1,1\n" for i in range(20_000)})
    models = "".join(f"m{i},t,10,5\n" for i in range(1_000_000))
    cases = (
        Case("wide_200000_columns", "wide.csv", _wide(200_000)),
        Case("zip_20000_entries", "many.zip", many_entries),
        Case("million_models", "models.csv", ("model,task,n,correct\n" + models).encode()),
        Case("zip_of_500mb_valid_rows", "dense.zip", _valid_rows_zip(500)),
    )
    assert tuple(c.id for c in cases) == WORK_IDS
    return cases


def _wide(columns: int) -> bytes:
    header = ",".join(f"c{i}" for i in range(columns))
    return (header + "\n" + ",".join("1" for _ in range(columns)) + "\n").encode()


def answered() -> list[Case]:
    """Every case but :func:`work_cases` (cheap to build), ids unique."""
    return _unique(_structure() + _encodings() + _numbers() + _names() + _json() + _binary())


def corpus() -> list[Case]:
    """Every case, ids unique."""
    return _unique(answered() + _work())


def _unique(cases: list[Case]) -> list[Case]:
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    return cases
