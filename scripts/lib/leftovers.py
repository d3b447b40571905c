#!/usr/bin/env python3
"""Fails when processes a run started outlive it; kills them first.

    python3 scripts/lib/leftovers.py NAME=VALUE

scripts/test exports a variable only its own run has (COURIER_TEST_RUN, its scratch folder), so
every process it starts carries it in its environment: the servers of scripts/lib/servers.sh,
gunicorn's workers, and the servers the Swift tests spawn themselves (scripts/servers/proxy.py,
tls.py). When the run ends, none of them may be left. This looks for processes whose environment
(/proc/PID/environ) holds NAME=VALUE, other than this one and its ancestors; gives them 5 s to end
(a server whose parent ended notices within half a second); then prints those still running,
sends them SIGTERM, then SIGKILL 2 s later, and exits 1. Linux only: without /proc it says so and
passes."""
import os
import signal
import sys
import time


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def running_with(marker, skipped):
    """(pid, command line) of each running process, not a zombie, whose environment holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in skipped:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                if marker not in environ.read().split(b"\0"):
                    continue
            with open(f"/proc/{entry}/stat") as stat:
                if stat.read().rpartition(")")[2].split()[0] == "Z":
                    continue
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue  # ended meanwhile, or not ours to read
        found.append((int(entry), command))
    return found


def main():
    if len(sys.argv) != 2 or "=" not in sys.argv[1]:
        sys.exit(__doc__)
    if not os.path.isdir("/proc"):
        print("leftovers: no /proc here, so processes left running are not looked for")
        return 0
    marker = sys.argv[1].encode()
    skipped, pid = set(), os.getpid()
    while pid > 0:
        skipped.add(pid)
        pid = parent_of(pid)
    deadline = time.monotonic() + 5
    while (left := running_with(marker, skipped)) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not left:
        print("No process of this run is left running")
        return 0
    print(f"error: {len(left)} process(es) of this run still running after it ended (now killed):", file=sys.stderr)
    for pid, command in left:
        print(f"  {pid}  {command}", file=sys.stderr)
    for sent in (signal.SIGTERM, signal.SIGKILL):
        for pid, _ in left:
            try:
                os.kill(pid, sent)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 2
        while (left := running_with(marker, skipped)) and time.monotonic() < deadline:
            time.sleep(0.1)
        if not left:
            break
    return 1


if __name__ == "__main__":
    sys.exit(main())
