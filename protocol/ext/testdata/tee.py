#!/usr/bin/env python3
"""Test helper: runs a program (argv[2:]) as ext/stdio would, recording
every event line ("E ...") and every reply line ("R ...") into a file of
the directory argv[1], one file per program."""
import os
import subprocess
import sys

record = open(os.path.join(sys.argv[1], "tee-%d.txt" % os.getpid()), "w")
prog = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for line in sys.stdin:
    record.write("E " + line)
    prog.stdin.write(line)
    prog.stdin.flush()
    reply = prog.stdout.readline()
    record.write("R " + reply)
    record.flush()
    sys.stdout.write(reply)
    sys.stdout.flush()
