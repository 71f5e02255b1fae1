// gen.ts OUTDIR: writes oh-my-pi session files with omp's own
// SessionManager (@oh-my-pi/pi-coding-agent 18, run with Bun), for the
// corpus in testdata/corpus/omp/ and the omp conformance test.
//
//	cd conformance/omp && npm ci --ignore-scripts
//	HOME=$(mktemp -d) node_modules/@oven/bun-linux-x64/bin/bun run gen.ts OUTDIR
//
// Every file is written by omp's code (SessionManager.open on a new path,
// its append* methods, setSessionName, branch, branchWithSummary,
// rewriteEntries), never by hand, with one exception: omp-noslot.jsonl is
// omp-minimal.jsonl without its first line, the shape older omp wrote
// (header first, no title slot) and omp 18 still reads. Ids and timestamps
// are omp's own (random, the clock): two runs give different bytes, the same
// shapes. Message contents and usage figures are made up.
//
// Files:
//
//	omp-minimal.jsonl     slot, header, model_change, thinking_level_change,
//	                      a question, an answer with usage, a model_usage
//	                      entry (title generation), title_change
//	omp-noslot.jsonl      omp-minimal.jsonl without the slot
//	omp-everything.jsonl  all 16 entry types; two branch points, a
//	                      branch_summary, labels (set and cleared); the title
//	                      slot rewritten in place three times (auto, then
//	                      user); an image stored as a blob:sha256: reference;
//	                      a compaction with shortSummary, tokensAfter, method,
//	                      providerReplayThroughEntryId, preserveData, details
//	                      and warning; tool calls answered; a failed turn
//	omp-reset.jsonl       /clear: a reset_boundary after a compaction
//	omp-compacted.jsonl   a compaction whose kept range starts mid-path, a
//	                      model_change with role "smol", an aborted turn
import * as fs from "node:fs";
import * as path from "node:path";
import { SessionManager } from "@oh-my-pi/pi-coding-agent/session/session-manager";

const outDir = path.resolve(process.argv[2] ?? "out");
fs.mkdirSync(outDir, { recursive: true });

const ZERO_COST = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
let clock = Date.parse("2026-03-01T09:00:00Z");
const tick = () => (clock += 1000);

function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0) {
	return {
		input,
		output,
		cacheRead,
		cacheWrite,
		totalTokens: input + output + cacheRead + cacheWrite,
		cost: {
			input: input * 3e-6,
			output: output * 15e-6,
			cacheRead: cacheRead * 3e-7,
			cacheWrite: cacheWrite * 3.75e-6,
			total: input * 3e-6 + output * 15e-6 + cacheRead * 3e-7 + cacheWrite * 3.75e-6,
		},
	};
}

const user = (content: unknown) => ({ role: "user", content, timestamp: tick() }) as never;

function assistant(content: unknown[], u = usage(1200, 80, 0, 0), stopReason = "stop", extra: object = {}) {
	return {
		role: "assistant",
		content,
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: u,
		stopReason,
		timestamp: tick(),
		...extra,
	} as never;
}

function toolResult(toolCallId: string, toolName: string, text: string, isError = false) {
	return {
		role: "toolResult",
		toolCallId,
		toolName,
		content: [{ type: "text", text }],
		isError,
		timestamp: tick(),
	} as never;
}

async function open(name: string): Promise<SessionManager> {
	const file = path.join(outDir, name);
	fs.rmSync(file, { force: true });
	return SessionManager.open(file, outDir, undefined, { initialCwd: "/home/ana/src/shop" });
}

function titleUsage(sm: SessionManager, parentId: string | null) {
	return sm.appendModelUsage(
		{
			purpose: "title",
			role: "smol",
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-haiku-4-5",
			usage: usage(310, 12, 0, 0),
			stopReason: "stop",
		},
		{ sessionId: sm.getSessionId(), parentId },
	);
}

