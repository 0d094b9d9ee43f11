#!/usr/bin/env node
// Bench: the whole tree's subtree roll-ups (shared/rollup.ts computeRollups: entries, tokens, cost, errors,
// time span for every entry) on the skeleton of a generated 100k-entry session, with the skeleton's cost
// column (filled by the scan). Target (issue #12): <= 200 ms. Prints the median and worst of 9 runs (wall ms),
// and the same for getting the cost inputs (services/rollup.ts rollupCosts, what getRollupCosts answers):
// from the column now, no entry parsed (it read every cost-carrying entry before the column existed).
// Also the Branches panel's table (shared/branches.ts computeBranches + sortBranches).
// Usage: node bench/rollup.mjs [--n 100000]
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const i = process.argv.indexOf("--n");
const N = i >= 0 ? Number(process.argv[i + 1]) : 100000;
const cache = join(root, "bench", ".cache");
mkdirSync(cache, { recursive: true });
const bundle = join(cache, "rollup-bench.cjs");
await build({
	stdin: {
		contents:
			'export { computeRollups } from "./shared/rollup"; export { computeBranches, sortBranches } from "./shared/branches"; export { SessionManager } from "./electron/session"; export { rollupCosts } from "./electron/services/rollup";',
		resolveDir: root,
		loader: "ts",
	},
	bundle: true,
	platform: "node",
	format: "cjs",
	outfile: bundle,
	logLevel: "warning",
});
// eslint-disable-next-line arbor/layers -- the module under test is bundled to a temp file first
const m = await import(pathToFileURL(bundle).href);
const file = join(cache, `rollup_n${N}_seed-bench.jsonl`);
if (!existsSync(file))
	execFileSync(process.execPath, [join(root, "..", "shared", "tools", "gen-session.mjs"), "--n", String(N), "--seed", "bench", "--out", file]);
const sm = m.SessionManager.open(file);
const sk = sm.getSkeleton();
const costTimes = [];
let got;
for (let k = 0; k < 9; k++) {
	const t = performance.now();
	got = m.rollupCosts(sm);
	costTimes.push(performance.now() - t);
}
costTimes.sort((a, b) => a - b);
const { costs, usage } = got;
const usageSet = new Set(usage);
const input = { costs: Float64Array.from(costs), attachToParent: (k) => usageSet.has(k) };
const times = [];
let r;
for (let k = 0; k < 9; k++) {
	const t = performance.now();
	r = m.computeRollups(sk, input);
	times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const rootIdx = Array.from(sk.parent).indexOf(-1);
const median = times[4];
console.log(
	`roll-ups of every subtree, ${sk.count} entries: median ${median.toFixed(1)} ms, worst ${times[8].toFixed(1)} ms (root: ${r.entries[rootIdx]} entries, $${r.cost[rootIdx].toFixed(2)}) | target <= 200 ms -> ${median <= 200 ? "MET" : "MISSED"}`,
);
console.log(`cost inputs of the roll-ups (getRollupCosts), ${sk.count} entries: median ${costTimes[4].toFixed(1)} ms, worst ${costTimes[8].toFixed(1)} ms`);
// The Branches panel's table (shared/branches.ts): every leaf with its path's figures, then sorted by cost.
const branchTimes = [];
let rows;
for (let k = 0; k < 9; k++) {
	const t = performance.now();
	rows = m.sortBranches(m.computeBranches(sk), "cost");
	branchTimes.push(performance.now() - t);
}
branchTimes.sort((a, b) => a - b);
console.log(
	`branches table (every leaf, path figures, sorted by cost), ${sk.count} entries: median ${branchTimes[4].toFixed(1)} ms, worst ${branchTimes[8].toFixed(1)} ms (${rows.length} leaves)`,
);
sm.close();
