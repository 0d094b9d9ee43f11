// omp 18.3's provider-native compactions in its model context (session-context.ts buildSessionContext,
// non-transcript mode; the entry shape of session-manager.ts appendCompaction): an OpenAI remote compaction
// replays its replacement history instead of the kept entries, an Anthropic server compaction that kept
// nothing by id resumes after its replay snapshot, a snapcompact compaction keeps the ordinary range.
// Files are written with omp's key order and field names.
import { describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { buildOmpContext } from "../formats/omp/context";
import { writeSession } from "./helpers";

const t = (s: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, s)).toISOString();
const header = { type: "session", version: 3, id: "omp-native", timestamp: t(0), cwd: "/w" };
const user = (id: string, parentId: string | null, s: number) => ({
	type: "message",
	id,
	parentId,
	timestamp: t(s),
	message: { role: "user", content: `text of ${id}`, timestamp: s },
});
const assistant = (id: string, parentId: string, s: number) => ({
	type: "message",
	id,
	parentId,
	timestamp: t(s),
	message: {
		role: "assistant",
		content: [{ type: "text", text: `reply ${id}` }],
		api: "openai-responses",
		provider: "openai",
		model: "gpt-x",
		stopReason: "stop",
		timestamp: s,
		usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
	},
});
/** A compaction as omp's appendCompaction writes it (undefined fields dropped by JSON). */
const compaction = (
	id: string,
	parentId: string,
	s: number,
	o: { firstKeptEntryId: string; method?: string; providerReplayThroughEntryId?: string; preserveData?: unknown },
) => ({
	type: "compaction",
	id,
	parentId,
	timestamp: t(s),
	summary: `summary ${id}`,
	shortSummary: "short",
	firstKeptEntryId: o.firstKeptEntryId,
	tokensBefore: 5000,
	tokensAfter: 800,
	method: o.method,
	providerReplayThroughEntryId: o.providerReplayThroughEntryId,
	preserveData: o.preserveData,
});

// u1 a1 u2 a2 (the compaction's snapshot leaf) u3 a3 (landed while it ran) [c] u4 a4
function file(c: Record<string, unknown>): string {
	return writeSession(
		[
			user("u1", null, 1),
			assistant("a1", "u1", 2),
			user("u2", "a1", 3),
			assistant("a2", "u2", 4),
			user("u3", "a2", 5),
			assistant("a3", "u3", 6),
			{ ...c, parentId: "a3" },
			user("u4", "c", 8),
			assistant("a4", "u4", 9),
		],
		{ header },
	);
}

const replacementHistory = [
	{ type: "message", role: "user", content: [{ type: "input_text", text: "text of u1" }] },
	{ type: "compaction", encrypted_content: "gAAAA-opaque" },
];

function shape(sm: SessionManager): string[] {
	return buildOmpContext(sm).messages.map((m) => {
		const x = m as { role: string; content?: unknown; summary?: string };
		if (x.role === "compactionSummary") return `summary:${x.summary}`;
		return typeof x.content === "string" ? x.content : (x.content as { text: string }[])[0].text;
	});
}

