"""A small long CSV and the Data page's upload steps for app tests (a fixture module, not a test
module)."""

from __future__ import annotations

from conftest import page_path

__all__ = ["GOOD", "MALFORMED", "RENAMED", "open_data_page", "upload"]

GOOD = b"""model,task,category,n,correct
north,t1,reading,400,300
north,t2,math,300,150
south,t1,reading,400,280
south,t2,math,300,180
west,t1,reading,400,200
west,t2,math,300,100
"""
# Row 3 (spreadsheet numbering) has more correct answers than items.
MALFORMED = GOOD.replace(b"north,t2,math,300,150", b"north,t2,math,300,450")
RENAMED = GOOD.replace(b"model,task", b"system,task")


def upload(at, name: str, data: bytes):
    at.file_uploader(key="uploader").set_value([(name, data, "text/csv")]).run()
    return at


def open_data_page(make_app):
    at = make_app().run()
    at.switch_page(page_path("data.py")).run()
    return at
