"""Published data sets: a loaded :class:`Benchmark` stored behind an unguessable link.

``publish`` stores the parsed data (Parquet: tasks, per-model results, item scores) with JSON
metadata and provenance notes (never the uploaded files, never a pickle) under a random id of
160 bits, and returns a delete token that only the publisher sees; ``load`` reads it back and
validates it as a fresh load does; ``unpublish`` deletes it with that token.

Where (``BENCHUQ_STORE``): a folder (default ``~/.benchuq/store``: a SQLite index ``index.db``
and the files under ``data/``), or an S3-compatible object store ``s3://bucket/prefix`` through
fsspec/s3fs (``pip install benchuq[s3]``; ``BENCHUQ_STORE_ENDPOINT`` for a non-AWS server,
credentials from the usual ``AWS_*`` variables), where each index record is a small JSON object
under ``index/``. Limits: ``BENCHUQ_STORE_MAX_MB`` (25) per data set, ``BENCHUQ_STORE_DAYS``
(90) until a data set expires, at most ``BENCHUQ_STORE_MAX_DAYS`` (365).

Choices:
- The index and the paths are keyed by SHA-256 of the id, and the token is kept only as its
  SHA-256: the store holds no id and no token, so a leaked copy of it (or a listing of the
  bucket) gives no link and no way to delete. Nothing lists ids.
- Data files sit under ``data/<expiry date>/<key>/``: expired data is removed by deleting whole
  past-date folders (on each publish, and when an expired id is opened). Index records stay, so
  an expired or deleted id gets a message saying so rather than "unknown".
- Parquet files are written without pyarrow's embedded schema and any file that carries one
  (or any other key-value metadata) is refused: Arrow types then come only from Parquet's own
  types, so no extension type (the route of pyarrow's pickle CVE-2023-47248) is ever read.

One security boundary in four modules: :mod:`~benchuq.store.config` (settings, limits, ids,
receipts), :mod:`~benchuq.store.codec` (the stored form and its validation),
:mod:`~benchuq.store.index` (the index records) and :mod:`~benchuq.store.store` (publish, load,
delete, faults and integrity); :mod:`~benchuq.store.battles` keeps published battles tables in
the same store (#41). Everything that writes or reads stored bytes stays in this
package; every public name is importable from ``benchuq.store``.
"""

from benchuq.store.codec import decode, encode
from benchuq.store.config import (
    DESCRIPTION_LIMIT,
    ID_RE,
    PREFIX,
    Receipt,
    StoreConfig,
    StoreError,
    new_id,
    parse_shared,
)
from benchuq.store.index import Record
from benchuq.store.store import Store, load_shared, open_store, read_shared

__all__ = [
    "DESCRIPTION_LIMIT",
    "ID_RE",
    "PREFIX",
    "Receipt",
    "Record",
    "Store",
    "StoreConfig",
    "StoreError",
    "decode",
    "encode",
    "load_shared",
    "new_id",
    "open_store",
    "parse_shared",
    "read_shared",
]
