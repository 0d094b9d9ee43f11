#!/usr/bin/env node
// Bench: shared/tree-view's visibility pipeline (what the renderer re-runs per keystroke) against pi's own
// tree selector (TreeList.applyFilter of pi-coding-agent) on the same generated session, measured in the same
// run, plus ours alone on a 100k-entry skeleton. Prints median CPU ms per run and the ratio pi / ours.
// Usage: node bench/tree-view.mjs [--n 20000] [--big 100000]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const arg = (name, def) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const N = arg("n", 20000);
const BIG = arg("big", 100000);

const cache = join(root, "bench", ".cache");
mkdirSync(cache, { recursive: true });
const bundle = join(cache, "tree-view-bench.mjs");
await build({
	stdin: {
		contents: 'export * from "./shared/tree-view"; export * from "./shared/tree-text"; export * from "./shared/test/pi-harness";',
		resolveDir: root,
		loader: "ts",
	},
	bundle: true,
	platform: "node",
	format: "esm",
	outfile: bundle,
	logLevel: "warning",
	external: ["@mariozechner/pi-coding-agent"],
});
// eslint-disable-next-line arbor/layers -- the module under test is bundled to a temp file first
const m = await import(pathToFileURL(bundle).href);

function median(fn, runs) {
	const times = [];
	for (let k = 0; k < runs; k++) {
		const c = process.cpuUsage();
		fn();
		const d = process.cpuUsage(c);
		times.push((d.user + d.system) / 1000);
	}
	times.sort((a, b) => a - b);
	return times[Math.floor(times.length / 2)];
}

const dir = mkdtempSync(join(tmpdir(), "arbor-bench-tree-"));
try {
	const file = join(dir, "s.jsonl");
	execFileSync(process.execPath, [
		join(root, "..", "shared", "tools", "gen-session.mjs"),
		"--n",
		String(N),
		"--seed",
		"bench",
		"--profile",
		"fixture",
		"--branch-every",
		"15",
		"--out",
		file,
	]);
	const run = m.runPi(file);
	const modes = ["default", "no-tools", "user-only", "labeled-only", "all"];
	let k = 0;
	const pi = median(() => {
		run.list.filterMode = modes[k++ % modes.length];
		run.list.applyFilter();
	}, 25);
	k = 0;
	const ours = median(() => m.computeTreeView(run.skeleton, { filter: modes[k++ % modes.length] }), 25);
	console.log(`tree-view, ${N}-entry generated session (filter changes):`);
	console.log(
		`  pi TreeList.applyFilter: ${pi.toFixed(1)} ms   shared/tree-view computeTreeView: ${ours.toFixed(1)} ms   ratio pi/ours: ${(pi / Math.max(ours, 0.01)).toFixed(1)}`,
	);

	// 100k synthetic skeleton: a chain with a branch every ~30 entries, a third of assistant turns tool-only.
	const n = BIG;
	const parent = new Int32Array(n),
		kind = new Uint8Array(n),
		flags = new Uint16Array(n),
		time = new Float64Array(n);
	let seed = 7;
	const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
	for (let i = 0; i < n; i++) {
		parent[i] = i === 0 ? -1 : rnd() < 1 / 30 ? Math.floor(rnd() * i) : i - 1;
		kind[i] = [0, 1, 2, 1, 2, 1, 11, 12][i % 8];
		flags[i] = kind[i] === 1 && rnd() < 0.33 ? 1 : 0;
		time[i] = 1.7e12 + i * 1000;
	}
	const s = {
		count: n,
		ids: Array.from({ length: n }, (_, i) => `e${i}`),
		parent,
		kind,
		flags,
		time,
		tokens: new Float64Array(n),
		labels: [],
		leaf: n - 1,
		resumeLeaf: n - 1,
	};
	const matches = new Uint8Array(n);
	for (let i = 0; i < n; i += 7) matches[i] = 1;
	k = 0;
	const big = median(() => m.computeTreeView(s, { filter: modes[k++ % modes.length] }), 15);
	const search = median(() => m.computeTreeView(s, { filter: "default", matches }), 15);
	console.log(`tree-view, ${n}-entry skeleton: ${big.toFixed(1)} ms per filter change, ${search.toFixed(1)} ms per search keystroke`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
