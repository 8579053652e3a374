"""A real S3-compatible server for the tests: moto's server mode in a child process.

``run_s3()`` starts ``python -m moto.server`` on a free loopback port, creates a bucket and yields
the environment that points benchuq's store at it (``BENCHUQ_STORE=s3://...``,
``BENCHUQ_STORE_ENDPOINT``, dummy ``AWS_*`` credentials). The store talks to it over HTTP with
s3fs/botocore exactly as to any S3 server; nothing is mocked inside the client.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from browser_utils import ARTIFACTS, free_port, stop, wait_serving

BUCKET = "benchuq-test"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@contextmanager
def run_s3(timeout: float = 60.0) -> Iterator[dict[str, str]]:
    """Start moto's S3 server; yield the store's environment; stop the server by its PID."""
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = open(ARTIFACTS / f"moto_{port}.log", "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        wait_serving(proc, f"{endpoint}/moto-api/", "moto's S3 server", timeout)
        request = urllib.request.Request(f"{endpoint}/{BUCKET}", method="PUT")
        urllib.request.urlopen(request, timeout=10).close()  # create the bucket
        env = {
            **CREDENTIALS,
            "BENCHUQ_STORE": f"s3://{BUCKET}/published",
            "BENCHUQ_STORE_ENDPOINT": endpoint,
        }
        old = {k: os.environ.get(k) for k in CREDENTIALS}
        os.environ.update(CREDENTIALS)  # botocore in this process reads them too
        try:
            yield env
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    finally:
        stop(proc)
        log.close()
