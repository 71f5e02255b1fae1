#!/usr/bin/env node
// pi-fix-check.mjs: what pi 1.6.0 itself makes of a file that pisess
// unstick, slim, fork or recover-header wrote, for internal/fix's
// conformance test (internal/fix/conformance_test.go).
//
// Usage: node pi-fix-check.mjs FILE [LEAF_ID]
//
// FILE is copied first: pi's loadEntriesFromFile may append a newline to
// the file it reads. Prints one JSON object:
//   {"entries":N,"lines":L,"skipped":S,"header":bool,"leafId":ID,
//    "messages":[…],"unanswered":[callId…],"orphans":[callId…],
//    "maxContentBytes":B}
// where lines counts the non-blank lines, skipped the lines pi's loader
// dropped (L - N), header whether pi accepts the first record as a session
// header, messages buildSessionContext's messages for LEAF_ID (default:
// the last entry), unanswered the tool calls of a non-aborted assistant
// message with no toolResult before the next non-toolResult message (or the
// end), orphans the toolResults that answer no open call, and
// maxContentBytes the largest JSON.stringify(message.content) in UTF-8
// bytes.

import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as session from "./node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";

const [file, leafArg] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), "pi-fix-check-"));
const copy = join(dir, "s.jsonl");
copyFileSync(file, copy);
const lines = readFileSync(copy, "utf8").split("\n").filter((l) => l.trim() !== "").length;
const all = session.loadEntriesFromFile(copy);
rmSync(dir, { recursive: true, force: true });
const out = { entries: all.length, lines, skipped: lines - all.length, header: all.length > 0 };
if (all.length > 0) {
	session.migrateSessionEntries(all);
	const entries = all.filter((e) => e.type !== "session");
	const leafId = leafArg ?? entries[entries.length - 1]?.id ?? null;
	const ctx = session.buildSessionContext(entries, leafId);
	out.leafId = leafId;
	out.messages = ctx.messages;
	Object.assign(out, pairing(ctx.messages));
	out.maxContentBytes = Math.max(0, ...ctx.messages.map((m) => Buffer.byteLength(JSON.stringify(m.content ?? null))));
}
process.stdout.write(`${JSON.stringify(out)}\n`);

// pairing finds the calls without results and the results without calls,
// as pi-ai 1.6.0's transformMessages pairs them (system messages wait).
function pairing(messages) {
	const unanswered = [];
	const orphans = [];
	let open = [];
	const close = () => {
		unanswered.push(...open.filter((c) => !c.answered).map((c) => c.id));
		open = [];
	};
	for (const m of messages) {
		if (m.role === "system") continue;
		if (m.role === "toolResult") {
			const c = open.find((c) => c.id === m.toolCallId && !c.answered);
			if (c) c.answered = true;
			else orphans.push(m.toolCallId);
			continue;
		}
		close();
		if (m.role === "assistant" && m.stopReason !== "aborted" && m.stopReason !== "error" && Array.isArray(m.content)) {
			open = m.content.filter((b) => b.type === "toolCall").map((b) => ({ id: b.id, answered: false }));
		}
	}
	close();
	return { unanswered, orphans };
}
