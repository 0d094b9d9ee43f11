// omp 18.3.4 as an oracle: its own SessionManager (the published src/, run by Bun: scripts/oracles/) opens
// every fixture, generated sessions, sessions pi 1.6.0 writes and sessions omp itself writes (every record
// kind, a title slot, compactions of each method including provider-native ones); Arbor opens the same
// bytes and must agree on the entries, the tree, the leaf and the context omp builds for the model
// (buildOmpContext, what `arbor context --as omp` prints). docs/compatibility.md "omp 18.3 as an oracle".
import { copyFileSync, mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writePi16Session } from "../../../shared/test/pi16-writer";
import { buildOmpContext, SessionManager } from "../index";
import { cleanupTempDirs, copyFixture, fixtureNames, tempDir } from "./helpers/files";
import { generatedSession } from "./helpers/gen";
import { comparableArborMessages, comparableOmpMessages, ompRead, ompRuntime, ompWrite, type OmpView } from "./oracles/omp-oracle";

afterAll(cleanupTempDirs);

/** Files omp refuses while Arbor opens them (deliberate: compatibility.md "Deliberate differences" row 5). */
const OMP_REFUSES = new Set(["formic__omp-session-titleslot.jsonl"]);

/** Deliberate differences, by file and compared item (docs/compatibility.md "omp 18.3 as an oracle"). */
const DEVIATIONS: Record<string, string[]> = {
	// Lines without ids: omp keeps them id-less (every one a root, no leaf, an empty path); Arbor gives each a
	// stable made-up id and chains them in file order so they show as one conversation (the context agrees).
	"pi-doctor__pi-session-v3-without-ids.jsonl": ["entries", "tree", "leafId", "branch"],
};

interface Case {
	name: string;
	file: string;
	/** Ids are made up while loading (v1 files, entries without ids): compare by position in the file. */
	byIndex?: boolean;
}

const cases: Case[] = [];
let views = new Map<string, OmpView>();
let ompWrote: { files: string[]; nativeCalls: string[] } = { files: [], nativeCalls: [] };

beforeAll(() => {
	const rt = ompRuntime();
	const dir = tempDir("omp-oracle");
	for (const n of fixtureNames()) cases.push({ name: n, file: copyFixture(n), byIndex: /\.v1\.|without-ids/.test(n) });
	const gen = [
		{ n: 600, seed: 1, branchEvery: 30, compactionEvery: 90, branchSummary: 3, customMessages: 5 },
		{ n: 600, seed: 2, branchEvery: 12, compactionEvery: 50, branchSummary: 2, customMessages: 3, profile: "fixture" as const },
		{ n: 300, seed: 3 },
	];
	for (const o of gen) cases.push({ name: `generated seed ${o.seed}`, file: generatedSession(o) });
	for (const seed of [3, 7])
		cases.push({ name: `pi 1.6.0 seed ${seed}`, file: writePi16Session(join(dir, `pi16-${seed}`), { seed, turns: 40, staleUsageTail: seed === 7 }) });
	ompWrote = ompWrite(rt, dir, join(dir, "omp-wrote"));
	for (const f of ompWrote.files) cases.push({ name: `omp wrote ${basename(join(f, ".."))}`, file: f });
	// omp reads its own copy of each file (it may migrate a file it opens); Arbor reads the original bytes.
	const copies = cases.map((c, i) => {
		mkdirSync(join(dir, `omp-${i}`));
		const copy = join(dir, `omp-${i}`, basename(c.file));
		copyFileSync(c.file, copy);
		return copy;
	});
	const read = ompRead(rt, dir, copies);
	views = new Map(cases.map((c, i) => [c.name, read[i]]));
}, 600_000);

/** Arbor's view in omp's shape; ids become positions when the case says ids are made up while loading. */
function arborView(c: Case) {
	const sm = SessionManager.open(c.file);
	try {
		const entries = sm.getEntries();
		const pos = new Map(entries.map((e, i) => [e.id, String(i)]));
		const id = (x: string | null | undefined) => (x == null ? null : c.byIndex ? (pos.get(x) ?? `?${x}`) : x);
		const tree: { id: string | null; children: (string | null)[] }[] = [];
		const walk = (n: { entry: { id: string }; children: unknown[] }) => {
			tree.push({ id: id(n.entry.id), children: (n.children as { entry: { id: string } }[]).map((k) => id(k.entry.id)) });
			for (const k of n.children as never[]) walk(k);
		};
		for (const n of sm.getTree()) walk(n as never);
		const ctx = buildOmpContext(sm);
		const { messages: mine, entryIds: _ids, ...settings } = ctx;
		const messages = comparableArborMessages(mine);
		return {
			entries: entries.map((e) => ({ id: id(e.id), parentId: id(e.parentId), type: e.type })),
			tree,
			leafId: id(sm.getLeafId()),
			branch: sm.getBranch().map((e) => id(e.id)),
			messages,
			settings,
		};
	} finally {
		sm.close();
	}
}

