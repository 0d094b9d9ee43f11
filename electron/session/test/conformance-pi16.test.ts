// Differential conformance against pi 1.6.0 (@earendil-works/pi-coding-agent, its own SessionManager and tree
// selector, unmodified): every fixture, generated sessions, and sessions WRITTEN BY pi 1.6.0's SessionManager
// (system messages and patches, usage lines, context edits, compactions that keep nothing / keep a range with
// the systemMessage checkpoint, branch summaries with usage, labels, custom entries and messages). Compared:
// entries, leaf, tree, children, branches, buildSessionContext at sampled leaves (JSON byte-equal),
// buildContextEntries / buildSessionProjection, and, through Arbor's own skeleton, previews and search, the
// visible rows of every filter mode against pi's TreeList. pi 0.73.1 is covered by conformance.test.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FILTER_MODES } from "../../../shared/api";
import { EntryKind } from "../../../shared/skeleton";
import { computeTreeView, indexMask } from "../../../shared/tree-view";
import { runPi, stripAnsi } from "../../../shared/test/pi-harness";
import { writePi16Session } from "../../../shared/test/pi16-writer";
import { SessionManager } from "../index";
import { cleanupTempDirs, copyFixture, copyToTemp, fixtureNames, sha256, tempDir } from "./helpers/files";
import { generatedSession } from "./helpers/gen";
import { Pi16SessionManager } from "./helpers/pi16";
import { compareSessions, type SessionLike, samplePoints } from "./helpers/snapshot";

afterAll(cleanupTempDirs);

type Pi16 = ReturnType<typeof Pi16SessionManager.open>;

function openBoth(source: string): { arbor: SessionManager; pi: Pi16; arborCopy: string; before: string } {
	const before = sha256(source);
	const arborCopy = copyToTemp(source, "arbor");
	const pi = Pi16SessionManager.open(copyToTemp(source, "pi16"));
	const arbor = SessionManager.open(arborCopy);
	return { arbor, pi, arborCopy, before };
}

function compare(arbor: SessionManager, pi: Pi16, byId = true, maxSamples = Number.POSITIVE_INFINITY): string[] {
	const sample = samplePoints(pi.getEntries(), 25, maxSamples);
	return compareSessions(arbor as unknown as SessionLike, pi as unknown as SessionLike, { byId, sample });
}

/** buildContextEntries and buildSessionProjection at sampled leaves, by id and JSON. */
function projectionsAgree(arbor: SessionManager, pi: Pi16): string[] {
	const out: string[] = [];
	const entries = pi.getEntries();
	const leaf = pi.getLeafId();
	for (const i of samplePoints(entries, 40)) {
		const id = entries[i].id;
		pi.branch(id);
		const pe = pi.buildContextEntries().map((e: { id: string }) => e.id);
		const ae = arbor.buildContextEntries(id).map((e) => (e as { id: string }).id);
		if (JSON.stringify(pe) !== JSON.stringify(ae)) out.push(`buildContextEntries at ${id}: arbor ${ae.length}, pi ${pe.length}`);
		const pp = pi.buildSessionProjection();
		const ap = arbor.buildSessionProjection(id);
		const pj = JSON.stringify(pp.entries.map((x: { sourceEntry: { id: string }; messages: unknown[] }) => [x.sourceEntry.id, x.messages]));
		const aj = JSON.stringify(ap.entries.map((x) => [arbor.idAt(x.index), x.messages]));
		if (pj !== aj) out.push(`buildSessionProjection at ${id}`);
		if (JSON.stringify(pp.messages) !== JSON.stringify(ap.messages)) out.push(`projection messages at ${id}`);
	}
	if (leaf) pi.branch(leaf);
	return out;
}

