"""Load on one server: concurrent browser sessions on the loopback address, uploads included.

Starts ``benchuq app`` with a cache budget (``BENCHUQ_CACHE_MB``, default 512 as the app's) and
drives ``--sessions`` Debian-chromium pages (Playwright, one browser, a context per session) for
``--seconds``. Each session repeats, at random (seeded): open a link with a new seed and 200,
2,000 or 20,000 replicates and wait for the charts; upload a generated CSV (up to 40 models x 60
tasks) on the Data page and wait for "In use: upload"; open the Ranks page. Prints latency
percentiles per action (and the actions that timed out), the machine's load average, and the
server's resident memory (RSS) before (the base: after one visit to each page, so the app's code
is loaded), at its peak during and ``--settle`` (30) s after the sessions close, against base +
budget: every cache that grows with the data, and the working memory of every computation of
draws or of a summary of them, is within ``BENCHUQ_CACHE_MB`` whatever the sessions ask
(``dashboard.ledger``; one request bigger than the budget runs alone), and freed memory goes
back to the system, so RSS during and after should be below base + budget. Also prints the
server's CPU time and its own script runs per page (``BENCHUQ_RUN_LOG``: wall and CPU seconds,
without the browsers, which share the machine). ``--arena-max N`` sets glibc's
``MALLOC_ARENA_MAX`` for the server (to compare).

``--hostile`` (issue 31): the work limit (``BENCHUQ_WORK_MB``) equals the cache budget, three of
the sessions upload the 2 MB zip of 500 MB of valid rows (``tests/hostile/hostile_corpus.py``)
and the others, besides their ordinary actions, upload the other small files of large work
(200,000 columns, a zip of 20,000 entries, 10^6 models): each upload must end in "In use" or a
message on the page. The server's RSS is printed over time; the run fails (exit 1) unless it
stays under base + budget throughout and is under it ``--settle`` (30) s after the sessions close.
``--quick``: 6 sessions (the three zips included) for 30 s.

Run: ``python benchmarks/bench_load.py [--sessions 25] [--seconds 60] [--cache-mb 512]``;
``python benchmarks/bench_load.py --hostile [--quick]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "hostile"))
from browser_utils import CHROMIUM, CHROMIUM_ARGS, IDLE, run_app

GOTO = {"wait_until": "commit", "timeout": 180_000}  # then wait for the app itself


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its threads (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def server_pid(port: int) -> int:
    """The PID listening on ``port`` on 127.0.0.1 (the server this script started), from /proc."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1].endswith(f":{port:04X}") and fields[3] == "0A":  # 0A: LISTEN
            inodes.add(f"socket:[{fields[9]}]")
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(str(fd.readlink()) in inodes for fd in (proc / "fd").iterdir()):
                return int(proc.name)
        except OSError:
            continue
    raise RuntimeError(f"no process listens on port {port}")


def csv_bytes(rng: random.Random) -> bytes:
    """A random counts table: up to 40 models x 60 tasks."""
    m, t = rng.randint(3, 40), rng.randint(2, 60)
    rows = ["model,task,category,n,correct"]
    for i in range(m):
        for j in range(t):
            n = rng.randint(20, 500)
            rows.append(f"model{i},task{j},c{j % 3},{n},{rng.randint(0, n)}")
    return ("\n".join(rows) + "\n").encode()


DENSE_SESSIONS = 3  # sessions that upload the zip of 500 MB of valid rows (--hostile)
_ANSWERED = '[data-testid="stAlertContentError"]'  # a refusal shown on the Data page


def hostile_files() -> list[tuple[str, bytes]]:
    """The hostile corpus's "work" inputs as ``(name, bytes)``, the dense zip first."""
    from hostile_corpus import work_cases

    cases = sorted(work_cases(), key=lambda c: c.id != "zip_of_500mb_valid_rows")
    return [(c.name, c.data) for c in cases]


async def hostile_upload(page, url: str, name: str, data: bytes) -> None:
    """Upload one hostile file on the Data page; wait until it is in use or refused."""
    await page.goto(f"{url}/data?reps=200", **GOTO)
    await page.wait_for_selector(IDLE, timeout=180_000)
    box = page.locator('[data-testid="stFileUploader"] input[type=file]').first
    await box.set_input_files(
        files=[{"name": name, "mimeType": "application/octet-stream", "buffer": data}],
        timeout=180_000,
    )
    answer = page.get_by_text("In use: upload").first.or_(page.locator(_ANSWERED).first)
    await answer.wait_for(timeout=180_000)