describe("omp provider-native compactions in buildOmpContext", () => {
	it("OpenAI remote compaction: the replacement history rides on the summary, kept entries are not replayed, entries after the snapshot are", () => {
		const sm = SessionManager.open(
			file(
				compaction("c", "a3", 7, {
					firstKeptEntryId: "u2",
					method: "remote",
					providerReplayThroughEntryId: "a2",
					preserveData: { openaiRemoteCompaction: { provider: "openai", replacementHistory } },
				}),
			),
		);
		expect(shape(sm)).toEqual(["summary:summary c", "text of u3", "reply a3", "text of u4", "reply a4"]);
		const summary = buildOmpContext(sm).messages[0] as { providerPayload?: unknown; tokensBefore: number };
		expect(summary.providerPayload).toEqual({ type: "openaiResponsesHistory", provider: "openai", items: replacementHistory });
		expect(summary.tokensBefore).toBe(5000);
		// pi's context knows nothing of it: the ordinary kept range.
		expect(sm.buildSessionContext().messages).toHaveLength(1 + 4 + 2);
		sm.close();
	});

	it("OpenAI remote compaction without a replay snapshot (omp's Codex import: firstKeptEntryId is its own id): only the summary and what follows", () => {
		const sm = SessionManager.open(
			file(
				compaction("c", "a3", 7, {
					firstKeptEntryId: "c",
					preserveData: { openaiRemoteCompaction: { provider: "openai-codex", replacementHistory, compactionItem: { id: "x" } } },
				}),
			),
		);
		expect(shape(sm)).toEqual(["summary:summary c", "text of u4", "reply a4"]);
		sm.close();
	});

	it("a malformed remote payload (no provider, or a history item that is not an object) is an ordinary compaction", () => {
		for (const bad of [
			{ provider: "", replacementHistory },
			{ provider: "openai", replacementHistory: [...replacementHistory, "x"] },
			{ provider: "openai" },
		]) {
			const sm = SessionManager.open(
				file(compaction("c", "a3", 7, { firstKeptEntryId: "u3", providerReplayThroughEntryId: "a1", preserveData: { openaiRemoteCompaction: bad } })),
			);
			expect(shape(sm)).toEqual(["summary:summary c", "text of u3", "reply a3", "text of u4", "reply a4"]);
			expect((buildOmpContext(sm).messages[0] as { providerPayload?: unknown }).providerPayload).toBeUndefined();
			sm.close();
		}
	});

	it("Anthropic server compaction that kept nothing by id resumes after its replay snapshot", () => {
		const sm = SessionManager.open(
			file(
				compaction("c", "a3", 7, {
					firstKeptEntryId: "",
					providerReplayThroughEntryId: "a2",
					method: "remote",
					preserveData: { anthropicCompaction: { provider: "anthropic", content: "native summary", encrypted_content: "opaque" } },
				}),
			),
		);
		expect(shape(sm)).toEqual(["summary:summary c", "text of u3", "reply a3", "text of u4", "reply a4"]);
		sm.close();
		// A firstKeptEntryId on the path still wins over the snapshot.
		const kept = SessionManager.open(
			file(
				compaction("c", "a3", 7, {
					firstKeptEntryId: "a1",
					providerReplayThroughEntryId: "a2",
					preserveData: { anthropicCompaction: { provider: "anthropic", content: "native summary" } },
				}),
			),
		);
		expect(shape(kept)).toEqual(["summary:summary c", "reply a1", "text of u2", "reply a2", "text of u3", "reply a3", "text of u4", "reply a4"]);
		kept.close();
		// Without the Anthropic slot an empty firstKeptEntryId keeps nothing.
		const plain = SessionManager.open(file(compaction("c", "a3", 7, { firstKeptEntryId: "", providerReplayThroughEntryId: "a2" })));
		expect(shape(plain)).toEqual(["summary:summary c", "text of u4", "reply a4"]);
		plain.close();
	});

	it("the summary message has omp 18.3.4's fields: shortSummary, tokensAfter, method, the Anthropic payload with its signature, historyRewriteAt", () => {
		// omp 18.3.4's own build (dist/cli.js) keeps `signature` in the payload and `historyRewriteAt` on the
		// message; the newest published pi-agent-core (18.2.11, what the Bun oracle loads) has neither.
		const slot = { provider: "anthropic", content: "native summary", signature: "sig", encryptedContent: "", filesText: "files", model: "m", usedTokens: 9 };
		const snap = SessionManager.open(
			file(
				compaction("c", "a3", 7, { firstKeptEntryId: "", providerReplayThroughEntryId: "a2", method: "remote", preserveData: { anthropicCompaction: slot } }),
			),
		);
		const [m] = buildOmpContext(snap).messages as any[];
		snap.close();
		// Retained from u3 (after the snapshot a2): 1 ms before it.
		expect(m).toEqual({
			role: "compactionSummary",
			summary: "summary c",
			shortSummary: "short",
			tokensBefore: 5000,
			tokensAfter: 800,
			method: "remote",
			providerPayload: { type: "anthropicCompaction", provider: "anthropic", content: "native summary", signature: "sig", filesText: "files" },
			historyRewriteAt: Date.parse(t(5)) - 1,
			timestamp: Date.parse(t(7)),
		});
		expect(Object.keys(m)).toEqual([
			"role",
			"summary",
			"shortSummary",
			"tokensBefore",
			"tokensAfter",
			"method",
			"providerPayload",
			"historyRewriteAt",
			"timestamp",
		]);
		// Kept by id from a1; nothing kept: the first entry after the compaction (u4).
		const byId = SessionManager.open(file(compaction("c", "a3", 7, { firstKeptEntryId: "a1", preserveData: { anthropicCompaction: slot } })));
		expect((buildOmpContext(byId).messages[0] as any).historyRewriteAt).toBe(Date.parse(t(2)) - 1);
		byId.close();
		const none = SessionManager.open(file(compaction("c", "a3", 7, { firstKeptEntryId: "c", preserveData: { anthropicCompaction: slot } })));
		expect((buildOmpContext(none).messages[0] as any).historyRewriteAt).toBe(Date.parse(t(8)) - 1);
		none.close();
		// No provider: not an Anthropic payload (omp's rule), so no payload and no rewrite mark.
		const bare = SessionManager.open(
			file(compaction("c", "a3", 7, { firstKeptEntryId: "", providerReplayThroughEntryId: "a2", preserveData: { anthropicCompaction: { content: "x" } } })),
		);
		const b = buildOmpContext(bare).messages[0] as any;
		expect(b.providerPayload).toBeUndefined();
		expect(b.historyRewriteAt).toBeUndefined();
		bare.close();
	});

	it("snapcompact compaction: the ordinary kept range (its frames are in preserveData.snapcompact)", () => {
		const sm = SessionManager.open(
			file(
				compaction("c", "a3", 7, {
					firstKeptEntryId: "u3",
					method: "snapcompact",
					preserveData: {
						snapcompact: {
							frames: [{ data: "iVBORw0KGgo=", mimeType: "image/png", font: "mono", variant: "dense" }],
							textHead: "head",
							textTail: "tail",
							truncatedChars: 0,
						},
					},
				}),
			),
		);
		expect(shape(sm)).toEqual(["summary:summary c", "text of u3", "reply a3", "text of u4", "reply a4"]);
		sm.close();
	});
});
