// tree-view + tree-text against pi's own tree selector (TreeList) of BOTH pi 0.73.1 and pi 1.6.0: same
// visible rows in the same order and the same drawn lines, for every filter mode, searches and folds, on
// generated branchy sessions and the fixtures pi can read (both versions), and on sessions written by pi
// 1.6.0's own SessionManager (pi 1.6.0: usage rows hidden in every mode, context edits as settings rows,
// system messages).
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { FILTER_MODES } from "../api";
import { renderTreeLines } from "../tree-text";
import { computeTreeView, foldOrUp, indexMask, isFoldable, segmentStart, unfoldOrDown, type TreeView } from "../tree-view";
import { PI_VERSIONS, piMatches, piRowTexts, runPi, stripAnsi, type PiRun, type PiVersion } from "./pi-harness";
import { writePi16Session } from "./pi16-writer";

const sharedDir = resolve(import.meta.dirname, "..", "..", "..", "shared");
const fixtures = join(sharedDir, "fixtures", "sessions");
const tmp = mkdtempSync(join(tmpdir(), "arbor-treeview-"));

function generated(seed: string, n: number, extra: string[] = []): string {
	const out = join(tmp, `gen-${seed}-${n}.jsonl`);
	execFileSync(process.execPath, [join(sharedDir, "tools", "gen-session.mjs"), "--n", String(n), "--seed", seed, "--out", out, ...extra]);
	return out;
}

function fixtureCopy(name: string): string {
	const out = join(tmp, name);
	copyFileSync(join(fixtures, name), out);
	return out;
}

function piRows(run: PiRun): string[] {
	return run.list.filteredNodes.map((f) => f.node.entry.id);
}

function ourRows(run: PiRun, v: TreeView): string[] {
	return Array.from(v.rows, (i) => run.skeleton.ids[i]);
}

/** pi's drawn lines without the cursor column, and ours with pi's row texts as previews and no leaf marker. */
function compareLines(run: PiRun, v: TreeView): void {
	const texts = piRowTexts(run);
	if (v.rows.length === 0) {
		expect(stripAnsi(run.list.render(200)[0]).trim()).toBe("No entries found");
		return;
	}
	const pi = run.list
		.render(100_000)
		.slice(0, -1)
		.map((l) => stripAnsi(l).slice(2).trimEnd());
	const ours = renderTreeLines(
		v,
		Array.from(v.rows, (i) => texts[i]),
		{ leafMarker: "" },
	).map((l) => l.trimEnd());
	expect(ours).toEqual(pi);
}

const files: Array<[string, () => string]> = [
	["generated, branchy (seed a)", () => generated("a", 600, ["--branch-every", "8"])],
	["generated, branchy with custom messages (seed b)", () => generated("b", 900, ["--branch-every", "5", "--custom-messages", "0.5"])],
	["generated, default shape (seed c)", () => generated("c", 1500)],
	["fixture formic__pi-v3-branch-compaction", () => fixtureCopy("formic__pi-v3-branch-compaction.jsonl")],
	["fixture kuato__pi-session-orphan-no-eol (two roots)", () => fixtureCopy("kuato__pi-session-orphan-no-eol.jsonl")],
	["fixture kimchi-dev__statsuline.v3", () => fixtureCopy("kimchi-dev__statsuline.v3.jsonl")],
];

const pi16Files: Array<[string, () => string]> = [
	["written by pi 1.6.0 (seed 1)", () => writePi16Session(join(tmp, "w1"), { seed: 1, turns: 120 })],
	["written by pi 1.6.0 (seed 2, stale usage tail)", () => writePi16Session(join(tmp, "w2"), { seed: 2, turns: 200, staleUsageTail: true })],
	["written by pi 1.6.0 (seed 3)", () => writePi16Session(join(tmp, "w3"), { seed: 3, turns: 300 })],
];

