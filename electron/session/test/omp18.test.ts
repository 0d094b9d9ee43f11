// oh-my-pi 18.3 (its session-entries.ts / session-title-slot.ts / session-context.ts are the reference):
// the record types, the header fields, the fixed-width title line rewritten in place, and the context as omp
// builds it for its record types.
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { EntryKind } from "../../../shared/skeleton";
import { computeTreeView } from "../../../shared/tree-view";
import { previewText } from "../../../shared/preview";
import { SessionManager } from "../index";
import { buildOmpContext } from "../formats/omp/context";
import { cleanupTempDirs, jsonl, writeTempFile } from "./helpers/files";
import { isOmpRecordKind } from "./helpers/match";
import { assistantMessage, userMessage } from "./helpers/messages";

afterAll(cleanupTempDirs);

/** omp's serializeTitleSlot: exactly 256 bytes including the newline, padded with spaces. */
function slotLine(title: string, updatedAt: string): string {
	const obj = { type: "title", v: 1, title, source: "auto", updatedAt, pad: "" };
	const pad = 255 - Buffer.byteLength(JSON.stringify(obj));
	const line = `${JSON.stringify({ ...obj, pad: " ".repeat(pad) })}\n`;
	expect(Buffer.byteLength(line)).toBe(256);
	return line;
}

const T = (s: number) => new Date(Date.UTC(2026, 5, 1) + s * 1000).toISOString();
const header = {
	type: "session",
	version: 3,
	id: "omp-1",
	title: "First title",
	titleSource: "auto",
	timestamp: T(0),
	cwd: "/w",
	additionalDirectories: ["/w2"],
	previousSessionFiles: ["/old/a.jsonl"],
};
const e = (type: string, id: string, parentId: string | null, s: number, extra: Record<string, unknown> = {}) => ({
	type,
	id,
	parentId,
	timestamp: T(s),
	...extra,
});
const m = (id: string, parentId: string | null, s: number, message: unknown) => ({ type: "message", id, parentId, timestamp: T(s), message });

function ompFile(): string {
	const records = [
		header,
		e("session_init", "si", null, 1, { systemPrompt: "You are omp", task: "fix it", tools: ["read", "bash"], agent: "scout" }),
		e("model_change", "mc", "si", 2, { model: "anthropic/claude-x", role: "default" }),
		e("service_tier_change", "st", "mc", 3, { serviceTier: { openai: "priority" } }),
		e("thinking_level_change", "tl", "st", 4, { thinkingLevel: "high", configured: "auto" }),
		m("u1", "tl", 5, userMessage("first question", 5)),
		m("a1", "u1", 6, assistantMessage("first answer", "claude-x", 6)),
		e("model_usage", "mu", "a1", 7, {
			purpose: "title",
			role: "tiny",
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-tiny",
			usage: { input: 100, output: 20, totalTokens: 120, cost: { total: 0.001 } },
			stopReason: "stop",
		}),
		e("title_change", "tc", "mu", 8, { title: "Second title", previousTitle: "First title", source: "auto", trigger: "first-turn" }),
		e("ttsr_injection", "tt", "tc", 9, { injectedRules: ["no-any", "tests-first"] }),
		e("mode_change", "md", "tt", 10, { mode: "plan", data: { planFile: "/w/PLAN.md" } }),
		e("credential_pin", "cp", "md", 11, { provider: "anthropic", hash: "abc123" }),
		m("u2", "cp", 12, userMessage("second question", 12)),
		m("a2", "u2", 13, assistantMessage("second answer", "claude-x", 13)),
		e("reset_boundary", "rb", "a2", 14),
		m("u3", "rb", 15, userMessage("after clear", 15)),
		m("a3", "u3", 16, assistantMessage("fresh answer", "claude-x", 16)),
	];
	return writeTempFile(slotLine("Second title", T(8)) + jsonl(records), "omp.jsonl", "omp");
}