function ompView(c: Case, v: OmpView) {
	const pos = new Map(v.entries.map((e, i) => [e.id, String(i)]));
	const id = (x: string | null | undefined) => (x == null ? null : c.byIndex ? (pos.get(x) ?? `?${x}`) : x);
	const { messages: theirs, cacheMissExplainedAt: _c, ...settings } = v.context;
	const messages = comparableOmpMessages(theirs);
	return {
		entries: v.entries.map((e) => ({ id: id(e.id), parentId: id(e.parentId), type: e.type })),
		tree: v.tree.map((n) => ({ id: id(n.id), children: n.children.map(id) })),
		leafId: id(v.leafId),
		branch: v.branch.map(id),
		messages,
		settings,
	};
}

describe("omp 18.3.4's own SessionManager and Arbor read the same files alike", () => {
	it("omp wrote its sessions without native code, and read every file without it", () => {
		expect(ompWrote.files.length).toBe(5);
		expect(ompWrote.nativeCalls).toEqual([]);
		for (const c of cases) expect(views.get(c.name)?.nativeCalls, c.name).toEqual([]);
	});

	it("covers every fixture, generated, pi 1.6.0-written and omp-written file", () => {
		expect(cases.filter((c) => !c.name.includes(" ")).length).toBe(fixtureNames().length);
		expect(cases.length).toBe(fixtureNames().length + 3 + 2 + 5);
	});

	it.each([
		["entries (order, ids, parents, types)", "entries"],
		["tree (roots, children order)", "tree"],
		["leaf", "leafId"],
		["active path", "branch"],
		["context messages omp sends the model", "messages"],
		["context settings (models by role, thinking, service tier, TTSR rules, mode)", "settings"],
	] as const)("%s", (_title, key) => {
		const differ: string[] = [];
		for (const c of cases) {
			const v = views.get(c.name)!;
			if (OMP_REFUSES.has(c.name)) {
				expect(v.error, c.name).toMatch(/header is missing or malformed/);
				continue;
			}
			expect(v.error, c.name).toBeUndefined();
			if (DEVIATIONS[c.name]?.includes(key)) {
				// Pinned: the deliberate difference is still there (docs/compatibility.md names it).
				expect(arborView(c)[key], `${c.name}: ${key}`).not.toEqual(ompView(c, v)[key]);
				continue;
			}
			try {
				expect(arborView(c)[key]).toEqual(ompView(c, v)[key]);
			} catch (e) {
				differ.push(`${c.name}: ${(e as Error).message.slice(0, 2000)}`);
			}
		}
		expect(differ).toEqual([]);
	});

	it("deliberate difference: omp re-attaches a snapcompact archive to the summary as `blocks`; Arbor does not", () => {
		const c = cases.find((x) => x.name === "omp wrote snapcompact")!;
		const theirs = views.get(c.name)!.context.messages[0] as { role: string; blocks?: unknown };
		expect(theirs.role).toBe("compactionSummary");
		expect(theirs.blocks).toEqual([{ type: "text", text: "user: question 1\nassistant: answer 1\n" }]);
		const sm = SessionManager.open(c.file);
		expect((buildOmpContext(sm).messages[0] as { blocks?: unknown }).blocks).toBeUndefined();
		sm.close();
	});

	it("the omp-written files hold what they were written to test (so the comparisons above cover them)", () => {
		const types = new Set(cases.filter((c) => c.name.startsWith("omp wrote")).flatMap((c) => views.get(c.name)!.entries.map((e) => e.type)));
		for (const t of [
			"model_change",
			"thinking_level_change",
			"service_tier_change",
			"label",
			"ttsr_injection",
			"mode_change",
			"custom_message",
			"custom",
			"model_usage",
			"branch_summary",
			"reset_boundary",
			"compaction",
		])
			expect(types, t).toContain(t);
		const remote = views.get("omp wrote remote")!.context.messages[0] as { providerPayload?: { type: string } };
		expect(remote.providerPayload?.type).toBe("openaiResponsesHistory");
		expect(views.get("omp wrote records")!.sessionName).toBe("Records of every kind");
		// omp's title slot (rewritten in place by setSessionName) reads as the same title in Arbor.
		const sm = SessionManager.open(cases.find((c) => c.name === "omp wrote records")!.file);
		expect(sm.getTitleSlot()?.title).toBe("Records of every kind");
		sm.close();
	});
});
