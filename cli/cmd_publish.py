"""``benchuq publish`` and ``benchuq unpublish``: put a data set behind a link, take it down.

The store is the one the app uses (``BENCHUQ_STORE``, see :mod:`benchuq.store`): a data set
published here opens in the app as ``?data=shared:<id>`` and in every command as
``shared:<id>``; a battles table (model_a, model_b, winner) is stored as battles and opens on
the Arena page (``arena?data=shared:<id>``) and in ``benchuq arena shared:<id>``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from benchuq.cli.common import (
    UsageError,
    add_data_arguments,
    add_notes,
    load_benchmark,
    print_json,
)
from benchuq.core.reading.battles import BattlesNotScores, not_scores

if TYPE_CHECKING:
    from benchuq.store import Receipt, Store

__all__ = ["register", "run_publish", "run_unpublish"]


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``benchuq publish`` and ``benchuq unpublish`` to the subcommands."""
    p = sub.add_parser(
        "publish",
        help="store a data set behind an unguessable link (prints the id and a delete token)",
        description="Store the parsed data (numbers, names, categories and notes; not your "
        "files) in the store named by BENCHUQ_STORE (default ~/.benchuq/store; "
        "s3://bucket/prefix for an object store). Anyone who has the link can see the data; "
        "nobody can find it without the link. The delete token is printed only now.",
    )
    add_data_arguments(p)
    p.add_argument(
        "--expires",
        type=int,
        default=None,
        metavar="DAYS",
        help="days until the data set is removed (default BENCHUQ_STORE_DAYS or 90)",
    )
    p.add_argument(
        "--description",
        default="",
        help="a few words about the data, stored with it and shown to whoever opens the link",
    )
    p.add_argument(
        "--json", action="store_true", help="print id, link, delete_token, expires as JSON"
    )
    p.set_defaults(func=run_publish)

    u = sub.add_parser(
        "unpublish",
        help="delete a published data set (needs its delete token)",
        description="Delete a published data set now; its link then says it was deleted.",
    )
    u.add_argument("id", metavar="ID", help="the id, or shared:<id>")
    u.add_argument("--token", required=True, help="the delete token printed by publish")
    u.set_defaults(func=run_unpublish)


def _source(data: str) -> str:
    """What the provenance note names: a sample, a shared id, or a file/folder name (no path)."""
    return data if ":" in data and not Path(data).exists() else Path(data).name


def run_publish(args: argparse.Namespace) -> int:
    """Store DATA and print the id, the link and the delete token; returns the exit code."""
    from benchuq.store import open_store

    if args.expires is not None and args.expires < 1:
        raise UsageError(f"--expires {args.expires}: give a number of days >= 1 (90 is typical).")
    store = open_store()
    source = ", ".join(_source(d) for d in args.data)  # DATA may name several paths
    try:
        if args.data == ["sample:mt_bench_battles"]:
            raise not_scores(args.data[0])
        bench = load_benchmark(args)
    except BattlesNotScores:
        return _publish_battles(args, store, source)
    receipt = store.publish(
        bench,
        days=args.expires,
        source=source,
        groups=bench.context.groups,
        description=args.description,
    )
    if args.json:
        print_json(receipt.to_json())
        return 0
    print(
        f"Published '{bench.name}' ({bench.kind.replace('_', ' ')}, {len(bench.models)} models "
        f"x {len(bench.tasks)} tasks) to {store.config.location_for_operator()}."
    )
    _print_receipt(receipt, "the app's link", "benchuq leaderboard")
    return 0


def _print_receipt(receipt: Receipt, link: str, command: str) -> None:
    """The receipt's lines: id, link, data argument, expiry and the delete token."""
    page = "arena" if command == "benchuq arena" else ""
    print(f"id:            {receipt.id}")
    print(f"link:          {page}{receipt.link}  ({link}: after the app's address)")
    print(f"data argument: shared:{receipt.id}  (e.g. {command} shared:{receipt.id})")
    print(f"expires:       {receipt.to_json()['expires']}")
    print(f"delete token:  {receipt.delete_token}")
    print(
        "Anyone who has the link can see the data. Keep the delete token private: it is shown "
        f"only now. Delete with: benchuq unpublish {receipt.id} --token {receipt.delete_token}"
    )


def _publish_battles(args: argparse.Namespace, store: Store, source: str) -> int:
    """``benchuq publish`` of a battles table: stored as battles, opened by ``benchuq arena
    shared:<id>`` and the app's Arena page (#41)."""
    from benchuq.api import load_battles
    from benchuq.store.battles import publish_battles

    battles = load_battles(args.data, name=getattr(args, "name", None))
    receipt = publish_battles(
        battles, days=args.expires, source=source, description=args.description, store=store
    )
    add_notes(args, battles.notes)
    if args.json:  # "link" as for any data set; "arena_link" opens the Arena page
        print_json(receipt.to_json() | {"arena_link": f"arena{receipt.link}"})
        return 0
    print(
        f"Published the battles '{battles.name}' ({battles.n:,} battles, {len(battles.models)} "
        f"models) to {store.config.location_for_operator()}."
    )
    _print_receipt(receipt, "the Arena page's link", "benchuq arena")
    return 0


def run_unpublish(args: argparse.Namespace) -> int:
    """Delete a published data set given its delete token; returns the exit code."""
    from benchuq.store import PREFIX, open_store, parse_shared

    ident = parse_shared(args.id)
    open_store().unpublish(ident, args.token)
    print(f"Deleted {PREFIX}{ident}: its link now says that it was deleted.")
    return 0
