// The skeleton's cost column (filled by the scan, no entry parsed) against the way roll-up costs were read
// before it existed: every cost-carrying entry parsed and its usage.cost.total taken. Same costs, same
// "bills its parent" records and so the same roll-ups, on every fixture (eager and lazy loading), on
// generated sessions, on sessions pi 1.6.0's own SessionManager wrote (usage lines, compactions and branch
// summaries with usage), on omp-shaped sessions with model_usage records, and after live appends.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { computeRollups } from "../../../shared/rollup";
import { EntryKind, applySkeletonDelta } from "../../../shared/skeleton";
import { writePi16Session } from "../../../shared/test/pi16-writer";
import { SessionManager } from "../../session";
import { FIXTURES, fixtureNames, generated, tempDir } from "../../session/test/helpers";
import { rollupCosts } from "../rollup";

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

function costOf(usage: unknown): number {
	if (!isRecord(usage) || !isRecord(usage.cost)) return 0;
	const t = usage.cost.total;
	return typeof t === "number" && Number.isFinite(t) ? t : 0;
}

/** The entry-reading path roll-up costs took before the cost column (kept here as the reference). */
function costsByReadingEntries(sm: SessionManager): { costs: number[]; usage: number[] } {
	const kinds = new Set<number>([EntryKind.assistant, EntryKind.compaction, EntryKind.branchSummary, EntryKind.usage, EntryKind.modelUsage, EntryKind.unknown]);
	const sk = sm.getSkeleton();
	const costs: number[] = new Array(sk.count).fill(0);
	const usage: number[] = [];
	for (let i = 0; i < sk.count; i++) {
		const k = sk.kind[i];
		if (!kinds.has(k)) continue;
		const e = sm.getEntryAt(i) as Record<string, unknown> | undefined;
		if (!e) continue;
		if (k === EntryKind.assistant) costs[i] = isRecord(e.message) ? costOf(e.message.usage) : 0;
		else costs[i] = costOf(e.usage);
		if (k === EntryKind.usage || k === EntryKind.modelUsage || e.type === "usage") usage.push(i);
	}
	return { costs, usage };
}

const plus0 = (a: ArrayLike<number>) => Array.from(a, (x) => x + 0);

/** Column == entry-reading path, and the roll-ups from the skeleton alone == roll-ups from the old inputs. */
function expectColumnMatches(sm: SessionManager, label: string): number {
	const sk = sm.getSkeleton();
	const old = costsByReadingEntries(sm);
	expect(plus0(sk.cost), label).toEqual(plus0(old.costs));
	const api = rollupCosts(sm);
	expect(plus0(api.costs), label).toEqual(plus0(old.costs));
	expect(api.usage, label).toEqual(old.usage);
	const set = new Set(old.usage);
	const before = computeRollups(sk, { costs: old.costs, attachToParent: (i) => set.has(i) });
	const now = computeRollups(sk);
	expect(plus0(now.cost), label).toEqual(plus0(before.cost));
	return old.costs.filter((c) => c !== 0).length;
}

/** An omp 18.3-shaped session: a generated conversation with model_usage records (omp's ModelUsageEntry) under assistant turns. */
function ompSession(n: number, seed: string): string {
	const src = generated(n, seed, ["--branch-every", "20"]);
	const lines = readFileSync(src, "utf8").split("\n").filter(Boolean);
	const out: string[] = [lines[0]];
	let k = 0;
	for (const l of lines.slice(1)) {
		out.push(l);
		const e = JSON.parse(l) as { id: string; timestamp: string; message?: { role?: string } };
		if (e.message?.role !== "assistant" || k++ % 3 !== 0) continue;
		const total = (k % 7) * 0.00137;
		out.push(
			JSON.stringify({
				type: "model_usage",
				id: `mu${k}`,
				parentId: e.id,
				timestamp: e.timestamp,
				purpose: k % 2 ? "title" : "memory",
				role: "smol",
				api: "anthropic-messages",
				provider: "anthropic",
				model: "claude-haiku",
				stopReason: "stop",
				usage: {
					input: 200 + k,
					output: 40,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 240 + k,
					premiumRequests: 0,
					cost: { input: total / 2, output: total / 2, cacheRead: 0, cacheWrite: 0, total },
				},
			}),
		);
	}
	const file = join(tempDir(), "omp.jsonl");
	writeFileSync(file, `${out.join("\n")}\n`);
	return file;
}

