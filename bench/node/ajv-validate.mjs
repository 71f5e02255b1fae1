#!/usr/bin/env node
// ajv-validate.mjs: every line of session files checked with ajv (draft
// 2020-12) against pisess's own JSON Schemas (../../schema/*.json), timed
// for `make bench` (bench/run.sh).
//
// Usage: node ajv-validate.mjs FILE|DIR...
//
// Lines are read as pi reads them (the whole file, split on "\n",
// JSON.parse each; a line that fails to parse is counted and skipped) and
// dispatched to a schema as internal/validate/schemas.go does: the header
// (record 0, or any "session" record) by header.json; an entry by its type
// (entry-<type>.json, or its $defs/v1 variant in a version-1 file); a
// message entry by message.role, with the same glue schema pisess compiles
// (entry base + entry-message.json#/$defs/fields + role-<role>.json at
// /message); an unknown type is not checked; a missing or non-string type
// is checked against the entry base alone. Every schema is compiled before
// the clock starts.
//
// stdout: one line "files N lines N parse_errors N schema_invalid N bytes N ms T".

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";

const schemaDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "schema");
const base = "https://pisess.invalid/schema/";

const entryTypes = [
	"message", "model_change", "thinking_level_change", "usage", "compaction",
	"branch_summary", "custom", "custom_message", "context_edit", "label", "session_info",
];
const currentRoles = ["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary", "system"];
const legacyRole = "hookMessage";

// compileAll registers every schema file and compiles the checks per version.
function compileAll() {
	const ajv = new Ajv2020({ strict: false, allErrors: false });
	for (const name of readdirSync(schemaDir).filter((n) => n.endsWith(".json")).sort()) {
		const doc = JSON.parse(readFileSync(join(schemaDir, name), "utf8"));
		ajv.addSchema({ ...doc, $id: base + name });
	}
	const get = (file, ptr = "") => {
		const v = ajv.getSchema(base + file + (ptr ? `#${ptr}` : ""));
		if (!v) throw new Error(`no schema ${file}#${ptr}`);
		return v;
	};
	const glue = (version, role, baseRef) => {
		const parts = [{ $ref: baseRef }, { $ref: "entry-message.json#/$defs/fields" }];
		if (role) parts.push({ properties: { message: { $ref: `role-${role}.json` } } });
		const id = `${base}check-v${version}-message${role ? `-${role}` : ""}.json`;
		ajv.addSchema({ $schema: "https://json-schema.org/draft/2020-12/schema", $id: id, allOf: parts });
		return ajv.getSchema(id);
	};
	const checks = { header: get("header.json"), versions: [] };
	for (const version of [1, 2, 3]) {
		const variant = version === 1 ? "/$defs/v1" : "";
		const baseRef = `entry-base.json${variant ? `#${variant}` : ""}`;
		const vs = { untyped: get("entry-base.json", variant), entries: new Map(), roles: new Map() };
		for (const t of entryTypes) if (t !== "message") vs.entries.set(t, get(`entry-${t}.json`, variant));
		vs.message = glue(version, "", baseRef);
		const roles = version < 3 ? [...currentRoles, legacyRole] : currentRoles;
		for (const r of roles) vs.roles.set(r, glue(version, r, baseRef));
		checks.versions[version] = vs;
	}
	return checks;
}

// dispatch picks the check for a record, as Schemas.dispatch does; null: unchecked.
function dispatch(checks, version, v) {
	const vs = checks.versions[version];
	const typ = v.type;
	if (typ === "session") return checks.header;
	if (typeof typ !== "string") return vs.untyped;
	if (typ === "message") {
		const msg = v.message;
		if (msg === null || typeof msg !== "object" || Array.isArray(msg)) return vs.message;
		if (typeof msg.role !== "string") return vs.message;
		return vs.roles.get(msg.role) ?? vs.message; // an illegal role: pisess adds its own finding
	}
	return vs.entries.get(typ) ?? null;
}

function headerVersion(h) {
	if (!("version" in h)) return 1;
	return [1, 2, 3].includes(h.version) ? h.version : 0;
}

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

const files = sessionFiles(process.argv.slice(2));
if (files.length === 0) {
	process.stderr.write("usage: node ajv-validate.mjs FILE|DIR...\n");
	process.exit(2);
}
const checks = compileAll();
const t0 = process.hrtime.bigint();
const n = { lines: 0, parseErrors: 0, invalid: 0, bytes: 0 };
for (const f of files) {
	const content = readFileSync(f, "utf8");
	n.bytes += Buffer.byteLength(content);
	let version = 0;
	let record = 0;
	for (const line of content.split("\n")) {
		if (!line.trim()) continue;
		n.lines++;
		let v;
		try {
			v = JSON.parse(line);
		} catch {
			n.parseErrors++;
			continue;
		}
		if (v === null || typeof v !== "object" || Array.isArray(v)) continue;
		if (record++ === 0) {
			if (v.type !== "session") break; // not a session: pisess checks nothing further either
			version = headerVersion(v);
			if (!checks.header(v)) n.invalid++;
			continue;
		}
		if (version === 0) break;
		const check = dispatch(checks, version, v);
		if (check && !check(v)) n.invalid++;
	}
}
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
process.stdout.write(`files ${files.length} lines ${n.lines} parse_errors ${n.parseErrors} schema_invalid ${n.invalid} bytes ${n.bytes} ms ${ms.toFixed(1)}\n`);
