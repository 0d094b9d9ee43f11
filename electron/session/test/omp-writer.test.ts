// Whose file is it: the session core's sessionWriter rule (omp-context.ts) on every fixture, on files pi 1.6.0
// writes, on generated pi sessions and on omp-shaped files that each carry one omp-only mark; the path-only
// reader's `piOnly` fallback agrees with it; buildOmpContext names the entry behind every message.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writePi16Session } from "../../../shared/test/pi16-writer";
import { buildOmpContext, readPathContext, SessionManager, sessionWriter } from "../index";
import { cleanupTempDirs, copyFixture, copyToTemp, fixtureNames, jsonl, tempDir, writeTempFile } from "./helpers/files";
import { generatedSession } from "./helpers/gen";
import { assistantMessage, userMessage } from "./helpers/messages";

afterAll(cleanupTempDirs);

const T = (s: number) => new Date(Date.UTC(2026, 5, 1) + s * 1000).toISOString();
const pidHeader = { type: "session", version: 3, id: "s-1", timestamp: T(0), cwd: "/w" };
const m = (id: string, parentId: string | null, s: number, message: unknown) => ({ type: "message", id, parentId, timestamp: T(s), message });
const body = [m("u1", null, 1, userMessage("question", 1)), m("a1", "u1", 2, assistantMessage("answer", "claude-x", 2))];

function slotLine(title: string): string {
	const obj = { type: "title", v: 1, title, source: "auto", updatedAt: T(0), pad: "" };
	const pad = 255 - Buffer.byteLength(JSON.stringify(obj));
	return `${JSON.stringify({ ...obj, pad: " ".repeat(pad) })}\n`;
}

function writerOf(file: string): string {
	const sm = SessionManager.open(file);
	try {
		return sessionWriter(sm);
	} finally {
		sm.close();
	}
}

/** The path reader with piOnly: "omp file" for omp's files, otherwise what it reads without the option. */
function fastReason(file: string): string {
	const r = readPathContext(file, undefined, { piOnly: true });
	return r.ok ? "ok" : r.reason;
}

/** SOURCES.md: the only omp-written fixture is the one with omp's title line first. */
const OMP_FIXTURES = new Set(["formic__omp-session-titleslot.jsonl"]);

describe("sessionWriter: who wrote the file", () => {
	it("every fixture: omp's title-slot file is omp, every pi file is pi", () => {
		const names = fixtureNames();
		expect(names.length).toBeGreaterThanOrEqual(7);
		for (const name of names) expect([name, writerOf(copyFixture(name))]).toEqual([name, OMP_FIXTURES.has(name) ? "omp" : "pi"]);
	});

	it("files written by pi 1.6.0's own SessionManager (system, usage, context edits, compactions) are pi", () => {
		const dir = tempDir("arbor-writer-pi16");
		for (const seed of [1, 2]) {
			const f = writePi16Session(join(dir, `s${seed}`), { seed, turns: 6, staleUsageTail: seed === 2 });
			expect(writerOf(copyToTemp(f))).toBe("pi");
			expect(fastReason(f)).toBe("ok");
		}
	});

	it("generated pi sessions (branches, compactions, summaries, custom messages) are pi and take the fast path", () => {
		const f = generatedSession({ n: 400, seed: 3, branchEvery: 40, compactionEvery: 150, branchSummary: 2, customMessages: 3 });
		expect(writerOf(copyToTemp(f))).toBe("pi");
		expect(fastReason(f)).toBe("ok");
	});

	it("a plain header + messages is pi; each omp-only mark alone makes it omp", () => {
		const plain = writeTempFile(jsonl([pidHeader, ...body]));
		expect(writerOf(plain)).toBe("pi");
		expect(fastReason(plain)).toBe("ok");
		const cases: [string, string][] = [["title slot", slotLine("A title") + jsonl([pidHeader, ...body])]];
		for (const [field, value] of [
			["title", "T"],
			["titleSource", "user"],
			["additionalDirectories", ["/x"]],
			["previousSessionFiles", ["/old.jsonl"]],
			["providerPromptCacheKey", "k"],
		] as const) {
			cases.push([`header ${field}`, jsonl([{ ...pidHeader, [field]: value }, ...body])]);
		}
		const records: Record<string, Record<string, unknown>> = {
			model_usage: { purpose: "title", api: "a", provider: "p", model: "m", usage: { totalTokens: 1 }, stopReason: "stop" },
			service_tier_change: { serviceTier: "priority" },
			reset_boundary: {},
			title_change: { title: "New", source: "user" },
			ttsr_injection: { injectedRules: ["r"] },
			session_init: { systemPrompt: "p", task: "t", tools: [] },
			mode_change: { mode: "plan" },
			credential_pin: { provider: "p", hash: "h" },
		};
		for (const [type, extra] of Object.entries(records)) {
			// Both the key order omp writes (type, id, parentId first) and another one (skimmed, not fast-keyed).
			cases.push([`${type} entry`, jsonl([pidHeader, ...body, { type, id: "x1", parentId: "a1", timestamp: T(3), ...extra }])]);
			cases.push([`${type} entry, other key order`, jsonl([pidHeader, ...body, { id: "x1", timestamp: T(3), ...extra, parentId: "a1", type }])]);
			// Off the path: the rule is about the file, not the branch.
			cases.push([
				`${type} entry off the path`,
				jsonl([pidHeader, body[0], { type, id: "x1", parentId: "u1", timestamp: T(2), ...extra }, { ...body[1], timestamp: T(4) }]),
			]);
		}
		for (const [what, text] of cases) {
			const f = writeTempFile(text);
			expect([what, writerOf(f)]).toEqual([what, "omp"]);
			expect([what, fastReason(f)]).toEqual([what, "omp file"]);
			// Without piOnly the fast reader still reads omp files by pi's rules (as before).
			expect([what, readPathContext(f).ok]).toEqual([what, true]);
		}
	});

	it("pi's own look-alikes are not omp marks (model_change, session_info names, custom entries)", () => {
		const f = writeTempFile(
			jsonl([
				pidHeader,
				...body,
				{ type: "model_change", id: "mc", parentId: "a1", timestamp: T(3), provider: "p", modelId: "m" },
				{ type: "session_info", id: "si", parentId: "mc", timestamp: T(4), name: "A name" },
				{ type: "custom", id: "cu", parentId: "si", timestamp: T(5), customType: "mode_change", data: {} },
				{ type: "custom_message", id: "cm", parentId: "cu", timestamp: T(6), customType: "x", content: "c", display: true },
			]),
		);
		expect(writerOf(f)).toBe("pi");
		expect(fastReason(f)).toBe("ok");
	});
});

