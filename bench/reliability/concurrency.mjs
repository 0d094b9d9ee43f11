// Figure 2: Arbor and pi's own SessionManager (a second process) append to the same file at the same
// time, with labels and branch summaries mixed in; then each reopens it. Lost entries, glued or partial
// lines, and whether both see the same tree.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { genSessionTool, repoRoot } from "./fuzz-gen.mjs";
import { workerPath } from "./build.mjs";
import { forkWorker } from "./util.mjs";

/** Every line of the file: parse failures and lines holding more than one object are glued/partial. */
function scanFile(path) {
	const text = readFileSync(path, "utf8");
	const lines = text.split("\n");
	const ids = new Map();
	let bad = 0;
	const badSamples = [];
	const order = [];
	if (lines[lines.length - 1] !== "") {
		bad++;
		badSamples.push(`unterminated last line: ${lines[lines.length - 1].slice(0, 80)}`);
	}
	for (const [i, line] of lines.entries()) {
		if (!line.trim()) continue;
		try {
			const o = JSON.parse(line);
			if (o && typeof o.id === "string") {
				ids.set(o.id, o);
				order.push(o.id);
			}
		} catch {
			if (i < lines.length - 1) {
				bad++;
				if (badSamples.length < 3) badSamples.push(`line ${i + 1}: ${line.slice(0, 120)}`);
			}
		}
	}
	return { ids, order, bad, badSamples, lines: lines.length - 1 };
}

/** The first thing two views (entry-by-entry snapshots in file order) disagree on, in words. */
export function describeViewDiff(live, reload) {
	const out = [];
	const n = Math.max(live.ids.length, reload.ids.length);
	for (let i = 0; i < n; i++) {
		if (live.ids[i] !== reload.ids[i] || live.parents[i] !== reload.parents[i]) {
			out.push(
				`first differing entry #${i}: live ${live.ids[i] ?? "(none)"} (parent ${live.parents[i] ?? "null"}), reload ${reload.ids[i] ?? "(none)"} (parent ${reload.parents[i] ?? "null"})`,
			);
			break;
		}
	}
	if (live.ids.length !== reload.ids.length) out.push(`entries live ${live.ids.length}, reload ${reload.ids.length}`);
	const lab = (v) => new Map(v.labels);
	const ll = lab(live),
		rl = lab(reload);
	const labelDiff = [...new Set([...ll.keys(), ...rl.keys()])].filter((k) => ll.get(k) !== rl.get(k));
	if (labelDiff.length)
		out.push(
			`${labelDiff.length} label(s) differ, first on ${labelDiff[0]}: live ${JSON.stringify(ll.get(labelDiff[0]) ?? null)}, reload ${JSON.stringify(rl.get(labelDiff[0]) ?? null)}`,
		);
	out.push(`leaf live ${live.leaf}, reload ${reload.leaf}; resume point live ${live.resumeLeaf}, reload ${reload.resumeLeaf}`);
	return out.join("; ");
}

