// End to end against pi: `arbor tree FILE --filter MODE [--search Q]` prints the same lines as pi's own
// /tree selector (TreeList of pi-coding-agent 0.73.1, colours and cursor column removed), apart from our
// "← active" marker on the leaf. This covers the core's skeleton flags and previews as well as tree-view.
import { copyFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { FILTER_MODES } from "../../../shared/api";
import { runPi, stripAnsi } from "../../../shared/test/pi-harness";
import { arbor, buildCli, copyFixture, generate, tempDir } from "./helpers";

beforeAll(buildCli);

const dir = tempDir();
const files: Array<[string, string]> = [
	["formic__pi-v3-branch-compaction", copyFixture("formic__pi-v3-branch-compaction.jsonl", dir)],
	["kimchi-dev__statsuline.v3", copyFixture("kimchi-dev__statsuline.v3.jsonl", dir)],
	["kuato__pi-session-orphan-no-eol", copyFixture("kuato__pi-session-orphan-no-eol.jsonl", dir)],
	["generated branchy", generate(dir, "gen.jsonl", ["--n", "1200", "--seed", "pi-tree", "--branch-every", "7", "--custom-messages", "0.4"])],
];

function piLines(file: string, mode: string, query: string): string[] {
	const copy = `${file}.pi.jsonl`;
	copyFileSync(file, copy);
	const run = runPi(copy);
	run.list.filterMode = mode;
	run.list.searchQuery = query;
	run.list.applyFilter();
	if (run.list.filteredNodes.length === 0) return [];
	return run.list
		.render(1_000_000)
		.slice(0, -1)
		.map((l) => stripAnsi(l).slice(2).trimEnd());
}

function ourLines(file: string, mode: string, query: string): string[] {
	const r = arbor(["tree", file, "--filter", mode, ...(query ? ["--search", query] : [])]);
	expect(r.status).toBe(0);
	return r.stdout === ""
		? []
		: r.stdout
				.replace(/\n$/, "")
				.split("\n")
				.map((l) => l.replace(/ ← active$/, "").trimEnd());
}

describe.each(files)("arbor tree = pi /tree on %s", (_name, file) => {
	it.each(FILTER_MODES.map((m) => [m]))("--filter %s", (mode) => {
		expect(ourLines(file, mode, "")).toEqual(piLines(file, mode, ""));
	});
	it.each([["user"], ["read src"], ["branch summary"], ["compaction"]])("--search %j", (query) => {
		expect(ourLines(file, "all", query)).toEqual(piLines(file, "all", query));
	});
});
