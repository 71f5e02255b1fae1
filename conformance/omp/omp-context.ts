// omp-context.ts FILE...: prints, per file, what oh-my-pi 18's own code
// reads from it, as JSON Lines, for pisess's omp conformance test:
//
//	{"file", "header", "titleSlot", "malformed", "leaves": [{"leaf", "models",
//	  "thinkingLevel", "mode", "injectedTtsrRules", "roles", "messages"}]}
//
// It parses with omp's parseSessionContent (the slot stripped and folded
// into the header), migrates in memory (migrateToCurrentVersion) and runs
// buildSessionContext (the model context, not the transcript) for every
// leaf (an entry no other entry names as parent), default leaf first. It
// never writes: SessionManager.open would rewrite the file.
//
//	HOME=$(mktemp -d) node_modules/@oven/bun-linux-x64/bin/bun run omp-context.ts FILE...
import * as fs from "node:fs";
import { parseSessionContent } from "@oh-my-pi/pi-coding-agent/session/session-loader";
import { migrateToCurrentVersion } from "@oh-my-pi/pi-coding-agent/session/session-migrations";
import { buildSessionContext } from "@oh-my-pi/pi-coding-agent/session/session-context";

for (const file of process.argv.slice(2)) {
	const loaded = parseSessionContent(fs.readFileSync(file, "utf8"));
	const entries = loaded.invalidHeader ? [] : loaded.entries;
	migrateToCurrentVersion(entries);
	const header = entries.find(e => e.type === "session");
	const session = entries.filter(e => e.type !== "session") as never[];
	const parents = new Set(session.map((e: { parentId: string | null }) => e.parentId));
	const last = session.at(-1) as { id: string } | undefined;
	const leaves = session
		.map((e: { id: string }) => e.id)
		.filter(id => !parents.has(id) && id !== last?.id);
	if (last) leaves.unshift(last.id);
	const out = leaves.map(leaf => {
		const ctx = buildSessionContext(session, leaf);
		return {
			leaf,
			models: ctx.models,
			thinkingLevel: ctx.thinkingLevel,
			mode: ctx.mode,
			injectedTtsrRules: ctx.injectedTtsrRules,
			roles: ctx.messages.map(m => m.role),
			messages: ctx.messages,
		};
	});
	console.log(
		JSON.stringify({ file, header, titleSlot: loaded.titleSlot, malformed: loaded.malformedRecords, leaves: out }),
	);
}