describe("omp 18.3 records", () => {
	it("every record type has its own kind (parsed and skimmed alike); header fields are kept", () => {
		for (const lazy of [false, true]) {
			const sm = SessionManager.open(ompFile(), { lazy });
			const sk = sm.getSkeleton();
			const byId = (id: string) => sk.kind[sm.indexOf(id)];
			expect([byId("si"), byId("st"), byId("mu"), byId("tc"), byId("tt"), byId("md"), byId("cp"), byId("rb")]).toEqual([
				EntryKind.sessionInit,
				EntryKind.serviceTierChange,
				EntryKind.modelUsage,
				EntryKind.titleChange,
				EntryKind.ttsrInjection,
				EntryKind.modeChange,
				EntryKind.credentialPin,
				EntryKind.resetBoundary,
			]);
			for (const id of ["si", "st", "mu", "tc", "tt", "md", "cp", "rb"]) expect(isOmpRecordKind(byId(id))).toBe(true);
			expect(sk.tokens[sm.indexOf("mu")]).toBe(120);
			expect(sm.getHeader()).toMatchObject({
				title: "First title",
				titleSource: "auto",
				additionalDirectories: ["/w2"],
				previousSessionFiles: ["/old/a.jsonl"],
			});
			expect(sm.getTitleSlot()?.title).toBe("Second title");
			sm.close();
		}
	});

	it("tree: model_usage is hidden in every mode (as pi's usage), settings-like records only in 'all', reset_boundary shows", () => {
		const sm = SessionManager.open(ompFile());
		const sk = sm.getSkeleton();
		const rows = (filter: "default" | "all" | "no-tools") => Array.from(computeTreeView(sk, { filter }).rows, (i) => sk.ids[i]);
		expect(rows("default")).toEqual(["u1", "a1", "u2", "a2", "rb", "u3", "a3"]);
		expect(rows("no-tools")).toEqual(["u1", "a1", "u2", "a2", "rb", "u3", "a3"]);
		expect(rows("all")).toEqual(["si", "mc", "st", "tl", "u1", "a1", "tc", "tt", "md", "cp", "u2", "a2", "rb", "u3", "a3"]);
		sm.close();
	});

	it("as pi's tree selector would, omp records get no row text of their own (pi does not know them)", () => {
		expect(previewText(e("reset_boundary", "rb", null, 1) as never, () => undefined)).toBe("");
	});
});

describe("omp's title line rewritten in place (same size)", () => {
	function rewriteTitle(file: string, title: string, keepMtime: boolean): void {
		const before = statSync(file);
		const buf = readFileSync(file);
		const slot = Buffer.from(slotLine(title, T(99)));
		slot.copy(buf, 0);
		writeFileSync(file, buf);
		if (keepMtime) utimesSync(file, before.atime, before.mtime);
		expect(statSync(file).size).toBe(before.size);
	}

	it("noticed by the check before every write even when size and mtime stay the same; the write goes ahead and keeps the new title line", () => {
		const file = ompFile();
		const sm = SessionManager.open(file);
		const entries = sm.getEntryCount();
		rewriteTitle(file, "Third title", true);
		expect(sm.catchUp()).toEqual({ kind: "title_changed" });
		expect(sm.getTitleSlot()?.title).toBe("Third title");
		expect(sm.getEntryCount()).toBe(entries); // no reload
		rewriteTitle(file, "Fourth title", false);
		const id = sm.appendMessage(userMessage("after the rename"));
		expect(sm.getTitleSlot()?.title).toBe("Fourth title");
		const text = readFileSync(file, "utf8");
		expect(text.split("\n")[0]).toBe(slotLine("Fourth title", T(99)).trimEnd());
		const again = SessionManager.open(file);
		expect(again.getEntry(id)).toMatchObject({ parentId: "a3" });
		expect(again.getTitleSlot()?.title).toBe("Fourth title");
		again.close();
		sm.close();
	});

	it("a rename together with appended lines is reported with the append", () => {
		const file = ompFile();
		const sm = SessionManager.open(file);
		rewriteTitle(file, "Renamed", false);
		writeFileSync(file, `${readFileSync(file, "utf8")}${JSON.stringify(m("u4", "a3", 20, userMessage("more", 20)))}\n`);
		expect(sm.catchUp()).toEqual({ kind: "appended", count: 1, titleChanged: true });
		expect(sm.getTitleSlot()?.title).toBe("Renamed");
		sm.close();
	});

	it("a first line replaced by something else than a title slot reloads (the index no longer holds)", () => {
		const file = ompFile();
		const sm = SessionManager.open(file);
		const buf = readFileSync(file);
		Buffer.from(`{"type":"other"${" ".repeat(239)}}\n`).copy(buf, 0);
		writeFileSync(file, buf);
		expect(sm.catchUp().kind).toBe("reloaded");
		sm.close();
	});
});

describe("omp's model context for its records (session-context.ts)", () => {
	it("settings from the path (models by role, service tier, thinking, TTSR rules, mode) and the /clear boundary", () => {
		const sm = SessionManager.open(ompFile());
		const ctx = buildOmpContext(sm);
		expect(ctx.messages.map((x) => (x as { content: unknown }).content)).toEqual(["after clear", [{ type: "text", text: "fresh answer" }]]);
		expect(ctx).toMatchObject({
			thinkingLevel: "high",
			configuredThinkingLevel: "auto",
			serviceTier: { openai: "priority" },
			models: { default: "anthropic/claude-x" },
			injectedTtsrRules: ["no-any", "tests-first"],
			mode: "plan",
			modeData: { planFile: "/w/PLAN.md" },
		});
		// Before the boundary: the whole path (model_usage, title_change, credential_pin, session_init never reach the model).
		const before = buildOmpContext(sm, "a2");
		expect(before.messages.map((x) => (x as { role: string }).role)).toEqual(["user", "assistant", "user", "assistant"]);
		expect(buildOmpContext(sm, null)).toMatchObject({ messages: [], thinkingLevel: "off", models: {}, injectedTtsrRules: [], mode: "none" });
		sm.close();
	});
});
