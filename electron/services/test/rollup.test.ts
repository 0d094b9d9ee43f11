// Subtree roll-ups (shared/rollup.ts + services/rollup.ts) on real generated sessions and fixtures, checked
// against a brute-force walk of the raw JSONL: every entry's subtree count, tokens, cost, errors, span.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { computeRollups, formatRollup, rollupAt } from "../../../shared/rollup";
import { SessionManager } from "../../session";
import { rollupCosts, subtreeStats } from "../rollup";

const gen = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "tools", "gen-session.mjs");
const fixtures = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");
type Raw = Record<string, any> & { id: string; parentId: string | null };

describe("subtree roll-ups", () => {
	it("match a brute-force walk for every entry of a generated 3k-entry branching session", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-rollup-"));
		const file = join(dir, "s.jsonl");
		execFileSync(process.execPath, [gen, "--n", "3000", "--seed", "21", "--branch-every", "25", "--out", file]);
		const raw = readFileSync(file, "utf8")
			.split("\n")
			.filter(Boolean)
			.slice(1)
			.map((l) => JSON.parse(l) as Raw);
		const sm = SessionManager.open(file);
		const sk = sm.getSkeleton();
		const { costs, usage } = rollupCosts(sm);
		const usageSet = new Set(usage);
		const r = computeRollups(sk, { costs, attachToParent: (i) => usageSet.has(i) });
		const kids = new Map<string, Raw[]>();
		for (const e of raw) if (e.parentId) kids.set(e.parentId, [...(kids.get(e.parentId) ?? []), e]);
		let checked = 0;
		for (let i = 0; i < raw.length; i += 7) {
			const e = raw[i];
			let n = 0,
				tokens = 0,
				cost = 0,
				errors = 0,
				first = Infinity,
				last = -Infinity;
			const stack = [e];
			while (stack.length) {
				const x = stack.pop()!;
				n++;
				const m = x.message;
				if (x.type === "message" && m?.role === "assistant") {
					tokens += m.usage?.totalTokens ?? 0;
					cost += m.usage?.cost?.total ?? 0;
					if (m.stopReason === "error") errors++;
				}
				if (x.type === "message" && m?.role === "toolResult" && m.isError === true) errors++;
				if (x.type === "message" && m?.role === "bashExecution" && typeof m.exitCode === "number" && m.exitCode !== 0) errors++;
				const t = Date.parse(x.timestamp);
				first = Math.min(first, t);
				last = Math.max(last, t);
				stack.push(...(kids.get(x.id) ?? []));
			}
			const got = rollupAt(r, sm.indexOf(e.id));
			expect(got.entries).toBe(n);
			expect(got.tokens).toBe(tokens);
			expect(got.cost).toBeCloseTo(cost, 9);
			expect(got.errors).toBe(errors);
			expect(got.first).toBe(first);
			expect(got.spanMs).toBe(last - first);
			checked++;
		}
		expect(checked).toBeGreaterThan(400);
		sm.close();
	});

	it("a pi 1.x usage entry's cost counts into the entry it hangs under; files touched per subtree", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-rollup-"));
		const file = join(dir, "u.jsonl");
		const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
		const lines = [
			{ type: "session", version: 3, id: "s", timestamp: t(0), cwd: "/p" },
			{ type: "message", id: "u", parentId: null, timestamp: t(1), message: { role: "user", content: "hi" } },
			{
				type: "message",
				id: "a",
				parentId: "u",
				timestamp: t(2),
				message: {
					role: "assistant",
					content: [{ type: "toolCall", id: "c", name: "read", arguments: { path: "x.md" } }],
					stopReason: "toolUse",
					usage: { totalTokens: 10, cost: { total: 0.5 } },
				},
			},
			{
				type: "usage",
				id: "w",
				parentId: "a",
				timestamp: t(3),
				kind: "cache_warm",
				provider: "p",
				model: "m",
				usage: { totalTokens: 3, cost: { total: 0.25 } },
			},
			{ type: "message", id: "r", parentId: "a", timestamp: t(4), message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [] } },
		];
		writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
		const sm = SessionManager.open(file);
		const { costs, usage } = rollupCosts(sm);
		expect(usage).toEqual([sm.indexOf("w")]);
		const set = new Set(usage);
		const r = computeRollups(sm.getSkeleton(), { costs, attachToParent: (i) => set.has(i) });
		// The usage record's cost shows on "a" (and so on "u"), not on the usage record's own subtree.
		expect(rollupAt(r, sm.indexOf("a")).cost).toBeCloseTo(0.75, 12);
		expect(rollupAt(r, sm.indexOf("w")).cost).toBe(0);
		expect(rollupAt(r, sm.indexOf("u")).cost).toBeCloseTo(0.75, 12);
		const stats = subtreeStats(sm, "u");
		expect(stats).toMatchObject({ entries: 4, spanMs: 3000, files: { read: ["x.md"], edited: [], written: [] } });
		// The cache-warming call's tokens are spent too: 10 (assistant) + 3 (usage line).
		expect(formatRollup(stats)).toBe("4 entries · 13 tok · $0.75 · 3s");
		sm.close();
	});

	it("a fixture with orphans and no trailing newline: every entry is counted once under its root", () => {
		const sm = SessionManager.open(join(fixtures, "kuato__pi-session-orphan-no-eol.jsonl"));
		const sk = sm.getSkeleton();
		const r = computeRollups(sk);
		let total = 0;
		for (let i = 0; i < sk.count; i++) if (sk.parent[i] < 0) total += r.entries[i];
		expect(total).toBe(sk.count);
		sm.close();
	});
});
