#!/usr/bin/env node
// pi-find.mjs: where pi 1.6.0 finds the sessions of a working directory,
// for internal/sessdir's conformance test of pisess move
// (internal/sessdir/conformance_test.go).
//
// Usage: node pi-find.mjs AGENT_DIR CWD
//
// With PI_CODING_AGENT_DIR=AGENT_DIR, prints one JSON object:
//   {"listed":[{"id","file"}…],"recent":FILE|null,"messages":[…]}
// listed is SessionManager.list(CWD) (what /resume shows), sorted by id;
// recent the file SessionManager.continueRecent(CWD) opens (pi -c), its
// name relative to AGENT_DIR/sessions, and messages its
// buildSessionContext(). pi may rewrite the file it opens (a version 1 or
// 2 file is migrated): give it a copy of the sessions directory.

import { relative, join } from "node:path";

const [agentDir, cwd] = process.argv.slice(2);
process.env.PI_CODING_AGENT_DIR = agentDir;
const { SessionManager } = await import("./node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js");
const sessions = join(agentDir, "sessions");
const listed = (await SessionManager.list(cwd))
	.map((s) => ({ id: s.id, file: relative(sessions, s.path) }))
	.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const sm = SessionManager.continueRecent(cwd);
const file = sm.getSessionFile();
const recent = file && listed.length > 0 ? relative(sessions, file) : null;
const messages = recent ? sm.buildSessionContext().messages : [];
process.stdout.write(JSON.stringify({ listed, recent, messages }) + "\n");