async function minimal() {
	const sm = await open("omp-minimal.jsonl");
	sm.appendModelChange("anthropic/claude-sonnet-4-5");
	sm.appendThinkingLevelChange("medium", "auto");
	const q = sm.appendMessage(user("Why does the cart total round down?"));
	titleUsage(sm, q);
	sm.appendMessage(
		assistant([{ type: "text", text: "Totals are summed in cents and then divided with integer division." }], usage(1500, 60, 200, 900)),
	);
	await sm.setSessionName("Cart total rounding", "auto", "first-message");
	await sm.flush();
	return sm.getSessionFile()!;
}

async function everything() {
	const sm = await open("omp-everything.jsonl");
	sm.appendSessionInit({
		systemPrompt: "You are a careful coding agent.",
		task: "Find why checkout fails for carts over 100 items.",
		tools: ["read", "bash", "edit"],
		agent: "scout",
		modelRole: "default",
		resolvedModel: "anthropic/claude-sonnet-4-5",
		readOnly: false,
	});
	sm.appendModelChange("anthropic/claude-sonnet-4-5");
	sm.appendModelChange("anthropic/claude-haiku-4-5", "smol");
	sm.appendThinkingLevelChange("high");
	sm.appendServiceTierChange({ anthropic: "priority" } as never);
	sm.appendCredentialPin("anthropic", "9f2c1d0e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d");
	// An image over omp's 1024-character threshold goes to the blob store and
	// the entry keeps a blob:sha256: reference.
	const png = Buffer.alloc(2048, 7).toString("base64");
	const q1 = sm.appendMessage(
		user([
			{ type: "text", text: "Checkout fails with large carts, screenshot attached." },
			{ type: "image", data: png, mimeType: "image/png" },
		]),
	);
	titleUsage(sm, q1);
	await sm.setSessionName("Checkout fails on large carts", "auto", "first-message");
	sm.appendTtsrInjection(["no-console-log", "prefer-early-return"]);
	const a1 = sm.appendMessage(
		assistant([
			{ type: "thinking", thinking: "Look at the cart limit first.", thinkingSignature: "sig-1" },
			{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "grep -rn MAX_ITEMS src" } },
		]),
	);
	sm.appendMessage(toolResult("call_1", "bash", "src/cart.ts:3:export const MAX_ITEMS = 100;"));
	const a2 = sm.appendMessage(assistant([{ type: "text", text: "MAX_ITEMS caps the cart at 100." }], usage(2100, 40, 1200, 0)));
	sm.appendLabelChange(a2, "cause");
	sm.appendModeChange("plan", { planFile: "/home/ana/src/shop/PLAN.md" });
	sm.appendCustomEntry("plan-state", { step: 1, of: 3 });
	sm.appendCustomMessageEntry("skill-prompt", "Follow the repository's checkout skill.", true, { skill: "checkout" }, "user");
	const q2 = sm.appendMessage(user("Raise the cap to 500 and add a test."));
	const a3 = sm.appendMessage(
		assistant([{ type: "toolCall", id: "call_2", name: "edit", arguments: { path: "src/cart.ts", old: "100", new: "500" } }]),
	);
	const r3 = sm.appendMessage(toolResult("call_2", "edit", "Edited src/cart.ts"));
	sm.appendModeChange("none");
	sm.appendMessage(assistant([{ type: "text", text: "Raised to 500." }], usage(2600, 20, 2000, 0)));

	// First branch point: back to q2, try another way with a summary of the abandoned one.
	sm.branchWithSummary(q2, "Tried raising MAX_ITEMS in place; the user wants it configurable instead.", { files: ["src/cart.ts"] });
	sm.appendMessage(user("Make the cap configurable instead."));
	sm.appendMessage(
		assistant([], usage(900, 0), "error", { errorMessage: "overloaded_error: Overloaded" }),
	);
	const a5 = sm.appendMessage(
		assistant([{ type: "text", text: "Added CART_MAX_ITEMS with a default of 100." }], usage(3000, 70, 2400, 300)),
	);
	sm.appendLabelChange(a2, undefined);
	await sm.setSessionName("Configurable cart cap", "user", "rename");

	// A compaction on this branch, with every omp-only field.
	const kept = a5;
	sm.appendCompaction("## Goal\nConfigurable cart cap.\n## Done\nCART_MAX_ITEMS added.", "Cart cap made configurable", kept, 48211, {
		tokensAfter: 3120,
		method: "soft",
		providerReplayThroughEntryId: a5,
		details: { readFiles: ["src/cart.ts"], modifiedFiles: ["src/cart.ts"] },
		preserveData: { plan: { step: 2 } },
		fromExtension: false,
	});
	const compaction = sm.getBranch().findLast(e => e.type === "compaction") as { warning?: string };
	compaction.warning = "Compaction freed too little context; clear large tool output.";
	await sm.rewriteEntries();
	sm.appendMessage(user("Now add the test."));
	sm.appendMessage(assistant([{ type: "text", text: "Test added in cart.test.ts." }], usage(3500, 50, 3000, 0)));

	// Second branch point: a /clear on a branch from a1's result.
	sm.branch(r3);
	sm.appendResetBoundary();
	sm.appendMessage(user("Start over: what does MAX_ITEMS guard against?"));
	sm.appendMessage(assistant([{ type: "text", text: "Memory use in the pricing step." }], usage(400, 15)));
	// Back to the compacted branch as the last written entry's branch.
	sm.branch(a1);
	sm.appendLabelChange(a1, "first-look");
	await sm.flush();
	return sm.getSessionFile()!;
}

