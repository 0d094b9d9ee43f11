// bench:ui's "first graph against pi" section (issue 29 item 7): on a big session, Arbor's time from the
// page's request to the first entry drawn, against pi 1.6.0 opening the same file and building its context
// as a whole process (`SessionManager.open` + `buildSessionContext` under Node 24, the runner `npm run bench`
// uses for its context figures). The two alternate round by round (Arbor, pi, Arbor, pi ...) so a machine
// whose load moves during the run moves both; each figure is the median of its rounds and the ratio the
// median of the per-round ratios. Target: Arbor / pi <= 0.5. The same rounds time the complete graph (a big
// session is drawn first from a part of it, then whole): it must not come later than without the part.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { build } from "esbuild";

export const FIRST_TARGET = 0.5;

const median = (xs) => {
	const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
	return v.length ? v[Math.floor((v.length - 1) / 2)] : Number.NaN;
};

/** The bench worker bundle (bench/worker.ts, the same one `npm run bench` builds) for pi's whole process. */
async function piRunner(root, cache) {
	const worker = join(cache, "worker.mjs");
	await build({
		entryPoints: [join(root, "bench", "worker.ts")],
		outfile: worker,
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		logLevel: "warning",
	});
	// scripts/runtimes.mjs installs Node 24 if missing and prints where it is (run, not imported: layer walls).
	const found = spawnSync(process.execPath, [join(root, "scripts", "runtimes.mjs")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
	const { node24 } = JSON.parse(found.stdout.trim().split("\n").pop() ?? "{}");
	if (!node24) throw new Error("scripts/runtimes.mjs printed no Node 24");
	const usage = join(root, "bench", "usage-at-exit.cjs");
	return (file) =>
		new Promise((ok) => {
			const t = performance.now();
			const child = spawn(node24, ["--require", usage, worker, "pi16-open", file], {
				cwd: root,
				env: { ...process.env, ARBOR_BENCH_ROOT: root },
				stdio: ["ignore", "pipe", "pipe"],
			});
			let out = "";
			let err = "";
			child.stdout.on("data", (d) => (out += d));
			child.stderr.on("data", (d) => (err += d));
			child.on("close", (code) => {
				const ms = performance.now() - t;
				let r = {};
				try {
					r = JSON.parse(out.trim().split("\n").pop());
				} catch {
					r = { failed: `exit ${code}` };
				}
				const u = /@@arbor-bench-usage (.*)\n/.exec(err);
				const good = code === 0 && !r.failed;
				ok({ ms: good ? ms : null, cpuMs: good && u ? JSON.parse(u[1]).cpuMs : null, entries: r.entries });
			});
		});
}

/**
 * Paired rounds on each session: `arborFirst(url)` resolves to the page's first-graph and complete-graph
 * times ({ first, complete }, ms from navigation start, in a fresh browser; null when none) with the host
 * already listening; pi's figure is its whole process.
 */
export async function firstAgainstPi({ root, before, cache, sessions, rounds, startHost, arborFirst, log }) {
	const pi = await piRunner(root, cache);
	const out = [];
	for (const s of sessions) {
		log(`first graph vs pi: ${s.key}: arbor serve (opens the file) ...`);
		const host = await startHost(s.file);
		const old = before ? await startHost(s.file, before) : null;
		const rows = [];
		try {
			// Round 0 warms the page cache (the file, the bundles) and is not counted.
			for (let r = 0; r <= rounds; r++) {
				const bt = old ? await arborFirst(old.url) : null;
				const at = await arborFirst(host.url);
				const p = await pi(s.file);
				const b = bt?.first ?? null;
				const a = at?.first ?? null;
				const ms = (t) => (t != null ? `${t.first.toFixed(0)} ms (complete ${t.complete.toFixed(0)} ms)` : "—");
				log(
					`  ${s.key} round ${r}: ${old ? `before ${ms(bt)}, ` : ""}arbor ${ms(at)}, pi ${p.ms?.toFixed(0)} ms (cpu ${p.cpuMs?.toFixed(0)} ms)${r === 0 ? " (warm-up, not counted)" : ""}`,
				);
				if (r > 0) rows.push({ before: b, arbor: a, beforeComplete: bt?.complete ?? null, complete: at?.complete ?? null, pi: p.ms, piCpu: p.cpuMs });
			}
		} finally {
			await host.stop();
			await old?.stop();
		}
		out.push({
			key: s.key,
			bytes: s.bytes,
			rounds: rows,
			arborMs: median(rows.map((x) => x.arbor)),
			completeMs: median(rows.map((x) => x.complete)),
			beforeCompleteMs: before ? median(rows.map((x) => x.beforeComplete)) : null,
			// Complete graph, after / before, per round (the builds alternate in each round).
			completeRatio: before ? median(rows.map((x) => (x.complete != null && x.beforeComplete != null ? x.complete / x.beforeComplete : Number.NaN))) : null,
			piMs: median(rows.map((x) => x.pi)),
			piCpuMs: median(rows.map((x) => x.piCpu)),
			beforeMs: before ? median(rows.map((x) => x.before)) : null,
			beforeRatio: before ? median(rows.map((x) => (x.before != null && x.pi != null ? x.before / x.pi : Number.NaN))) : null,
			beforeRatioCpu: before ? median(rows.map((x) => (x.before != null && x.piCpu != null ? x.before / x.piCpu : Number.NaN))) : null,
			ratio: median(rows.map((x) => (x.arbor != null && x.pi != null ? x.arbor / x.pi : Number.NaN))),
			// pi is one busy thread; on a loaded machine its wall time grows far more than the page's (several
			// processes): against pi's CPU time, Arbor's wall time is judged as on a quiet machine, or worse.
			ratioCpu: median(rows.map((x) => (x.arbor != null && x.piCpu != null ? x.arbor / x.piCpu : Number.NaN))),
		});
	}
	return out;
}

/** The section's lines; with --first-before, the other checkout's figures come first ("before -> after"). */
export function printFirst(results) {
	const s = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : "—");
	console.log(
		`\nfirst graph against pi 1.6.0 (medians of ${results[0]?.rounds.length ?? 0} paired rounds; Arbor = page request to first entry drawn, pi = open + buildSessionContext, whole process, Node 24):`,
	);
	for (const r of results) {
		const was = (x) => (x != null ? `${x.toFixed(2)} -> ` : "");
		const ok = Number.isFinite(r.ratio) && r.ratio <= FIRST_TARGET ? "PASS" : "MISS";
		console.log(
			`  ${r.key} (${(r.bytes / 1e6).toFixed(0)} MB): Arbor ${r.beforeMs != null ? `${s(r.beforeMs)} -> ` : ""}${s(r.arborMs)}, pi ${s(r.piMs)} (cpu ${s(r.piCpuMs)})`,
		);
		console.log(
			`    ratio Arbor / pi ${was(r.beforeRatio)}${r.ratio.toFixed(2)} (target <= ${FIRST_TARGET}) ${ok}; Arbor / pi's cpu time ${was(r.beforeRatioCpu)}${r.ratioCpu.toFixed(2)}`,
		);
		console.log(
			`    complete graph (the whole session drawn): Arbor ${r.beforeCompleteMs != null ? `${s(r.beforeCompleteMs)} -> ` : ""}${s(r.completeMs)}${r.completeRatio != null ? ` (after / before per round: ${r.completeRatio.toFixed(2)})` : ""}`,
		);
		console.log(
			`    per round (${r.beforeMs != null ? "before / " : ""}Arbor / pi): ${r.rounds.map((x) => `${x.before != null ? `${s(x.before)} / ` : ""}${s(x.arbor)} / ${s(x.pi)}`).join(" · ")}`,
		);
	}
}
