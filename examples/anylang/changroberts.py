#!/usr/bin/env python3
"""Chang and Roberts' ring election (seeds 000, 001, 004) as a manetlab node.

One JSON event per line on stdin, one JSON list of actions per line on
stdout (docs/anylang.md). A process forwards a token larger than its ID,
drops a smaller one, and is elected when its own token comes back; a
process that has not taken part wakes on its first token: a smaller one
it replaces by its own. The same rules, notes and counts as ring/chang-roberts.
"""
import json
import sys

me = epoch = leader = noted = 0
participant = initiator = False


def note(kind, **fields):
    return dict(do="note", note=kind, epoch=str(epoch), **fields)


def token(ident):
    return dict(do="ring_send", kind="token", body=dict(epoch=epoch, id=ident))


def follow(ident):
    """Note ident as the leader of this election, once."""
    global leader, noted
    if (leader, noted) == (ident, epoch):
        return []
    leader, noted = ident, epoch
    return [note("leader", leader=ident)]


def join(e, by_message):
    """Take part in election e; an initiator sends its own token."""
    global epoch, participant
    epoch, participant = e, not by_message or initiator
    acts = [note("election-start")]
    return acts + [token(me)] if participant else acts


def handle(ev):
    global me, epoch, leader, noted, initiator, participant
    kind = ev["event"]
    if kind == "init":  # a new node: forget everything
        me, epoch, leader, noted, participant = ev["id"], 0, 0, 0, False
        wanted = ev["params"].get("initiators", "all")
        initiator = wanted == "all" or me in wanted
        return [dict(do="set_timer", name="start", after=1.0)] if initiator else []
    if kind == "timer" and ev["name"] == "start":
        return join(epoch + 1, False) if epoch == 0 else []
    if kind == "describe":
        role = "participant" if participant else "asleep"
        return [dict(do="describe", text=f"{role}, election {epoch}, leader {leader}",
                     state=dict(epoch=epoch, participant=participant, leader=leader))]
    if kind != "recv":
        return []
    m, acts = ev["body"], []
    if m["epoch"] < epoch:
        return []
    if m["epoch"] > epoch:
        acts = join(m["epoch"], True)
    if ev["kind"] == "elected":
        acts += follow(m["id"]) + [note("election-end")]
        return acts + ([dict(do="ring_send", kind="elected", body=m)] if m["id"] != me else [])
    if m["id"] == me:
        if participant:  # our token went round: no larger process
            acts += follow(me) + [dict(do="ring_send", kind="elected", body=m)]
    elif m["id"] > me:
        participant = True
        acts.append(dict(do="ring_send", kind="token", body=m))
    elif not participant:
        participant = True
        acts.append(token(me))
    return acts


for line in sys.stdin:
    print(json.dumps(handle(json.loads(line))), flush=True)
