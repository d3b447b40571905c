#!/usr/bin/env python3
"""The outside reference for Courier's WebSocket benchmark: the `websockets` package's own client
(the library scripts/servers/websocket.py is built on) against that server's /echo route.

    "$venv/bin/python" scripts/bench_ws.py [--rounds N] [--round-trips N] [--messages N] [--size BYTES]
                                           [--client sync|asyncio] [--deflate] WS_URL
    "$venv/bin/python" scripts/bench_ws.py --program roundtrip|throughput [--client …] [--deflate]
                                           WS_URL COUNT [CONCURRENCY]

WS_URL is the server's base URL (ws://127.0.0.1:PORT, as COURIER_WS_URL); /echo is appended.
Two scenarios, each on one connection opened before the clock starts:
- round trips: COUNT times, send a 32-byte text message and wait for its echo (one at a time);
  the rate is round trips per second;
- throughput: COUNT times, send a 1 MiB binary message (random bytes) and wait for its echo; the
  rate is messages per second, and megabytesPerSecond = 1,048,576 bytes × rate / 10^6 (one
  direction: the bytes that came back).
The client is websockets' blocking one (websockets.sync.client) unless --client asyncio: on this
2-core machine both did about 5,300-5,500 round trips/s, and the blocking one 317 against 233
1 MiB messages/s (2026-12-02, median of 5 rounds; the Python server is the same for both, and
likely the bound). Compression is off unless --deflate (then the client offers permessage-deflate and /echo accepts it).
CPU is this process's user + system time (the client only; the server is another process).

Output, first form: one JSON object per line and per scenario, with the fields of courier-bench's
rows (scenario, implementation, medianPerSecond, minPerSecond, maxPerSecond,
cpuMicrosecondsPerRequest: per round trip or message) plus megabytesPerSecond (median) for the
throughput row and the settings (rounds, count, compression). Second form (--program): one line
"SECONDS CPU_SECONDS" for one round of COUNT operations, the contract of scripts/bench_ceiling.c,
so that courier-bench can run it as a program interleaved with its own rounds (CONCURRENCY must be 1).
"""
import argparse
import asyncio
import json
import os
import resource
import sys
import time

import websockets
from websockets.asyncio.client import connect as connect_asyncio
from websockets.sync.client import connect as connect_sync

SMALL = "x" * 32
LARGE_SIZE = 1 << 20


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def options(deflate):
    return {"compression": "deflate" if deflate else None, "max_size": None, "ping_interval": None}


async def round_asyncio(url, scenario, count, deflate):
    message = SMALL if scenario == "roundtrip" else os.urandom(LARGE_SIZE)
    async with connect_asyncio(url + "/echo", **options(deflate)) as ws:
        await ws.send(message)
        await ws.recv()
        start, cpu_start = time.perf_counter(), cpu_seconds()
        for _ in range(count):
            await ws.send(message)
            if len(await ws.recv()) != len(message):
                raise RuntimeError("the echo differs from the message")
        return time.perf_counter() - start, cpu_seconds() - cpu_start


def round_sync(url, scenario, count, deflate):
    message = SMALL if scenario == "roundtrip" else os.urandom(LARGE_SIZE)
    with connect_sync(url + "/echo", **options(deflate)) as ws:
        ws.send(message)
        ws.recv()
        start, cpu_start = time.perf_counter(), cpu_seconds()
        for _ in range(count):
            ws.send(message)
            if len(ws.recv()) != len(message):
                raise RuntimeError("the echo differs from the message")
        return time.perf_counter() - start, cpu_seconds() - cpu_start


def measure(url, scenario, count, client, deflate):
    if client == "sync":
        return round_sync(url, scenario, count, deflate)
    return asyncio.run(round_asyncio(url, scenario, count, deflate))


def row(name, implementation, samples, count, settings, extra=None):
    rates = sorted(count / seconds for seconds, _ in samples)
    cpus = sorted(cpu / count * 1e6 for _, cpu in samples)
    result = {
        "scenario": name, "implementation": implementation,
        "medianPerSecond": round(rates[len(rates) // 2], 1), "minPerSecond": round(rates[0], 1),
        "maxPerSecond": round(rates[-1], 1), "cpuMicrosecondsPerRequest": round(cpus[len(cpus) // 2], 1),
        "count": count, **settings,
    }
    if extra:
        result.update(extra(rates[len(rates) // 2]))
    return result


def main():
    parser = argparse.ArgumentParser(description="The websockets client as the WebSocket benchmark's outside reference.")
    parser.add_argument("--program", choices=["roundtrip", "throughput"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--round-trips", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=50)
    parser.add_argument("--client", choices=["sync", "asyncio"], default="sync")
    parser.add_argument("--deflate", action="store_true")
    parser.add_argument("url")
    parser.add_argument("count", type=int, nargs="?")
    parser.add_argument("concurrency", type=int, nargs="?", default=1)
    arguments = parser.parse_args()
    url = arguments.url.rstrip("/")
    # courier-bench passes the server's base as http(s), as Courier's clients take it.
    if url.startswith("http://") or url.startswith("https://"):
        url = "ws" + url[len("http"):]
    if arguments.program:
        if arguments.count is None or arguments.concurrency != 1:
            sys.exit("bench_ws.py --program SCENARIO URL COUNT [1]: one operation at a time")
        seconds, cpu = measure(url, arguments.program, arguments.count, arguments.client, arguments.deflate)
        print(f"{seconds:.6f} {cpu:.6f}")
        return
    implementation = f"python websockets {websockets.__version__} ({arguments.client} client, reference)"
    settings = {"rounds": arguments.rounds, "compression": arguments.deflate}
    for scenario, name, count, extra in [
        ("roundtrip", "WebSocket round trips, 32 B text", arguments.round_trips, None),
        ("throughput", "WebSocket 1 MiB messages, echoed", arguments.messages,
         lambda rate: {"megabytesPerSecond": round(rate * LARGE_SIZE / 1e6, 1)}),
    ]:
        samples = [measure(url, scenario, count, arguments.client, arguments.deflate)
                   for _ in range(arguments.rounds)]
        print(json.dumps(row(name, implementation, samples, count, settings, extra)), flush=True)


if __name__ == "__main__":
    main()
