// Differential conformance: pi's own SessionManager (@mariozechner/pi-coding-agent 0.73.1) and Arbor's load
// the same bytes (separate copies: pi may rewrite a file on open) and must agree on leaf, tree shape
// (ids, children order, labels), getChildren, getBranch and buildSessionContext (JSON byte-equal).
// Where pi is wrong, the expected deviation is asserted in conformance-deviations.test.ts instead.
import { buildSessionContext as piBuildSessionContext, SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { applySkeletonDelta } from "../../../shared/skeleton";
import { SessionManager } from "../index";
import { writePi16Session } from "../../../shared/test/pi16-writer";
import { cleanupTempDirs, copyFixture, copyToTemp, fixtureNames, sha256, tempDir } from "./helpers/files";
import { type GenOptions, generatedSession } from "./helpers/gen";
import { userMessage } from "./helpers/messages";
import { compareSessions, type SessionLike, samplePoints } from "./helpers/snapshot";

afterAll(cleanupTempDirs);

function openBoth(source: string): { arbor: SessionManager; pi: PiSessionManager; arborCopy: string; piCopy: string; before: string } {
	const before = sha256(source);
	const arborCopy = copyToTemp(source, "arbor");
	const piCopy = copyToTemp(source, "pi");
	const pi = PiSessionManager.open(piCopy);
	const arbor = SessionManager.open(arborCopy);
	return { arbor, pi, arborCopy, piCopy, before };
}

function compare(arbor: SessionManager, pi: PiSessionManager, byId: boolean, maxSamples = Number.POSITIVE_INFINITY): string[] {
	const sample = samplePoints(pi.getEntries(), 25, maxSamples);
	return compareSessions(arbor as unknown as SessionLike, pi as unknown as SessionLike, { byId, sample });
}

describe("fixtures: Arbor agrees with pi on every fixture pi can read", () => {
	// Fixtures pi reads as they are (v3, valid header). Ids are shared, so every comparison is by id.
	const v3 = ["formic__pi-v3-branch-compaction.jsonl", "kimchi-dev__statsuline.v3.jsonl", "kuato__pi-session-orphan-no-eol.jsonl"];

	it("the fixture set is the one these tests were written for", () => {
		expect(fixtureNames()).toEqual(
			expect.arrayContaining([
				...v3,
				"formic__pi-v2-hook-message.jsonl",
				"pi-mono__large-session.v1.jsonl",
				"formic__omp-session-titleslot.jsonl",
				"pi-doctor__pi-session-v3-without-ids.jsonl",
			]),
		);
	});

	for (const name of v3) {
		it(`${name}: same leaf, tree, labels, children, branches and contexts as pi; bytes untouched`, () => {
			const { arbor, pi, arborCopy, before } = openBoth(copyFixture(name, "src"));
			expect(compare(arbor, pi, true)).toEqual([]);
			expect(arbor.getSessionId()).toBe(pi.getSessionId());
			expect(arbor.getCwd()).toBe(pi.getCwd());
			expect(arbor.getHeader().id).toBe(pi.getHeader()?.id);
			expect(arbor.needsUpgrade()).toBe(false);
			arbor.close();
			expect(sha256(arborCopy)).toBe(before);
		});
	}

	it("formic__pi-v2-hook-message.jsonl: pi migrates and rewrites; Arbor migrates in memory only and agrees with pi's result", () => {
		const { arbor, pi, arborCopy, piCopy, before } = openBoth(copyFixture("formic__pi-v2-hook-message.jsonl", "src"));
		expect(sha256(piCopy)).not.toBe(before); // pi rewrote its copy (v2 -> v3)
		expect(compare(arbor, pi, true)).toEqual([]);
		expect(arbor.getFileVersion()).toBe(2);
		expect(arbor.needsUpgrade()).toBe(true);
		arbor.close();
		expect(sha256(arborCopy)).toBe(before);
	});

	it("pi-mono__large-session.v1.jsonl: v1 -> v3 migration gives pi's tree and contexts (compared by file index: ids are random)", () => {
		const { arbor, pi, arborCopy, piCopy, before } = openBoth(copyFixture("pi-mono__large-session.v1.jsonl", "src"));
		expect(sha256(piCopy)).not.toBe(before);
		expect(compare(arbor, pi, false)).toEqual([]);
		expect(arbor.getFileVersion()).toBe(1);
		expect(arbor.needsUpgrade()).toBe(true);
		arbor.close();
		expect(sha256(arborCopy)).toBe(before);
	});

	it("pi-doctor__pi-session-v3-without-ids.jsonl: same entry count and same context at the loaded leaf as pi", () => {
		// pi indexes every id-less entry under `undefined` (tree = the last entry 15 times, leaf undefined);
		// the tree differs by design (conformance-deviations), the model context must not.
		const { arbor, pi, arborCopy, before } = openBoth(copyFixture("pi-doctor__pi-session-v3-without-ids.jsonl", "src"));
		expect(arbor.getEntries().length).toBe(pi.getEntries().length);
		expect(JSON.stringify(arbor.buildSessionContext())).toBe(JSON.stringify(pi.buildSessionContext()));
		expect(arbor.getTree().length).toBe(pi.getTree().length);
		arbor.close();
		expect(sha256(arborCopy)).toBe(before);
	});
});

/**
 * The skeleton the renderer draws from must describe pi's tree: parent index per entry (-1 for pi's roots),
 * resolved labels, the leaf. Returns the first disagreement, or [] when none.
 */
function skeletonVsPi(arbor: SessionManager, pi: PiSessionManager): string[] {
	const sk = arbor.getSkeleton();
	const entries = pi.getEntries();
	const out: string[] = [];
	if (sk.count !== entries.length) out.push(`count: skeleton ${sk.count}, pi ${entries.length}`);
	const index = new Map<string, number>();
	entries.forEach((e, i) => index.set(e.id, i));
	for (let i = 0; i < Math.min(sk.count, entries.length); i++) {
		const e = entries[i];
		if (sk.ids[i] !== e.id) {
			out.push(`ids[${i}]: skeleton ${sk.ids[i]}, pi ${e.id}`);
			break;
		}
		const p = e.parentId === null || e.parentId === e.id ? -1 : (index.get(e.parentId) ?? -1);
		if (sk.parent[i] !== p) {
			out.push(`parent[${i}] (${e.id}): skeleton ${sk.parent[i]}, pi ${p}`);
			break;
		}
	}
	const piLabels = entries.filter((e) => pi.getLabel(e.id) !== undefined).map((e) => [index.get(e.id), pi.getLabel(e.id)]);
	const skLabels = [...sk.labels].sort((a, b) => a.target - b.target).map((l) => [l.target, l.label]);
	if (JSON.stringify(piLabels) !== JSON.stringify(skLabels)) out.push(`labels: skeleton ${JSON.stringify(skLabels)}, pi ${JSON.stringify(piLabels)}`);
	const leaf = pi.getLeafId();
	const piLeaf = leaf === null ? -1 : (index.get(leaf) ?? -1);
	if (sk.leaf !== piLeaf) out.push(`leaf: skeleton ${sk.leaf}, pi ${piLeaf}`);
	if (sk.resumeLeaf !== piLeaf) out.push(`resumeLeaf: skeleton ${sk.resumeLeaf}, pi ${piLeaf}`);
	return out;
}

describe("the skeleton sent to the renderer describes pi's tree", () => {
	const files: Array<[string, () => string]> = [
		["formic__pi-v3-branch-compaction.jsonl", () => copyFixture("formic__pi-v3-branch-compaction.jsonl", "src")],
		["kuato__pi-session-orphan-no-eol.jsonl", () => copyFixture("kuato__pi-session-orphan-no-eol.jsonl", "src")],
		["generated seed 3 (bushy, labels)", () => generatedSession({ n: 2000, seed: 3, branchEvery: 5, customMessages: 0.5 })],
		["generated seed 2 (fixture profile)", () => generatedSession({ n: 2000, seed: 2, profile: "fixture", branchSummary: 0.6, compactionEvery: 100 })],
	];
	for (const [name, file] of files) {
		it(`${name}: parent index per entry, labels, leaf and resume leaf equal pi's`, () => {
			const { arbor, pi } = openBoth(file());
			expect(skeletonVsPi(arbor, pi)).toEqual([]);
			arbor.close();
		});
	}

	it("after appends, getSkeletonDelta extends the skeleton to what pi reads from the file", () => {
		const file = copyToTemp(generatedSession({ n: 2000, seed: 3, branchEvery: 5, customMessages: 0.5 }), "arbor");
		const arbor = SessionManager.open(file);
		const before = arbor.getSkeleton();
		const start = before.count;
		const first = arbor.appendMessage(userMessage("delta 1"));
		arbor.appendLabelChange(first, "delta label");
		arbor.branch((arbor.getEntries()[10] as { id: string }).id);
		arbor.appendMessage(userMessage("delta 2"));
		const d = arbor.getSkeletonDelta(start);
		expect(d.start).toBe(start);
		expect(d.ids.length).toBe(3);
		const full = applySkeletonDelta(before, d);
		const pi = PiSessionManager.open(copyToTemp(file, "pi"));
		const fresh = SessionManager.open(file);
		expect(skeletonVsPi(fresh, pi)).toEqual([]);
		expect(Array.from(full.parent)).toEqual(Array.from(fresh.getSkeleton().parent));
		expect(full.ids).toEqual(fresh.getSkeleton().ids);
		expect(Array.from(full.kind)).toEqual(Array.from(fresh.getSkeleton().kind));
		expect(full.labels).toEqual(fresh.getSkeleton().labels);
		expect([full.leaf, full.resumeLeaf]).toEqual([fresh.getSkeleton().leaf, fresh.getSkeleton().resumeLeaf]);
		arbor.close();
		fresh.close();
	});
});

describe("generated sessions: Arbor agrees with pi (branches, compactions, labels, summaries, custom messages)", () => {
	const cases: Array<{ name: string; o: GenOptions }> = [
		{ name: "seed 1, 2000 entries, custom messages", o: { n: 2000, seed: 1, customMessages: 0.3 } },
		{
			name: "seed 2, fixture profile, many branch summaries, compaction every ~100",
			o: { n: 2000, seed: 2, profile: "fixture", branchSummary: 0.6, compactionEvery: 100 },
		},
		{ name: "seed 3, bushy (branch every ~5), half custom messages", o: { n: 2000, seed: 3, branchEvery: 5, customMessages: 0.5 } },
		{ name: "seed 4, linear, compaction every ~40", o: { n: 1500, seed: 4, branchEvery: 0, compactionEvery: 40 } },
		{ name: "seed 5, fixture profile, 4000 entries", o: { n: 4000, seed: "five", profile: "fixture", customMessages: 0.2 } },
		{
			name: "seed 7, 12000 entries, custom messages and many branch summaries (150 sampled leaves)",
			o: { n: 12000, seed: 7, profile: "fixture", customMessages: 0.3, branchSummary: 0.5 },
		},
	];
	for (const { name, o } of cases) {
		it(`${name}: same leaf, tree, children, branches and contexts as pi; bytes untouched`, () => {
			const { arbor, pi, arborCopy, before } = openBoth(generatedSession(o));
			expect(compare(arbor, pi, true, o.n > 5000 ? 150 : undefined)).toEqual([]);
			arbor.close();
			expect(sha256(arborCopy)).toBe(before);
		});
	}

	it("buildSessionContext(leafId) equals branch(leafId) + buildSessionContext() (seed 1)", () => {
		const arbor = SessionManager.open(copyToTemp(generatedSession(cases[0].o), "arbor"));
		const entries = arbor.getEntries();
		const leaf = arbor.getLeafId();
		for (const i of samplePoints(entries, 200)) {
			const id = (entries[i] as { id: string }).id;
			const direct = JSON.stringify(arbor.buildSessionContext(id));
			arbor.branch(id);
			expect(direct, `at entry #${i} ${id}`).toBe(JSON.stringify(arbor.buildSessionContext()));
		}
		expect(arbor.buildSessionContext(null)).toEqual({ messages: [], thinkingLevel: "off", model: null });
		if (leaf !== null) arbor.branch(leaf);
		arbor.close();
	});
});

describe("unknown ids behave as in pi", () => {
	function outcome(fn: () => unknown): string {
		try {
			return `returns ${JSON.stringify(fn()) ?? "undefined"}`;
		} catch {
			return "throws";
		}
	}

	it("lookups return nothing; moves, labels, summaries and branching to a new file throw and write nothing", () => {
		const source = copyFixture("formic__pi-v3-branch-compaction.jsonl", "src");
		const { arbor, pi, arborCopy, before } = openBoth(source);
		const calls: Array<[string, (sm: SessionManager | PiSessionManager) => unknown]> = [
			["getEntry", (sm) => sm.getEntry("nope")],
			["getLabel", (sm) => sm.getLabel("nope")],
			["getChildren", (sm) => sm.getChildren("nope")],
			["getBranch", (sm) => sm.getBranch("nope")],
			["branch", (sm) => sm.branch("nope")],
			["appendLabelChange", (sm) => sm.appendLabelChange("nope", "x")],
			["branchWithSummary", (sm) => sm.branchWithSummary("nope", "summary")],
			["createBranchedSession", (sm) => sm.createBranchedSession("nope")],
		];
		for (const [name, call] of calls) expect(`${name}: ${outcome(() => call(arbor))}`).toBe(`${name}: ${outcome(() => call(pi))}`);
		expect(arbor.getLeafId()).toBe(pi.getLeafId());
		expect(sha256(arborCopy)).toBe(before);
		arbor.close();
	});

	it("buildSessionContext(unknown id) falls back to the last entry, as pi's buildSessionContext does", () => {
		const { arbor, pi } = openBoth(copyFixture("formic__pi-v3-branch-compaction.jsonl", "src"));
		arbor.branch("user-first");
		const expected = JSON.stringify(piBuildSessionContext(pi.getEntries(), "nope"));
		expect(JSON.stringify(arbor.buildSessionContext("nope"))).toBe(expected);
		arbor.close();
	});
});

describe("pi 0.73.1 on sessions written by pi 1.6.0: the structure agrees; contexts agree wherever no 1.6 rule applies", () => {
	for (const seed of [41, 42]) {
		it(`seed ${seed}: entries, leaf, tree and branches equal pi 0.73.1's; contexts differ only where the path holds a 1.6-only entry`, () => {
			const f = writePi16Session(tempDir(`pi16-for-073-${seed}`), { seed, turns: 250, staleUsageTail: seed === 42 });
			const { arbor, pi } = openBoth(f);
			// The skeleton draws a usage leaf at its parent (docs/compatibility.md); the raw leaf is compared below.
			expect(skeletonVsPi(arbor, pi).filter((d) => !d.startsWith("resumeLeaf") && !d.startsWith("leaf:"))).toEqual([]);
			expect(arbor.getLeafId()).toBe(pi.getLeafId());
			const entries = pi.getEntries();
			let same = 0;
			let changed = 0;
			for (const i of samplePoints(entries, 25)) {
				const id = entries[i].id;
				pi.branch(id);
				expect(JSON.stringify(arbor.getBranchIds(id))).toBe(JSON.stringify(pi.getBranch().map((e) => e.id)));
				const a = JSON.stringify(arbor.buildSessionContext(id));
				const p = JSON.stringify(pi.buildSessionContext());
				const ctxEntries = arbor.buildContextEntries(id) as Array<{
					type: string;
					message?: { role?: string };
					systemMessage?: unknown;
					firstKeptEntryId?: string;
					id: string;
				}>;
				// 1.6-only rules: context edits, and a compaction (its checkpoint, system messages dropped from the kept range).
				const only16 = ctxEntries.some((e) => e.type === "context_edit") || ctxEntries[0]?.type === "compaction";
				if (!only16) {
					expect(a, `context at ${id}`).toBe(p);
					same++;
				} else if (a !== p) changed++;
			}
			expect(same).toBeGreaterThan(3);
			expect(changed).toBeGreaterThan(0);
			arbor.close();
		});
	}
});
