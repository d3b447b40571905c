#!/usr/bin/env python3
"""Runs a command that SIGTERM and SIGINT can end: both unblocked and at their default action.

    python3 scripts/lib/killable.py COMMAND [ARGUMENT …]

A process inherits its signal mask and its ignored signals, and keeps them across exec: started by
a parent that blocks or ignores SIGTERM (Swift's Process and test runners can), `timeout` and
gunicorn never see the signal, and `kill` leaves them running. This resets both, then execs the
command in this process (same PID). scripts/lib/servers.sh starts httpbin and the Python servers
through it; the Python servers also reset the signals themselves (scripts/servers/common.py)."""
import os
import signal
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
for number in (signal.SIGTERM, signal.SIGINT):
    signal.signal(number, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_SETMASK, set())
os.execvp(sys.argv[1], sys.argv[1:])