async def session(
    browser,
    url: str,
    k: int,
    until: float,
    times: dict,
    errors: list,
    hostile: list[tuple[str, bytes]] | None = None,
) -> None:
    """One user until ``until``: links, uploads and page switches, each timed to idle. With
    ``hostile`` files: the first :data:`DENSE_SESSIONS` sessions upload the first of them (the
    dense zip) again and again, the others mix the rest into their actions."""
    rng = random.Random(k)
    ctx = await browser.new_context(viewport={"width": 1200, "height": 900})
    page = await ctx.new_page()
    await asyncio.sleep(0.4 * k)  # users arrive over the first seconds
    try:
        while time.monotonic() < until:
            choices = ("link", "link", "upload", "ranks") + (("hostile",) * 2 if hostile else ())
            action = "dense" if hostile and k < DENSE_SESSIONS else rng.choice(choices)
            t0 = time.perf_counter()
            if action == "dense" and hostile:
                await hostile_upload(page, url, *hostile[0])
            elif action == "hostile" and hostile:
                await hostile_upload(page, url, *rng.choice(hostile[1:]))
            elif action == "link":
                reps = rng.choice((200, 2000, 20000))
                await page.goto(f"{url}/?reps={reps}&seed={rng.randint(1, 10**6)}", **GOTO)
                await page.wait_for_selector('[data-testid="stPlotlyChart"]', timeout=180_000)
            elif action == "upload":
                await page.goto(f"{url}/data?reps=200", **GOTO)
                await page.wait_for_selector(IDLE, timeout=180_000)
                box = page.locator('[data-testid="stFileUploader"] input[type=file]').first
                data = csv_bytes(rng)
                await box.set_input_files(
                    files=[{"name": f"s{k}.csv", "mimeType": "text/csv", "buffer": data}],
                    timeout=180_000,  # the input appears once the page has run (30 s default)
                )
                await page.get_by_text("In use: upload").first.wait_for(timeout=180_000)
            else:
                await page.goto(f"{url}/ranks?reps=200&seed={rng.randint(1, 50)}", **GOTO)
            await page.wait_for_selector(IDLE, timeout=180_000)
            times[action].append(time.perf_counter() - t0)
            if await page.locator('[data-testid="stException"]').count():
                errors.append(f"session {k} {action}: exception shown")
    except Exception as err:  # a timeout: counted, the other sessions go on
        times[f"{action} (timed out)"].append(time.perf_counter() - t0)
        errors.append(f"session {k} {action}: {type(err).__name__}: {str(err).splitlines()[0]}")
    finally:
        await ctx.close()


async def warm_up(url: str) -> None:
    """One visit to each page the sessions use, so the app's base includes its loaded code."""
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page()
        for path in ("/?reps=200", "/data?reps=200", "/ranks?reps=200"):
            await page.goto(url + path, **GOTO)
            await page.wait_for_selector(IDLE, timeout=180_000)
        await browser.close()


async def drive(
    url: str, sessions: int, seconds: float, hostile: list[tuple[str, bytes]] | None = None
) -> tuple[dict, list]:
    from playwright.async_api import async_playwright

    times: dict = defaultdict(list)
    errors: list = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        until = time.monotonic() + seconds
        await asyncio.gather(
            *(session(browser, url, k, until, times, errors, hostile) for k in range(sessions))
        )
        await browser.close()
    return times, errors


def percentiles(ts: list[float]) -> str:
    q = statistics.quantiles(ts, n=100) if len(ts) > 1 else ts * 99
    return f"p50 {q[49]:6.2f} s  p95 {q[94]:6.2f} s  p99 {q[98]:6.2f} s  max {max(ts):6.2f} s"