async function reset() {
	const sm = await open("omp-reset.jsonl");
	sm.appendModelChange("openai/gpt-5.2");
	const q = sm.appendMessage(user("Summarise README.md"));
	const a = sm.appendMessage(
		assistant([{ type: "text", text: "It explains the build." }], usage(800, 30), "stop", { api: "openai-responses", provider: "openai", model: "gpt-5.2" }),
	);
	sm.appendCompaction("README explained.", undefined, a, 900, { method: "handoff" });
	sm.appendMessage(user("And CONTRIBUTING.md?"));
	sm.appendResetBoundary();
	sm.appendMessage(user("New topic: list the Makefile targets."));
	sm.appendMessage(
		assistant([{ type: "text", text: "build, test, lint." }], usage(500, 10), "stop", { api: "openai-responses", provider: "openai", model: "gpt-5.2" }),
	);
	void q;
	await sm.flush();
	return sm.getSessionFile()!;
}

async function compacted() {
	const sm = await open("omp-compacted.jsonl");
	sm.appendModelChange("anthropic/claude-sonnet-4-5");
	sm.appendMessage(user("Port the date helpers to Temporal."));
	sm.appendMessage(assistant([{ type: "text", text: "Ported formatDate." }], usage(2000, 100)));
	const q2 = sm.appendMessage(user("Now parseDate."));
	sm.appendMessage(assistant([{ type: "text", text: "Ported parseDate." }], usage(2500, 90, 1800, 0)));
	sm.appendCompaction("Ported formatDate.", "Temporal port, part 1", q2, 5200, { tokensAfter: 2600, method: "soft" });
	sm.appendModelChange("anthropic/claude-haiku-4-5", "smol");
	sm.appendMessage(user("And the tests?"));
	sm.appendMessage(
		assistant([{ type: "text", text: "Updating the te" }], usage(2800, 5, 2400, 0), "aborted", { errorMessage: "Request was aborted" }),
	);
	sm.appendMessage(user("Continue."));
	sm.appendMessage(assistant([{ type: "text", text: "Tests updated." }], usage(2900, 40, 2400, 0)));
	await sm.flush();
	return sm.getSessionFile()!;
}

const files = [await minimal(), await everything(), await reset(), await compacted()];
const minimalBytes = fs.readFileSync(files[0]);
const slotEnd = minimalBytes.indexOf(0x0a) + 1;
fs.writeFileSync(path.join(outDir, "omp-noslot.jsonl"), minimalBytes.subarray(slotEnd));
for (const file of files) console.log(path.relative(process.cwd(), file));
console.log(path.relative(process.cwd(), path.join(outDir, "omp-noslot.jsonl")));
