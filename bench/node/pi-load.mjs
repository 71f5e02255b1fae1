#!/usr/bin/env node
// pi-load.mjs: pi's own load path, timed for `make bench` (bench/run.sh).
//
// Usage: node pi-load.mjs [--pi 1.6.0] FILE|DIR...
//
// --pi 1.6.0 takes pi 1.6.0's session-manager.js from conformance/ (npm ci
// there); the default is pi 0.73.1 from bench/node.
//
// For every session file it does what pi does when it opens a session
// (SessionManager.setSessionFile in pi 0.73.1), using pi's own exported
// functions: loadEntriesFromFile (read the whole file, split lines,
// JSON.parse each, skip the lines that fail, check the header),
// migrateSessionEntries (v1/v2 -> v3 in memory), the index that
// _buildIndex builds (byId, leaf, labels), and buildSessionContext for the
// leaf. It never calls SessionManager.open, which rewrites migrated files:
// nothing is ever written.
//
// stdout: one line "files N entries N messages N bytes N ms T" where T is the
// time spent after the module import (so startup can be told apart).

import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = {
	"0.73.1": join(here, "node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js"),
	"1.6.0": join(here, "../../conformance/node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js"),
};
let args = process.argv.slice(2);
let pi = "0.73.1";
if (args[0] === "--pi") {
	pi = args[1];
	args = args.slice(2);
}
if (!modules[pi]) {
	process.stderr.write(`pi-load: --pi must be one of ${Object.keys(modules).join(", ")}\n`);
	process.exit(2);
}
const { buildSessionContext, loadEntriesFromFile, migrateSessionEntries } = await import(pathToFileURL(modules[pi]).href);

// sessionFiles expands directories into their *.jsonl files, sorted.
function sessionFiles(args) {
	const out = [];
	const walk = (p) => {
		if (statSync(p).isDirectory()) {
			for (const name of readdirSync(p).sort()) walk(join(p, name));
		} else if (p.endsWith(".jsonl") || args.includes(p)) {
			out.push(p);
		}
	};
	for (const a of args) walk(a);
	return out;
}

// load is pi's setSessionFile without the rewrite, then buildSessionContext().
function load(file) {
	const fileEntries = loadEntriesFromFile(file);
	if (fileEntries.length === 0) return { entries: 0, messages: 0 };
	migrateSessionEntries(fileEntries);
	const byId = new Map();
	const labels = new Map();
	let leafId = null;
	for (const e of fileEntries) {
		if (e.type === "session") continue;
		byId.set(e.id, e);
		leafId = e.id;
		if (e.type === "label") {
			if (e.label) labels.set(e.targetId, e.label);
			else labels.delete(e.targetId);
		}
	}
	const entries = fileEntries.filter((e) => e.type !== "session");
	const ctx = buildSessionContext(entries, leafId, byId);
	return { entries: entries.length, messages: ctx.messages.length };
}

const files = sessionFiles(args);
if (files.length === 0) {
	process.stderr.write("usage: node pi-load.mjs FILE|DIR...\n");
	process.exit(2);
}
const t0 = process.hrtime.bigint();
let entries = 0;
let messages = 0;
let bytes = 0;
for (const f of files) {
	bytes += statSync(f).size;
	try {
		const r = load(f);
		entries += r.entries;
		messages += r.messages;
	} catch (err) {
		process.stderr.write(`pi-load: ${f}: ${err}\n`);
	}
}
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
process.stdout.write(`files ${files.length} entries ${entries} messages ${messages} bytes ${bytes} ms ${ms.toFixed(1)}\n`);
