#!/usr/bin/env node
// pi-context.mjs: what pi itself makes of session files, for pisess's
// conformance test (internal/project/conformance_test.go). Two pinned pis
// are asked side by side: pi 1.6.0 (@earendil-works/pi-coding-agent), the
// reference for projection, and pi 0.73.1 (@mariozechner/pi-coding-agent),
// the last of the old package.
//
// Usage: node pi-context.mjs FILE...   (run with TZ=UTC)
//
// For every FILE it prints JSON Lines:
//   {"kind":"file","file":F,"session":true,"entries":N,"version":V,
//    "trees":{PI:{"roots":[i…],"children":[[i…]|null…],"labels":[string|null…]}|null},
//    "migrated":{PI:[record…]}}
//   {"kind":"context","file":F,"pi":PI,"leafIndex":i,"leafId":ID,"default":bool,
//    "messages":[…],"sources":[i…],"model":…,"thinkingLevel":…,"tokens":[n|null…],"contextTokens":n|null}
// where PI is "1.6.0" or "0.73.1". "migrated" (version 1 and 2 files only)
// holds every record, header first, after the pi's own migrateSessionEntries;
// "rewritten" (the same files) every record of the file pi 1.6.0's
// SessionManager.open rewrites when it migrates a copy of the file in a
// temporary directory ({"error": …} when open throws).
// One context line per pi for the default leaf (the last entry) and for every
// other leaf (entry that no entry names as its parent). "sources" (pi 1.6.0
// only, from buildSessionProjection) gives the entry behind each message.
// Entries are referred to by their index among the entries (header
// excluded), because pi gives version-1 entries random ids. A context whose
// leaf sits on a parentId cycle is reported as {"error":"cycle"} (pi's own
// walk would never return); a tree is null when ids are not unique (pi's
// getTree can loop forever then); a file pi throws on gives a file record
// with "error"; a context pi throws on gives "error".
//
// Each file is read and parsed exactly as pi's loader does and migrated in
// memory; it is never opened with SessionManager.open or loadEntriesFromFile,
// which rewrite the file they are given: only a copy is (loaderEntries,
// rewrittenByOpen).

import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as compaction1 from "./node_modules/@earendil-works/pi-coding-agent/dist/core/compaction/compaction.js";
import * as session1 from "./node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";
import * as compaction0 from "./node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js";
import * as session0 from "./node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js";

const pis = [
	{ name: "1.6.0", session: session1, compaction: compaction1 },
	{ name: "0.73.1", session: session0, compaction: compaction0 },
];

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
function treeOf(pi, fileEntries, entries) {
	if (new Set(entries.map((e) => e.id)).size !== entries.length) return null;
	const sm = pi.session.SessionManager.inMemory("/");
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

function tokensOf(pi, messages) {
	const tokens = messages.map((m) => {
		try {
			return pi.compaction.estimateTokens(m);
		} catch {
			return null;
		}
	});
	let contextTokens = null;
	try {
		contextTokens = pi.compaction.estimateContextTokens(messages).tokens;
	} catch {}
	return { tokens, contextTokens };
}

// projectionOf asks pi for the context of a leaf; pi 1.6.0 also says which
// entry each message came from.
function projectionOf(pi, entries, leafId, byId) {
	if (!pi.session.buildSessionProjection) {
		return pi.session.buildSessionContext(entries, leafId, byId);
	}
	const index = new Map(entries.map((e, i) => [e, i]));
	const p = pi.session.buildSessionProjection(entries, leafId, byId);
	const sources = p.entries.flatMap((pe) => pe.messages.map(() => index.get(pe.sourceEntry)));
	return { messages: p.messages, sources, model: p.model, thinkingLevel: p.thinkingLevel };
}

function contextFor(pi, file, entries, byId, leafIndex, isDefault) {
	const leaf = entries[leafIndex];
	const base = { kind: "context", file, pi: pi.name, leafIndex, leafId: leaf.id, default: isDefault };
	if (onCycle(leaf, byId)) return { ...base, error: "cycle" };
	try {
		const ctx = projectionOf(pi, entries, leaf.id, byId);
		return { ...base, ...ctx, ...tokensOf(pi, ctx.messages) };
	} catch (err) {
		return { ...base, error: String(err) };
	}
}

// loaderEntries is what pi 1.6.0's loadEntriesFromFile reads of file: it
// is run on a copy (it appends a missing final newline to the file it is
// given). Its exported parseSessionEntries, for tests, differs: it trims
// the whole text first (which strips a byte order mark) and keeps null.
function loaderEntries(file) {
	const dir = mkdtempSync(join(tmpdir(), "pisess-load-"));
	try {
		const copy = join(dir, "session.jsonl");
		copyFileSync(file, copy);
		return session1.loadEntriesFromFile(copy);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

// load parses and migrates the file as one pi's loader does (pi 0.73.1's
// loadEntriesFromFile is its parseSessionEntries of the text).
function load(pi, file, content) {
	const fileEntries = pi.name === "1.6.0" ? loaderEntries(file) : pi.session.parseSessionEntries(content);
	const header = fileEntries[0];
	if (!header || header.type !== "session" || typeof header.id !== "string") return null;
	const version = header.version ?? 1;
	pi.session.migrateSessionEntries(fileEntries);
	const entries = fileEntries.filter((e) => e.type !== "session");
	const byId = new Map();
	for (const e of entries) byId.set(e.id, e);
	return { fileEntries, entries, byId, version };
}

// rewrittenByOpen opens a copy of file with pi 1.6.0's SessionManager.open,
// which migrates a version-1/2 session in place, and returns the records of
// the file it wrote.
function rewrittenByOpen(file) {
	const dir = mkdtempSync(join(tmpdir(), "pisess-open-"));
	try {
		const copy = join(dir, "session.jsonl");
		copyFileSync(file, copy);
		session1.SessionManager.open(copy, dir);
		return readFileSync(copy, "utf8")
			.split("\n")
			.filter((l) => l !== "")
			.map((l) => JSON.parse(l));
	} catch (err) {
		return { error: String(err) };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

function run(file) {
	const content = readFileSync(file, "utf8");
	const loaded = pis.map((pi) => load(pi, file, content));
	if (loaded[0] === null) {
		emit({ kind: "file", file, session: false });
		return;
	}
	if (loaded.some((l) => l === null)) {
		emit({ kind: "file", file, session: true, error: "pi 0.73.1 refuses the file that pi 1.6.0 reads" });
		return;
	}
	const { entries, version } = loaded[0];
	const record = { kind: "file", file, session: true, entries: entries.length, version, trees: {} };
	pis.forEach((pi, k) => {
		record.trees[pi.name] = treeOf(pi, loaded[k].fileEntries, loaded[k].entries);
	});
	if (version < 3) {
		record.migrated = {};
		pis.forEach((pi, k) => {
			record.migrated[pi.name] = loaded[k].fileEntries;
		});
		record.rewritten = rewrittenByOpen(file);
	}
	emit(record);
	if (entries.length === 0) return;

	const parents = new Set(entries.map((e) => e.parentId).filter((p) => p && loaded[0].byId.has(p)));
	const last = entries.length - 1;
	const leaves = [last, ...[...entries.keys()].filter((i) => i !== last && !parents.has(entries[i].id))];
	for (const i of leaves) {
		pis.forEach((pi, k) => {
			emit(contextFor(pi, file, loaded[k].entries, loaded[k].byId, i, i === last));
		});
	}
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