describe("the skeleton's cost column equals the entry-reading path", () => {
	it.each([false, true])("on every fixture (lazy %s)", (lazy) => {
		let costed = 0;
		for (const name of fixtureNames()) {
			const sm = SessionManager.open(join(FIXTURES, name), { lazy });
			costed += expectColumnMatches(sm, name);
			sm.close();
		}
		expect(costed).toBeGreaterThan(10);
	});

	it.each([false, true])("on generated sessions with branch summaries and compactions, pi 1.6.0-written sessions and omp model_usage (lazy %s)", (lazy) => {
		const files = [
			generated(2000, "cost1", ["--branch-every", "15", "--branch-summary", "0.5", "--compaction-every", "200"]),
			generated(1500, "cost2", ["--profile", "fixture"]),
			writePi16Session(join(tempDir(), "pi16"), { seed: 11, turns: 300, staleUsageTail: true }),
			ompSession(1500, "cost3"),
		];
		for (const f of files) {
			const sm = SessionManager.open(f, { lazy });
			const sk = sm.getSkeleton();
			expect(expectColumnMatches(sm, f)).toBeGreaterThan(50);
			if (f.endsWith("omp.jsonl")) {
				const mu = Array.from(sk.kind).filter((k) => k === EntryKind.modelUsage).length;
				expect(mu).toBeGreaterThan(50);
			}
			if (f.includes("pi16")) expect(Array.from(sk.kind).some((k, i) => k === EntryKind.usage && sk.cost[i] > 0)).toBe(true);
			sm.close();
		}
	});

	it("live appends (another writer's lines, Arbor's own writes) update the column, and the delta carries it", () => {
		const file = ompSession(300, "cost4");
		const sm = SessionManager.open(file);
		const sk0 = sm.getSkeleton();
		const last = sk0.ids[sk0.count - 1];
		const t = new Date(Date.UTC(2026, 5, 1)).toISOString();
		appendFileSync(
			file,
			[
				{
					type: "message",
					id: "live-a",
					parentId: last,
					timestamp: t,
					message: {
						role: "assistant",
						content: [{ type: "text", text: "ok" }],
						api: "x",
						provider: "p",
						model: "m",
						stopReason: "stop",
						timestamp: 1,
						usage: {
							input: 10,
							output: 2,
							cacheRead: 0,
							cacheWrite: 0,
							totalTokens: 12,
							cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.125 },
						},
					},
				},
				{
					type: "model_usage",
					id: "live-mu",
					parentId: "live-a",
					timestamp: t,
					purpose: "title",
					api: "x",
					provider: "p",
					model: "m",
					stopReason: "stop",
					usage: { input: 1, output: 1, totalTokens: 2, cost: { total: 0.0625 } },
				},
				{
					type: "usage",
					id: "live-u",
					parentId: "live-a",
					timestamp: t,
					kind: "cache_warm",
					provider: "p",
					model: "m",
					usage: { totalTokens: 1, cost: { total: 0.03125 } },
				},
			]
				.map((o) => `${JSON.stringify(o)}\n`)
				.join(""),
		);
		expect(sm.catchUp()).toMatchObject({ kind: "appended", count: 3 });
		sm.appendCompaction("summary", "live-a", 1000, undefined, false, { totalTokens: 5, cost: { total: 0.5 } });
		const sk1 = sm.getSkeleton();
		const merged = applySkeletonDelta(sk0, sm.getSkeletonDelta(sk0.count));
		expect(Array.from(merged.cost)).toEqual(Array.from(sk1.cost));
		const at = (id: string) => sk1.cost[sm.indexOf(id)];
		expect([at("live-a"), at("live-mu"), at("live-u"), sk1.cost[sk1.count - 1]]).toEqual([0.125, 0.0625, 0.03125, 0.5]);
		expectColumnMatches(sm, "after appends");
		// The hidden records bill the assistant turn they hang under.
		const r = computeRollups(merged);
		expect(r.cost[sm.indexOf("live-a")]).toBeCloseTo(0.125 + 0.0625 + 0.03125 + 0.5, 12);
		sm.close();
		const fresh = SessionManager.open(file);
		expect(Array.from(fresh.getSkeleton().cost)).toEqual(Array.from(sk1.cost));
		fresh.close();
	});
});