/** Arbor's own skeleton, previews and "pi" search against pi 1.6.0's TreeList on the same file. */
function treeAgrees(file: string): string[] {
	const out: string[] = [];
	const run = runPi(copyToTemp(file, "pi16-tree"), "1.6.0");
	const arbor = SessionManager.open(copyToTemp(file, "arbor-tree"));
	const sk = arbor.getSkeleton();
	// pi's raw leaf (a usage line is pi's leaf; Arbor draws it at its parent, the same visible row).
	sk.leaf = arbor.indexOf(arbor.getLeafId() as string);
	const ids = sk.ids;
	const previews = arbor.getPreviews(
		Array.from({ length: sk.count }, (_, i) => i),
		{ homeDir: process.env.HOME ?? "" },
	);
	for (const f of run.list.flatNodes) {
		const i = arbor.indexOf(f.node.entry.id);
		const piText = stripAnsi(run.list.getEntryDisplayText(f.node, false));
		if (previews[i] !== piText) {
			out.push(`preview ${f.node.entry.id}: arbor ${JSON.stringify(previews[i])}, pi ${JSON.stringify(piText)}`);
			break;
		}
	}
	for (const mode of FILTER_MODES) {
		for (const query of ["", "system", "context edit", "omit", "step 1", "assistant done", "label", "custom"]) {
			run.list.filterMode = mode;
			run.list.searchQuery = query;
			run.list.foldedNodes.clear();
			run.list.applyFilter();
			const pi = run.list.filteredNodes.map((n) => n.node.entry.id);
			const matches = query ? indexMask(sk.count, arbor.search(query, "pi")) : null;
			const v = computeTreeView(sk, { filter: mode, matches });
			const ours = Array.from(v.rows, (i) => ids[i]);
			if (JSON.stringify(ours) !== JSON.stringify(pi)) out.push(`rows ${mode} ${JSON.stringify(query)}: arbor ${ours.length}, pi ${pi.length}`);
		}
	}
	arbor.close();
	return out;
}

describe("pi 1.6.0: every fixture pi can read", () => {
	const byIndex = new Set(["pi-mono__large-session.v1.jsonl"]);
	const unreadable = new Set(["pi-doctor__pi-session-v3-without-ids.jsonl"]);
	for (const name of fixtureNames()) {
		it(`${name}: same entries, leaf, tree, branches and contexts as pi 1.6.0; bytes untouched`, () => {
			const src = copyFixture(name, "src");
			let pi: Pi16;
			try {
				pi = Pi16SessionManager.open(copyToTemp(src, "pi16"));
			} catch (err) {
				// pi 1.6 refuses a non-empty file whose first record is no header (0.80.3), which includes omp's
				// title slot line: Arbor reads the omp file (deviation 5) and leaves its bytes alone.
				expect(String(err)).toMatch(/not a valid/);
				const copy = copyToTemp(src, "arbor");
				const arbor = SessionManager.open(copy);
				expect(arbor.getEntries().length).toBeGreaterThan(0);
				arbor.close();
				expect(sha256(copy)).toBe(sha256(src));
				return;
			}
			const arborCopy = copyToTemp(src, "arbor");
			const before = sha256(arborCopy);
			const arbor = SessionManager.open(arborCopy);
			if (unreadable.has(name)) {
				// id-less entries: pi indexes them all under `undefined`; the model context must still agree.
				expect(JSON.stringify(arbor.buildSessionContext())).toBe(JSON.stringify(pi.buildSessionContext()));
			} else {
				expect(compare(arbor, pi, !byIndex.has(name))).toEqual([]);
			}
			arbor.close();
			expect(sha256(arborCopy)).toBe(before);
		});
	}
});

describe("pi 1.6.0: generated sessions (rules unchanged since 0.73)", () => {
	for (const o of [
		{ n: 2000, seed: 1, customMessages: 0.3 },
		{ n: 2000, seed: 2, profile: "fixture" as const, branchSummary: 0.6, compactionEvery: 100 },
		{ n: 1500, seed: 4, branchEvery: 0, compactionEvery: 40 },
	]) {
		it(`seed ${o.seed}: same as pi 1.6.0`, () => {
			const { arbor, pi } = openBoth(generatedSession(o));
			expect(compare(arbor, pi)).toEqual([]);
			expect(projectionsAgree(arbor, pi)).toEqual([]);
			arbor.close();
		});
	}
});

