// Sessions written by omp 18.3.4's own SessionManager (loaded by omp-oracle.mjs under Bun): every record kind
// omp appends, branches, labels, a title slot, and compactions of each method, including provider-native ones
// (OpenAI remote with a replacement history, Anthropic server compaction) with their preserveData.
// omp writes into its MemorySessionStorage (its file storage takes an OS lock through pi-natives' addon,
// which the oracle does not load); the text omp serialised there is then saved byte for byte.
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

let storage;

let clock = Date.UTC(2026, 5, 1);
const user = (text) => ({ role: "user", content: text, timestamp: (clock += 1000) });
const usage = {
	input: 10,
	output: 5,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 15,
	cost: { input: 0.01, output: 0.02, cacheRead: 0, cacheWrite: 0, total: 0.03 },
};
const assistant = (content, extra = {}) => ({
	role: "assistant",
	content: typeof content === "string" ? [{ type: "text", text: content }] : content,
	api: "anthropic-messages",
	provider: "anthropic",
	model: "claude-x",
	usage,
	stopReason: "stop",
	timestamp: (clock += 1000),
	...extra,
});
const toolResult = (id, text) => ({
	role: "toolResult",
	toolCallId: id,
	toolName: "read",
	content: [{ type: "text", text }],
	isError: false,
	timestamp: (clock += 1000),
});

function turn(sm, n) {
	sm.appendMessage(user(`question ${n}`));
	sm.appendMessage(assistant([{ type: "toolCall", id: `call-${n}`, name: "read", arguments: { path: `f${n}.ts` } }], { stopReason: "toolUse" }));
	sm.appendMessage(toolResult(`call-${n}`, `contents of f${n}`));
	return sm.appendMessage(assistant(`answer ${n}`));
}

async function finish(sm, dir) {
	await sm.ensureOnDisk();
	await sm.flush();
	const inMemory = sm.getSessionFile();
	const text = await storage.readText(inMemory);
	await sm.close();
	const file = join(dir, basename(inMemory));
	writeFileSync(file, text);
	return file;
}

async function records(SessionManager, dir) {
	const sm = SessionManager.create("/work/project", dir, storage);
	sm.appendModelChange("anthropic/claude-x");
	sm.appendModelChange("openai/gpt-small", "smol");
	sm.appendThinkingLevelChange("high", "auto");
	sm.appendServiceTierChange({ openai: "priority" });
	const first = turn(sm, 1);
	sm.appendLabelChange(first, "checkpoint");
	sm.appendTtsrInjection(["no-any"]);
	sm.appendModeChange("plan", { step: 1 });
	const second = turn(sm, 2);
	sm.appendCustomMessageEntry("note", "a custom message for the model", true);
	sm.appendCustomEntry("state", { k: 1 });
	sm.appendModelUsage(
		{ purpose: "title", api: "openai-responses", provider: "openai", model: "gpt-small", usage, stopReason: "stop" },
		{ sessionId: sm.getSessionId(), parentId: sm.getLeafId() },
	);
	turn(sm, 3);
	// A side branch from the first answer, then back with a summary of the abandoned branch.
	sm.branch(first);
	turn(sm, 4);
	sm.branchWithSummary(second, "The user explored f4 on another branch.", { readFiles: ["f4.ts"] });
	turn(sm, 5);
	sm.appendLabelChange(first, undefined);
	sm.appendModeChange("none");
	sm.appendResetBoundary();
	turn(sm, 6);
	// A dangling tool call (no result on the path) and an aborted turn: omp strips / drops them.
	sm.appendMessage(user("question 7"));
	sm.appendMessage(assistant([{ type: "toolCall", id: "call-lost", name: "read", arguments: {} }], { stopReason: "toolUse" }));
	sm.appendMessage(user("question 8"));
	sm.appendMessage(assistant("partial", { stopReason: "aborted" }));
	sm.appendMessage(user("question 9"));
	sm.appendMessage(assistant("final"));
	await sm.setSessionName("Records of every kind", "user");
	return finish(sm, dir);
}

async function compactions(SessionManager, dir, method) {
	const sm = SessionManager.create("/work/project", dir, storage);
	sm.appendModelChange("anthropic/claude-x");
	const a = turn(sm, 1);
	const b = turn(sm, 2);
	const kept = sm.appendMessage(user("question 3 (kept)"));
	sm.appendMessage(assistant("answer 3"));
	if (method === "remote") {
		const preserveData = {
			openaiRemoteCompaction: {
				provider: "openai",
				replacementHistory: [
					{ type: "message", role: "user", content: [{ type: "input_text", text: "question 1" }] },
					{ type: "compaction", encrypted_content: "opaque-state" },
				],
			},
		};
		sm.appendCompaction("Remote summary.", "remote", kept, 5000, { method: "remote", preserveData, providerReplayThroughEntryId: b, tokensAfter: 900 });
	} else if (method === "anthropic") {
		const preserveData = { anthropicCompaction: { provider: "anthropic", content: "Server-side compacted state.", model: "claude-x", usedTokens: 1234 } };
		sm.appendCompaction("Anthropic summary.", "server", "", 5000, { method: "remote", preserveData, providerReplayThroughEntryId: a, tokensAfter: 800 });
	} else if (method === "snapcompact") {
		// A text-only archive (head and tail, no image frames): omp re-attaches it to the summary message as blocks.
		const preserveData = { snapcompact: { frames: [], textHead: "user: question 1\n", textTail: "assistant: answer 1\n", totalChars: 36, truncatedChars: 0 } };
		sm.appendCompaction("Snap summary.", "snap", kept, 5000, { method: "snapcompact", details: { readFiles: ["f1.ts"] }, preserveData, tokensAfter: 700 });
	} else {
		sm.appendCompaction("Plain summary.", undefined, kept, 5000, { details: { modifiedFiles: ["f2.ts"] } });
	}
	turn(sm, 4);
	// A second, newer compaction on a branch from before the first one: each path sees its own.
	if (method === "plain") {
		sm.branch(b);
		turn(sm, 5);
		sm.appendCompaction("Branch summary compaction.", undefined, sm.getLeafId(), 3000);
		turn(sm, 6);
	}
	return finish(sm, dir);
}

/** Writes the sessions into DIR/<name>/ and returns their paths. */
export async function writeSessions(SessionManager, MemorySessionStorage, dir) {
	storage = new MemorySessionStorage();
	const sub = (name) => {
		const d = join(dir, name);
		mkdirSync(d, { recursive: true });
		return d;
	};
	const files = [await records(SessionManager, sub("records"))];
	for (const method of ["plain", "snapcompact", "remote", "anthropic"]) files.push(await compactions(SessionManager, sub(method), method));
	return files;
}
