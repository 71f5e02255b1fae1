#!/usr/bin/env python3
"""Generate the sessions of docs/performance.md, "Export: every branch, streamed".

    python3 bench/exportgen.py many /tmp/exp-many.jsonl 300000000  # 212,002 entries, a branch every 200
    python3 bench/exportgen.py one  /tmp/exp-one.jsonl  60000000   # one 62 MB user message
    python3 bench/exportgen.py lt   /tmp/exp-lt.jsonl   60000000   # a 61 MB text and tool result full of <, & and `

sessiongen writes files of at most 32 MB; these are one file each, version 3,
seeded (the same bytes every run).
"""
import json
import random
import sys

WORDS = ("the of and to in is that for it as with was on be by this are or at from have an not but "
         "which all can has more one code file test function error value return line path tree node "
         "branch leaf session entry").split()
MARKUP = "the of and <b>bold</b> to in a <div> & code `x` file\n".split(" ")


def text(n, words=WORDS, breaks=0.08):
    out, size = [], 0
    while size < n:
        w = random.choice(words)
        out.append(w)
        size += len(w) + 1
        if breaks and random.random() < breaks:
            out.append("\n")
            size += 1
    return " ".join(out)


def ts(i):
    return "2026-01-%02dT%02d:%02d:%02d.%03dZ" % (1 + i // 8640000 % 28, (i // 360000) % 24, (i // 6000) % 60, (i // 100) % 60, (i % 100) * 10)


def entry(eid, parent, i, msg):
    return json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": ts(i), "message": msg}) + "\n"


def assistant(content, i, stop="stop"):
    return {"role": "assistant", "content": content, "provider": "p", "model": "m",
            "usage": {"input": 1000, "output": 100, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1100, "cost": {"total": 0.01}},
            "stopReason": stop, "timestamp": i}


def many(f, target):
    size, i, parent, ids = 0, 0, None, []
    while size < target:
        i += 1
        if i % 200 == 0 and len(ids) > 50:
            parent = ids[-50]  # a branch: back 50 entries
        eid = "e%07d" % i
        if i % 3 == 1:
            msg = {"role": "user", "content": text(random.randint(100, 1500)), "timestamp": i}
        elif i % 3 == 2:
            msg = assistant([{"type": "text", "text": text(random.randint(100, 1500))},
                             {"type": "toolCall", "id": "c%d" % i, "name": "bash", "arguments": {"command": "ls -la " + text(30)}}], i, "toolUse")
        else:
            msg = {"role": "toolResult", "toolCallId": "c%d" % (i - 1), "toolName": "bash",
                   "content": [{"type": "text", "text": text(random.randint(200, 3000))}], "isError": False, "timestamp": i}
        line = entry(eid, parent, i, msg)
        f.write(line)
        size += len(line)
        ids.append(eid)
        parent = eid


def one(f, target):
    f.write(entry("u1", None, 1, {"role": "user", "content": text(target), "timestamp": 1}))
    f.write(entry("a1", "u1", 2, assistant([{"type": "text", "text": "Read it."}], 2)))


def lt(f, target):
    random.seed(2)
    t = text(target, MARKUP, 0)
    f.write(entry("u1", None, 1, {"role": "user", "content": "run it", "timestamp": 1}))
    f.write(entry("a1", "u1", 2, assistant([{"type": "text", "text": t}], 2)))
    f.write(entry("a2", "u1", 3, assistant([{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "cat big"}}], 3, "toolUse")))
    f.write(entry("t1", "a2", 4, {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                                   "content": [{"type": "text", "text": t}], "isError": False, "timestamp": 4}))


def main():
    kind, path, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
    random.seed(1)
    with open(path, "w") as f:
        f.write(json.dumps({"type": "session", "version": 3, "id": kind, "timestamp": ts(0), "cwd": "/w"}) + "\n")
        {"many": many, "one": one, "lt": lt}[kind](f, target)


main()