def server_runs(log: Path) -> None:
    """The server's own script runs per page (``BENCHUQ_RUN_LOG``): wall seconds of the runs
    that finished, their CPU, their wait for memory room, and how many were ended early
    (replaced by a newer run, or their session closed)."""
    runs = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    print("server script runs (the server's latency, without the browsers):")
    for page in sorted({r["page"] for r in runs}):
        done = [r for r in runs if r["page"] == page and r["outcome"] == "done"]
        ended = sum(r["page"] == page and r["outcome"] != "done" for r in runs)
        if done:
            cpu = statistics.median(r["cpu"] for r in done)
            wait = statistics.median(r["memory_wait"] for r in done)
            print(f"  {page[:24]:24s} n={len(done):4d}  {percentiles([r['seconds'] for r in done])}"
                  f"  CPU p50 {cpu:5.2f} s  memory wait p50 {wait:5.2f} s  "
                  f"ended early {ended}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=25)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--cache-mb", type=float, default=512.0)
    ap.add_argument("--settle", type=float, default=30.0, help="seconds after the sessions")
    ap.add_argument("--arena-max", type=int, default=None, help="MALLOC_ARENA_MAX of the server")
    ap.add_argument("--hostile", action="store_true", help="uploads of the hostile work inputs")
    ap.add_argument("--quick", action="store_true", help="6 sessions for 30 s")
    args = ap.parse_args()
    if args.quick:
        args.sessions, args.seconds = min(args.sessions, 6), min(args.seconds, 30.0)
    hostile = hostile_files() if args.hostile else None
    runs = Path(tempfile.mkdtemp(prefix="bench_load_")) / "runs.jsonl"
    env = {"BENCHUQ_CACHE_MB": str(args.cache_mb), "BENCHUQ_RUN_LOG": str(runs)}
    if args.hostile:
        env["BENCHUQ_WORK_MB"] = str(args.cache_mb)
    if args.arena_max is not None:
        env["MALLOC_ARENA_MAX"] = str(args.arena_max)
    load_before = os.getloadavg()
    with run_app(env=env) as url:
        pid = server_pid(int(url.rsplit(":", 1)[1]))
        bare = rss_mb(pid)
        asyncio.run(warm_up(url))
        time.sleep(5.0)
        before = rss_mb(pid)
        peak = [before]
        timeline: list[tuple[float, float]] = []  # (seconds since the sessions began, MB)
        stop = threading.Event()
        start = time.monotonic()

        def sample() -> None:
            while not stop.is_set():
                peak.append(rss_mb(pid))
                timeline.append((time.monotonic() - start, peak[-1]))
                time.sleep(0.5)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        runs.unlink(missing_ok=True)  # the warm-up's runs are not counted
        t0, cpu0 = time.perf_counter(), cpu_seconds(pid)
        times, errors = asyncio.run(drive(url, args.sessions, args.seconds, hostile))
        wall, cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
        closed = time.monotonic() - start
        load_during = os.getloadavg()
        time.sleep(args.settle)  # sessions closed: let the server notice and drop them
        stop.set()
        sampler.join()
        after = rss_mb(pid)
    print(f"{args.sessions} sessions for {args.seconds:g} s ({wall:.0f} s with the last actions); "
          f"arena max {env.get('MALLOC_ARENA_MAX', 'default')}")  # fmt: skip
    print(
        "load average (1, 5, 15 min) before: {:.1f} {:.1f} {:.1f}; at the end: {:.1f} {:.1f} "
        "{:.1f} ({} cores)".format(*load_before, *load_during, os.cpu_count())
    )
    print(f"server CPU {cpu:.0f} s in {wall:.0f} s wall: {cpu / wall / os.cpu_count():.0%} of the "
          "machine (the rest: the sessions' browser pages)")  # fmt: skip
    print("browser actions (to the page idle in chromium, on the same 2 cores):")
    for action, ts in sorted(times.items()):
        print(f"  {action:7s} n={len(ts):4d}  {percentiles(ts)}")
    server_runs(runs)
    bound = before + args.cache_mb
    print(f"server RSS: bare server {bare:.0f} MB; before (base: every page used once) "
          f"{before:.0f} MB, peak {max(peak):.0f} MB, after {after:.0f} MB; "
          f"base + cache budget = {bound:.0f} MB: after is "
          f"{'within' if after <= bound else 'OVER'} it, peak is "
          f"{'within' if max(peak) <= bound else 'over'} it")  # fmt: skip
    print(f"errors: {len(errors)}")
    for e in errors[:10]:
        print("  " + e)
    if args.hostile:
        sys.exit(0 if hostile_verdict(timeline, closed, bound, after) else 1)


def hostile_verdict(
    timeline: list[tuple[float, float]], closed: float, bound: float, after: float
) -> bool:
    """Print the server's RSS over time (every 5 s: the highest sample of each interval) and
    whether it stayed under ``bound`` throughout and was under it at the end."""
    print(f"server RSS over time (MB; the sessions closed at {closed:.0f} s; bound {bound:.0f}):")
    by_slot: dict[int, float] = defaultdict(float)
    for t, mb in timeline:
        by_slot[int(t // 5)] = max(by_slot[int(t // 5)], mb)
    for slot, mb in sorted(by_slot.items()):
        mark = "" if mb <= bound else "  OVER"
        print(f"  {5 * slot:4d} s  {mb:7.0f}{mark}")
    throughout = all(mb <= bound for _, mb in timeline)
    print(f"hostile: under base + budget throughout: {throughout}; "
          f"under it after the settle: {after <= bound}")  # fmt: skip
    return throughout and after <= bound


if __name__ == "__main__":
    main()