describe("sessions written by pi 1.6.0's own SessionManager", () => {
	const dir = tempDir("pi16-written");
	const cases = [
		{ seed: 11, turns: 150 },
		{ seed: 12, turns: 250, staleUsageTail: true },
		{ seed: 13, turns: 400 },
		{ seed: 14, turns: 300, staleUsageTail: true },
		{ seed: 15, turns: 600 },
	];
	for (const o of cases) {
		const file = (): string => writePi16Session(join(dir, `s${o.seed}`), o);
		it(`seed ${o.seed} (${o.turns} turns${o.staleUsageTail ? ", stale usage tail" : ""}): entries, leaf, tree, branches, contexts, projections`, () => {
			const f = file();
			const text = readFileSync(f, "utf8");
			for (const t of ['"type":"usage"', '"type":"context_edit"', '"role":"system"', '"systemMessage"', '"type":"branch_summary"', '"type":"label"']) {
				expect(text, `the file holds ${t}`).toContain(t);
			}
			const { arbor, pi, arborCopy, before } = openBoth(f);
			expect(compare(arbor, pi)).toEqual([]);
			expect(projectionsAgree(arbor, pi)).toEqual([]);
			// Skeleton kinds follow the entry types pi wrote.
			const sk = arbor.getSkeleton();
			const kinds = new Set(Array.from(sk.kind));
			for (const k of [EntryKind.usage, EntryKind.contextEdit, EntryKind.system, EntryKind.compaction]) expect(kinds.has(k)).toBe(true);
			expect(arbor.getResumePointStatus().stale).toBe(o.staleUsageTail === true);
			arbor.close();
			expect(sha256(arborCopy)).toBe(before);
		});
		it(`seed ${o.seed}: Arbor's skeleton, previews and search give pi 1.6.0's /tree rows in every filter mode`, () => {
			expect(treeAgrees(file())).toEqual([]);
		});
	}

	it("a big pi 1.6.0 session read lazily (skimmed, bodies on disk) agrees too", () => {
		const f = writePi16Session(join(dir, "big"), { seed: 21, turns: 3000 });
		const pi = Pi16SessionManager.open(copyToTemp(f, "pi16"));
		const arbor = SessionManager.open(copyToTemp(f, "arbor"), { lazy: true });
		expect(compare(arbor, pi, true, 60)).toEqual([]);
		expect(projectionsAgree(arbor, pi)).toEqual([]);
		arbor.close();
	});

	it("what Arbor writes on a pi 1.6.0 file (labels, branch summary with 1.6 fromId, saved position, a branch file) loads in pi 1.6.0 with the context Arbor has", () => {
		const f = copyToTemp(writePi16Session(join(dir, "w"), { seed: 31, turns: 200 }), "arbor-writes");
		const arbor = SessionManager.open(f);
		const entries = arbor.getEntries() as Array<{ id: string; type: string; message?: { role: string } }>;
		const users = entries.filter((e) => e.type === "message" && e.message?.role === "user");
		arbor.appendLabelChange(users[3].id, "from arbor", { atResume: true });
		const left = arbor.getLeafId();
		const sid = arbor.branchWithSummary(users[1].id, "summary written by Arbor", { readFiles: [] }, false, { input: 1, output: 2, totalTokens: 3 });
		expect(arbor.getEntry(sid)).toMatchObject({ fromId: left, usage: { totalTokens: 3 } });
		arbor.appendCustomEntry("arbor.position", { leafId: sid, savedAt: "2026-01-01T00:00:00.000Z" });
		const pi = Pi16SessionManager.open(copyToTemp(f, "pi16-reload"));
		expect(compare(arbor, pi)).toEqual([]);
		const branched = arbor.createBranchedSession(sid) as string;
		const piBranched = Pi16SessionManager.open(copyToTemp(branched, "pi16-branch"));
		expect(JSON.stringify(piBranched.buildSessionContext())).toBe(JSON.stringify(arbor.buildSessionContext()));
		arbor.close();
	});
});