const cases: Array<[string, PiVersion, () => string]> = [
	...PI_VERSIONS.flatMap((v) => files.map(([n, make]) => [`pi ${v}, ${n}`, v, make] as [string, PiVersion, () => string])),
	...pi16Files.map(([n, make]) => [`pi 1.6.0, ${n}`, "1.6.0", make] as [string, PiVersion, () => string]),
];

describe.each(cases)("pi conformance: %s", (_name, version, make) => {
	const run = runPi(make(), version);

	it.each(FILTER_MODES.map((m) => [m]))("filter %s gives pi's rows, order and drawing", (mode) => {
		run.list.filterMode = mode;
		run.list.searchQuery = "";
		run.list.foldedNodes.clear();
		run.list.applyFilter();
		const v = computeTreeView(run.skeleton, { filter: mode });
		expect(ourRows(run, v)).toEqual(piRows(run));
		compareLines(run, v);
	});

	it.each([
		["user"],
		["assistant error"],
		["branch summary"],
		["the"],
		["zzz-no-match"],
		["[read"],
		["system"],
		["context edit omit"],
		["replace"],
		["step 1"],
	])("search %j gives pi's rows", (query) => {
		for (const mode of ["default", "all"] as const) {
			run.list.filterMode = mode;
			run.list.searchQuery = query;
			run.list.foldedNodes.clear();
			run.list.applyFilter();
			const v = computeTreeView(run.skeleton, { filter: mode, matches: piMatches(run, query) });
			expect(ourRows(run, v)).toEqual(piRows(run));
			compareLines(run, v);
		}
	});

	it("folding every foldable node in turn gives pi's rows and fold markers", () => {
		run.list.filterMode = "default";
		run.list.searchQuery = "";
		run.list.foldedNodes.clear();
		run.list.applyFilter();
		const v0 = computeTreeView(run.skeleton);
		const foldable = Array.from(v0.rows).filter((i) => isFoldable(v0, i));
		expect(foldable.map((i) => run.list.isFoldable(run.skeleton.ids[i]))).toEqual(foldable.map(() => true));
		const folded = new Set<number>();
		for (const i of foldable.slice(0, 12)) {
			folded.add(i);
			run.list.foldedNodes.add(run.skeleton.ids[i]);
			run.list.applyFilter();
			const v = computeTreeView(run.skeleton, { folded });
			expect(ourRows(run, v)).toEqual(piRows(run));
			compareLines(run, v);
		}
		run.list.foldedNodes.clear();
	});

	it("Ctrl+←/Ctrl+→ from every row lands where pi lands", () => {
		run.list.filterMode = "default";
		run.list.searchQuery = "";
		run.list.foldedNodes.clear();
		run.list.applyFilter();
		const v = computeTreeView(run.skeleton);
		for (let r = 0; r < v.rows.length; r++) {
			run.list.selectedIndex = r;
			const up = run.list.findBranchSegmentStart("up");
			const down = run.list.findBranchSegmentStart("down");
			expect(v.rowOf[segmentStart(v, v.rows[r], "up")]).toBe(up);
			expect(v.rowOf[segmentStart(v, v.rows[r], "down")]).toBe(down);
			const left = foldOrUp(v, v.rows[r]);
			if (left.kind === "select") expect(v.rowOf[left.index]).toBe(up);
			else expect(run.list.isFoldable(run.skeleton.ids[r >= 0 ? v.rows[r] : 0])).toBe(true);
			expect(unfoldOrDown(v, v.rows[r])).toEqual({ kind: "select", index: v.rows[down] });
		}
	});

	it("matches built from an index list equal the mask form", () => {
		const mask = piMatches(run, "user");
		const list: number[] = [];
		mask.forEach((x, i) => x && list.push(i));
		const a = computeTreeView(run.skeleton, { matches: indexMask(run.skeleton.count, list) });
		const b = computeTreeView(run.skeleton, { matches: new Set(list) });
		expect(Array.from(a.rows)).toEqual(Array.from(b.rows));
	});
});
