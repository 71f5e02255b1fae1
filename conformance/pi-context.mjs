#!/usr/bin/env node
// pi-context.mjs: what pi itself makes of session files, for pisess's
// conformance test (internal/project/conformance_test.go).
//
// Usage: node pi-context.mjs FILE...   (run with TZ=UTC)
//
// For every FILE it prints JSON Lines:
//   {"kind":"file","file":F,"session":true,"entries":N,"tree":{"roots":[i…],"children":[[i…]|null…],"labels":[string|null…]}}
//   {"kind":"context","file":F,"leafIndex":i,"leafId":ID,"default":bool,
//    "messages":[…],"model":…,"thinkingLevel":…,"tokens":[n…],"contextTokens":n}
// one context line for the default leaf (the last entry) and one for every
// other leaf (entry that no entry names as its parent). Entries are referred
// to by their index among the entries (header excluded), because pi gives
// version-1 entries random ids. A context whose leaf sits on a parentId cycle
// is reported as {"error":"cycle"} (pi's own walk would never return); the
// tree is null when ids are not unique (pi's getTree can loop forever then);
// a file pi throws on gives a file record with "error".
//
// The file is read and parsed exactly as pi's loadEntriesFromFile does and
// migrated in memory with pi's own migrateSessionEntries; it is never opened
// with SessionManager.open, which rewrites files.

import { readFileSync } from "node:fs";
import {
	buildSessionContext,
	migrateSessionEntries,
	parseSessionEntries,
	SessionManager,
} from "./node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";
import {
	estimateContextTokens,
	estimateTokens,
} from "./node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js";

function emit(record) {
	process.stdout.write(`${JSON.stringify(record)}\n`);
}

// onCycle reports whether walking parentId up from leaf revisits an entry.
function onCycle(leaf, byId) {
	const seen = new Set();
	for (let e = leaf; e; e = e.parentId ? byId.get(e.parentId) : undefined) {
		if (seen.has(e)) return true;
		seen.add(e);
	}
	return false;
}

// treeOf returns pi's getTree() with entries as indices, or null when ids
// are not unique: getTree then shares one node between the entries of an id,
// which can make its node graph cyclic, and its sorting loop never ends.
function treeOf(fileEntries, entries) {
	if (new Set(entries.map((e) => e.id)).size !== entries.length) return null;
	const sm = SessionManager.inMemory("/");
	sm.fileEntries = fileEntries;
	sm._buildIndex();
	const index = new Map(entries.map((e, i) => [e, i]));
	const children = entries.map(() => null);
	const labels = entries.map(() => null);
	const roots = sm.getTree();
	const stack = [...roots];
	while (stack.length > 0) {
		const node = stack.pop();
		const i = index.get(node.entry);
		children[i] = node.children.map((c) => index.get(c.entry));
		labels[i] = node.label ?? null;
		stack.push(...node.children);
	}
	return { roots: roots.map((n) => index.get(n.entry)), children, labels };
}

function tokensOf(messages) {
	const tokens = messages.map((m) => {
		try {
			return estimateTokens(m);
		} catch {
			return null;
		}
	});
	let contextTokens = null;
	try {
		contextTokens = estimateContextTokens(messages).tokens;
	} catch {}
	return { tokens, contextTokens };
}

function contextFor(file, entries, byId, leafIndex, isDefault) {
	const leaf = entries[leafIndex];
	const base = { kind: "context", file, leafIndex, leafId: leaf.id, default: isDefault };
	if (onCycle(leaf, byId)) return { ...base, error: "cycle" };
	try {
		const ctx = buildSessionContext(entries, leaf.id, byId);
		return { ...base, ...ctx, ...tokensOf(ctx.messages) };
	} catch (err) {
		return { ...base, error: String(err) };
	}
}

function run(file) {
	const content = readFileSync(file, "utf8");
	const fileEntries = parseSessionEntries(content);
	const header = fileEntries[0];
	if (!header || header.type !== "session" || typeof header.id !== "string") {
		emit({ kind: "file", file, session: false });
		return;
	}
	migrateSessionEntries(fileEntries);
	const entries = fileEntries.filter((e) => e.type !== "session");
	const byId = new Map();
	for (const e of entries) byId.set(e.id, e);
	emit({ kind: "file", file, session: true, entries: entries.length, tree: treeOf(fileEntries, entries) });
	if (entries.length === 0) return;

	const parents = new Set(entries.map((e) => e.parentId).filter((p) => p && byId.has(p)));
	const last = entries.length - 1;
	emit(contextFor(file, entries, byId, last, true));
	entries.forEach((e, i) => {
		if (i !== last && !parents.has(e.id)) emit(contextFor(file, entries, byId, i, false));
	});
}

const files = process.argv.slice(2);
if (files.length === 0) {
	process.stderr.write("usage: node pi-context.mjs FILE...\n");
	process.exit(2);
}
for (const file of files) {
	try {
		run(file);
	} catch (err) {
		// pi itself throws on such a file (e.g. a line that is JSON but not an object).
		emit({ kind: "file", file, session: false, error: String(err) });
	}
}
