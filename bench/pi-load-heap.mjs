#!/usr/bin/env node
// pi-load-heap.mjs: the heap pi 1.6.0's own loader needs for a session
// file, for bench/huge.sh (docs/performance.md, "Huge sessions").
//
// Usage: node --expose-gc pi-load-heap.mjs FILE   (give it a copy: pi's
// loadEntriesFromFile appends a newline to a file whose last line has none)
//
// Runs loadEntriesFromFile and buildSessionContext at the last entry, as
// pi does when it resumes a session, and prints one JSON object:
//   {"file":F,"entries":N,"messages":M,"heapUsedBytes":H,"heapLoadedBytes":L}
// heapUsedBytes is the largest heapUsed seen (after the load and after the
// context, each sampled before any collection), less the heap before;
// heapLoadedBytes what stays after a full collection with the entries and
// the context still held.
import * as session from "../conformance/node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";

const file = process.argv[2];
gc();
const base = process.memoryUsage().heapUsed;
let peak = 0;
const sample = () => { peak = Math.max(peak, process.memoryUsage().heapUsed - base); };
const entries = session.loadEntriesFromFile(file);
sample();
session.migrateSessionEntries(entries);
const body = entries.filter((e) => e.type !== "session");
const ctx = session.buildSessionContext(body, body[body.length - 1]?.id ?? null);
sample();
gc();
const loaded = process.memoryUsage().heapUsed - base;
process.stdout.write(`${JSON.stringify({ file, entries: entries.length, messages: ctx.messages.length, heapUsedBytes: peak, heapLoadedBytes: loaded })}\n`);