export async function run(ctx) {
	const { bounded, seed, tmp, log } = ctx;
	const arborScript = workerPath(ctx.workers, "arbor-writer");
	const piScript = join(repoRoot, "bench", "reliability", "pi-side.mjs");
	const rounds = bounded ? 2 : 3;
	const count = bounded ? 300 : 1000;
	mkdirSync(tmp, { recursive: true });
	const totals = {
		arborWritten: 0,
		piWritten: 0,
		arborLost: 0,
		piLost: 0,
		glued: 0,
		arborOrphans: 0,
		piOrphans: 0,
		sameTree: 0,
		switches: 0,
		liveMatches: 0,
		arborErrors: 0,
		piErrors: 0,
		reloads: 0,
		partialTails: 0,
		racedAppends: 0,
	};
	const details = [];
	const reloadReasons = new Map();
	for (let round = 0; round < rounds; round++) {
		const file = join(tmp, `shared-${round}.jsonl`);
		execFileSync(process.execPath, [genSessionTool, "--n", "200", "--seed", `conc-${seed}-${round}`, "--out", file], { stdio: "ignore" });
		const arbor = await forkWorker(arborScript);
		const pi = await forkWorker(piScript);
		try {
			await Promise.all([
				arbor.ask({ mode: "write", file, count, seed: `${seed}-a${round}`, tag: "arbor" }, "opened"),
				pi.ask({ mode: "write", file, count, seed: `${seed}-p${round}`, tag: "pi" }, "opened"),
			]);
			// A shared clock: both start 300 ms from now and append one entry every 8 ms.
			const go = { go: true, startAt: Date.now() + 300, intervalMs: 8 };
			const [a, p] = await Promise.all([arbor.ask(go, "done"), pi.ask(go, "done")]);
			if (a.fatal || p.fatal) throw new Error(`writer failed: ${a.fatal ?? ""} ${p.fatal ?? ""}`);
			const scan = scanFile(file);
			const position = new Map(scan.order.map((id, i) => [id, i]));
			const lostA = a.written.filter((id) => !scan.ids.has(id)).length;
			const lostP = p.written.filter((id) => !scan.ids.has(id)).length;
			// Arbor catches up before writing: each of its entries' parent is already in the file above it.
			const orphanOf = (id) => {
				const e = scan.ids.get(id);
				return e && e.parentId !== null && !(position.has(e.parentId) && position.get(e.parentId) < position.get(id));
			};
			const orphA = a.written.filter(orphanOf).length;
			const orphP = p.written.filter(orphanOf).length;
			// How often consecutive lines come from different writers: proof the appends really interleaved.
			const writerOf = new Map([...a.written.map((id) => [id, "a"]), ...p.written.map((id) => [id, "p"])]);
			let switches = 0;
			let prev;
			for (const id of scan.order) {
				const w = writerOf.get(id);
				if (w && prev && w !== prev) switches++;
				if (w) prev = w;
			}
			// Both writers are done: the live view after one more catch-up (the watcher's, in the app), then fresh opens.
			const lv = await arbor.ask({ mode: "live" }, "done");
			if (lv.fatal) throw new Error(`live view failed: ${lv.fatal}`);
			const sizeAtLive = statSync(file).size;
			const [ra, rp] = await Promise.all([arbor.ask({ mode: "reload", file }, "done"), pi.ask({ mode: "reload", file }, "done")]);
			if (ra.fatal || rp.fatal) throw new Error(`reload failed: ${ra.fatal ?? ""} ${rp.fatal ?? ""}`);
			const same = ra.tree.hash === rp.tree.hash && ra.leaf === rp.leaf;
			const live = lv.liveTree.hash === ra.tree.hash;
			totals.reloads += lv.trace.counts.reloads;
			totals.partialTails += lv.trace.counts.partialTails;
			totals.racedAppends += lv.trace.counts.racedAppends;
			for (const [why, n] of Object.entries(lv.trace.reloadReasons)) reloadReasons.set(why, (reloadReasons.get(why) ?? 0) + n);
			if (!live) {
				details.push(
					`round ${round + 1} live view differs from its reload: ${describeViewDiff(lv.liveView, ra.view)}; file ${sizeAtLive} bytes at the live view, ${statSync(file).size} at reload`,
				);
				details.push(`round ${round + 1} catch-ups: ${JSON.stringify(lv.trace.counts)}`);
				for (const t of lv.trace.notable) details.push(`round ${round + 1}   ${t}`);
				for (const t of lv.trace.last) details.push(`round ${round + 1}   last: ${t}`);
			}
			totals.arborWritten += a.written.length;
			totals.piWritten += p.written.length;
			totals.arborLost += lostA;
			totals.piLost += lostP;
			totals.glued += scan.bad;
			totals.arborOrphans += orphA;
			totals.piOrphans += orphP;
			totals.switches += switches;
			totals.sameTree += same ? 1 : 0;
			totals.liveMatches += live ? 1 : 0;
			totals.arborErrors += a.errorCount;
			totals.piErrors += p.errorCount;
			log(
				`round ${round + 1}: arbor wrote ${a.written.length} (${a.errorCount} errors), pi wrote ${p.written.length}; ${scan.lines} lines; ${switches} interleavings; lost ${lostA}/${lostP}; bad lines ${scan.bad}; trees ${same ? "equal" : `differ (arbor ${ra.tree.nodes} nodes, pi ${rp.tree.nodes}; leaf ${ra.leaf} vs ${rp.leaf})`}`,
			);
			if (scan.badSamples.length) details.push(...scan.badSamples.map((s) => `round ${round + 1} bad line: ${s}`));
			if (a.errors.length) details.push(`round ${round + 1} Arbor write errors: ${a.errors.slice(0, 3).join(" || ")}`);
			if (p.errors.length) details.push(`round ${round + 1} pi write errors: ${p.errors.slice(0, 3).join(" || ")}`);
		} finally {
			arbor.kill();
			pi.kill();
		}
	}
	return {
		title: `Concurrency: Arbor and pi append to one file at once (${rounds} rounds × ${count} entries each)`,
		figures: [
			{ label: "entries written by Arbor / by pi", value: `${totals.arborWritten} / ${totals.piWritten}`, info: true },
			{ label: "Arbor write errors (conflicts surfaced to the user)", value: totals.arborErrors, info: true },
			{ label: "lost entries written by Arbor", value: totals.arborLost, target: 0 },
			{ label: "lost entries written by pi (pi's own losses would show here too)", value: totals.piLost, target: 0 },
			{ label: "glued or partial lines", value: totals.glued, target: 0 },
			{ label: "Arbor entries whose parent was not yet in the file (no catch-up)", value: totals.arborOrphans, target: 0 },
			{ label: "pi entries whose parent was not yet in the file", value: totals.piOrphans, info: true },
			{ label: "interleavings (consecutive lines from different writers)", value: totals.switches, info: true },
			{
				label: "Arbor catch-ups that met a partial last line / own appends that raced pi / reloads",
				value: `${totals.partialTails} / ${totals.racedAppends} / ${totals.reloads}${reloadReasons.size ? ` (${[...reloadReasons].map(([w, n]) => `${n}× ${w}`).join(", ")})` : ""}`,
				info: true,
			},
			{ label: "rounds where pi and Arbor reload the same tree and leaf", value: `${totals.sameTree}/${rounds}`, ok: totals.sameTree === rounds },
			{
				label: "rounds where Arbor's live view (after the writers finished) equals its reload",
				value: `${totals.liveMatches}/${rounds}`,
				ok: totals.liveMatches === rounds,
			},
		],
		details,
	};
}
