#!/usr/bin/env python3
"""Ricart and Agrawala's mutual exclusion (seed 002) as a manetlab node.

One JSON event per line on stdin, one JSON list of actions per line on
stdout (docs/anylang.md). A node that wants the section sends a request
stamped (Lamport timestamp, ID) to every other member and enters once all
have replied; a node in the section, or wanting it with an earlier stamp,
defers its reply until it leaves: 2(n-1) messages per entry.
"""
import json
import sys

me, others = 0, []
state, queued, clock, req = "idle", 0, 0, 0
replied, deferred, seen = set(), [], {}


def send(to, kind, **body):
    return dict(do="reliable_send", to=to, kind=kind, body=body)


def ask():
    global clock, req, replied, state
    clock += 1
    req, replied, state = clock, set(), "wanting"
    return [send(o, "request", ts=req) for o in others] + try_enter()


def try_enter():
    global state
    if state == "wanting" and len(replied) == len(others):
        state = "holding"
        return [dict(do="note", note="cs-enter", text=f"request ({req}, {me}): {len(replied)} replies")]
    return []


def handle(ev):
    global me, others, state, queued, clock, req, replied, deferred, seen
    kind = ev["event"]
    if kind == "init":  # a new node: forget everything
        me, others = ev["id"], [m for m in ev["members"] if m != ev["id"]]
        state, queued, clock, req, replied, deferred, seen = "idle", 0, 0, 0, set(), [], {}
    elif kind == "command" and ev["name"] == "request":
        if state != "idle":
            queued += 1
            return [dict(do="note", note="cs-request")]
        return [dict(do="note", note="cs-request")] + ask()
    elif kind == "command" and ev["name"] == "release" and state == "holding":
        acts = [dict(do="note", note="cs-exit")] + [send(d, "reply", ts=clock, **{"for": t}) for t, d in deferred]
        state, req, deferred = "idle", 0, []
        if queued:
            queued -= 1
            acts += ask()
        return acts
    elif kind == "recv" and ev["kind"] == "request":
        ts, frm = ev["body"]["ts"], ev["from"]
        if ts <= seen.get(frm, 0):
            return []  # a duplicate
        seen[frm], clock = ts, max(clock, ts)
        if state == "holding" or state == "wanting" and (req, me) < (ts, frm):
            deferred.append((ts, frm))
            return []
        return [send(frm, "reply", ts=clock, **{"for": ts})]
    elif kind == "recv" and ev["kind"] == "reply":
        clock = max(clock, ev["body"]["ts"])
        if state == "wanting" and ev["body"]["for"] == req and ev["from"] not in replied:
            replied.add(ev["from"])
            return try_enter()
    elif kind == "describe":
        return [dict(do="describe", text=f"{state}, clock {clock}, request {req}, deferred {[d for _, d in deferred]}",
                     state=dict(state=state, clock=clock, req=req, replied=sorted(replied), deferred=deferred))]
    return []


for line in sys.stdin:
    print(json.dumps(handle(json.loads(line))), flush=True)