describe("buildOmpContext entryIds", () => {
	it("pairs each message with its entry through /clear, compaction and the dangling-tool-call cut", () => {
		const call = (id: string, parentId: string, s: number, callId: string) =>
			m(id, parentId, s, {
				...assistantMessage("", "claude-x", s),
				content: [
					{ type: "text", text: "calling" },
					{ type: "toolCall", id: callId, name: "read", arguments: {} },
				],
				stopReason: "toolUse",
			});
		const result = (id: string, parentId: string, s: number, callId: string) =>
			m(id, parentId, s, { role: "toolResult", toolCallId: callId, toolName: "read", content: [{ type: "text", text: "file" }], isError: false, timestamp: s });
		const f = writeTempFile(
			slotLine("t") +
				jsonl([
					pidHeader,
					...body,
					m("u2", "a1", 3, userMessage("second", 3)),
					call("a2", "u2", 4, "c1"),
					result("r2", "a2", 5, "c1"),
					{ type: "compaction", id: "c", parentId: "r2", timestamp: T(6), summary: "S", firstKeptEntryId: "u2", tokensBefore: 50 },
					m("u3", "c", 7, userMessage("third", 7)),
					call("a3", "u3", 8, "c-dangling"),
					{ type: "reset_boundary", id: "rb", parentId: "a3", timestamp: T(9) },
					m("u4", "rb", 10, userMessage("after clear", 10)),
					m("a4", "u4", 11, {
						...assistantMessage("", "claude-x", 11),
						content: [{ type: "toolCall", id: "gone", name: "read", arguments: {} }],
						stopReason: "toolUse",
					}),
				]),
		);
		const sm = SessionManager.open(f);
		const roles = (c: ReturnType<typeof buildOmpContext>) => c.messages.map((x, k) => `${c.entryIds[k]}:${(x as { role: string }).role}`);
		// After the /clear: u4, and a4 dropped entirely (its only block was a tool call without a result).
		expect(roles(buildOmpContext(sm))).toEqual(["u4:user"]);
		// Before it: the compaction summary, the kept range from u2, then a3 with its dangling call stripped.
		const at = buildOmpContext(sm, "a3");
		expect(roles(at)).toEqual(["c:compactionSummary", "u2:user", "a2:assistant", "r2:toolResult", "u3:user", "a3:assistant"]);
		expect((at.messages[5] as { content: unknown[] }).content).toEqual([{ type: "text", text: "calling" }]);
		expect(buildOmpContext(sm, null).entryIds).toEqual([]);
		sm.close();
	});
});
