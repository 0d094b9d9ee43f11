// Figure 3: kill -9 Arbor at random moments while it appends, labels, branches to a new file, and upgrades
// a legacy file. Afterwards: the original file is intact or has only whole appended lines, no partial file
// is visible under a final (.jsonl) name, and an upgrade's .bak equals the original bytes.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir, genSessionTool, makeRng, repoRoot } from "./fuzz-gen.mjs";
import { workerPath } from "./build.mjs";
import { appendOnlyViolation, forkWorker, sleep } from "./util.mjs";

function parseJsonl(buf) {
	const text = buf.toString("utf8");
	const lines = text.split("\n");
	const complete = lines[lines.length - 1] === "";
	const objs = [];
	let bad = 0;
	for (const l of lines.slice(0, -1)) {
		if (!l.trim()) continue;
		try {
			objs.push(JSON.parse(l));
		} catch {
			bad++;
		}
	}
	return { objs, bad, complete };
}

/** Path root -> id without label entries, as createBranchedSession copies it. */
function expectedBranch(objs, from) {
	const byId = new Map(objs.filter((o) => o.type !== "session").map((o) => [o.id, o]));
	const path = [];
	const seen = new Set();
	for (let e = byId.get(from); e && !seen.has(e.id); e = byId.get(e.parentId)) {
		seen.add(e.id);
		path.push(e);
	}
	return path
		.reverse()
		.filter((e) => e.type !== "label")
		.map((e) => e.id);
}

function makeLegacyV1(out, copies) {
	// A bigger v1 file (the upstream fixture's entries repeated) so an upgrade takes long enough to be hit.
	const lines = readFileSync(join(fixturesDir, "pi-mono__large-session.v1.jsonl"), "utf8").trimEnd().split("\n");
	const body = lines.slice(1).join("\n");
	writeFileSync(out, `${lines[0]}\n${Array.from({ length: copies }, () => body).join("\n")}\n`);
}

export async function run(ctx) {
	const { bounded, seed, tmp, log } = ctx;
	const script = workerPath(ctx.workers, "crash-worker");
	const perOp = bounded ? 6 : 30;
	mkdirSync(tmp, { recursive: true });
	const base = join(tmp, "base.jsonl");
	execFileSync(process.execPath, [genSessionTool, "--n", bounded ? "800" : "2000", "--seed", `crash-${seed}`, "--out", base], { stdio: "ignore" });
	const legacy = join(tmp, "legacy-v1.jsonl");
	makeLegacyV1(legacy, bounded ? 4 : 10);
	const r = makeRng(`crash:${seed}`);
	const counts = { trials: 0, violations: 0, strayTemps: 0, failed: 0, repaired: 0, readsChanged: 0 };
	const perOpViolations = {};
	const details = [];

	// Calibrate the upgrade's duration so kills land before, during and after it.
	let upgradeMs = 500;
	{
		const dir = join(tmp, "calibrate");
		mkdirSync(dir, { recursive: true });
		const f = join(dir, "legacy.jsonl");
		copyFileSync(legacy, f);
		const w = await forkWorker(script);
		try {
			const done = w.waitFor("upgraded", 120_000);
			await w.ask({ op: "upgrade", file: f, seed, log: join(dir, "log") }, "opened");
			upgradeMs = Math.max(50, (await done).ms);
		} finally {
			w.kill();
		}
		log(`upgrade of a ${(readFileSync(legacy).length / 1e6).toFixed(1)} MB v1 file takes ${upgradeMs.toFixed(0)} ms`);
	}

	const piScript = join(repoRoot, "bench", "reliability", "pi-side.mjs");
	let piTrials = 0,
		piPartial = 0;
	for (const op of ["append", "label", "branch", "upgrade", "pi-append"]) {
		if (op !== "pi-append") perOpViolations[op] = 0;
		for (let t = 0; t < perOp; t++) {
			const dir = join(tmp, `${op}-${t}`);
			mkdirSync(dir, { recursive: true });
			const file = join(dir, "session.jsonl");
			copyFileSync(op === "upgrade" ? legacy : base, file);
			const original = readFileSync(file);
			const logFile = join(dir, "intents.log");
			writeFileSync(logFile, "");
			const w = await forkWorker(op === "pi-append" ? piScript : script);
			let failed = null;
			w.child.on("message", (m) => {
				if (m && m.failed) failed = m.failed;
			});
			try {
				await w.ask({ op, file, seed: `${seed}-${op}-${t}`, log: logFile }, "opened", 120_000);
				const delay = op === "upgrade" ? r.rnd() * upgradeMs * 1.3 : 5 + r.rnd() * 400;
				await sleep(delay);
			} finally {
				w.kill();
				await new Promise((res) => (w.child.exitCode !== null || w.child.signalCode !== null ? res() : w.child.once("exit", res)));
			}
			if (op === "pi-append") {
				// pi's own writer under the same kills, for comparison (not an Arbor figure).
				piTrials++;
				if (appendOnlyViolation(original, readFileSync(file))) piPartial++;
				continue;
			}
			counts.trials++;
			if (failed) {
				counts.failed++;
				details.push(`${op} #${t}: the operation failed before the kill: ${failed}`);
			}
			const problems = [];
			if (op === "append" || op === "label") {
				// A kill can tear a write of more than a page (the kernel stops it part-way). Opening never
				// changes a byte; Arbor's next write cuts the torn line off using its marker; check after it.
				const killed = readFileSync(file);
				const probe = await forkWorker(script);
				try {
					await probe.ask({ op: "read", file, seed, log: logFile }, "opened", 120_000);
				} finally {
					probe.kill();
				}
				if (Buffer.compare(killed, readFileSync(file)) !== 0) {
					counts.readsChanged++;
					problems.push("opening the file after the kill changed it");
				}
				const rw = await forkWorker(script);
				try {
					await rw.ask({ op: "reopen", file, seed, log: logFile }, "opened", 120_000);
				} finally {
					rw.kill();
				}
				if (killed[killed.length - 1] !== 0x0a && !appendOnlyViolation(original, readFileSync(file))) counts.repaired++;
			}
			const now = readFileSync(file);
			if (op === "append" || op === "label") {
				const v = appendOnlyViolation(original, now);
				if (v) problems.push(`session file: ${v}`);
			} else if (op === "branch") {
				if (Buffer.compare(original, now) !== 0) problems.push("original file changed");
				const origObjs = parseJsonl(original).objs;
				const intents = new Set(readFileSync(logFile, "utf8").split("\n").filter(Boolean));
				for (const f of readdirSync(dir)) {
					if (f === "session.jsonl" || f === "intents.log") continue;
					if (!f.endsWith(".jsonl")) {
						counts.strayTemps++;
						continue;
					}
					const p = parseJsonl(readFileSync(join(dir, f)));
					const entries = p.objs.filter((o) => o.type !== "session");
					const nonLabel = entries.filter((o) => o.type !== "label").map((o) => o.id);
					const last = nonLabel[nonLabel.length - 1];
					const complete =
						p.complete &&
						!p.bad &&
						p.objs[0]?.type === "session" &&
						intents.has(last) &&
						JSON.stringify(nonLabel) === JSON.stringify(expectedBranch(origObjs, last));
					if (!complete) problems.push(`partial branch file under its final name: ${f}`);
				}
			} else {
				const bak = readdirSync(dir).filter((f) => f.endsWith(".bak"));
				for (const b of bak) if (Buffer.compare(readFileSync(join(dir, b)), original) !== 0) problems.push(`backup ${b} differs from the original`);
				if (Buffer.compare(original, now) !== 0) {
					const p = parseJsonl(now);
					const origCount = parseJsonl(original).objs.length;
					if (!p.complete || p.bad || p.objs[0]?.type !== "session" || Number(p.objs[0]?.version) < 3 || p.objs.length !== origCount) {
						problems.push(
							`session file is neither the original nor a complete upgrade (${p.objs.length}/${origCount} records, complete=${p.complete}, bad=${p.bad})`,
						);
					}
					if (!bak.length) problems.push("file rewritten but no .bak kept");
				}
				for (const f of readdirSync(dir)) if (!["session.jsonl", "intents.log"].includes(f) && !f.endsWith(".bak")) counts.strayTemps++;
			}
			if (problems.length) {
				counts.violations++;
				perOpViolations[op]++;
				details.push(`${op} #${t}: ${problems.join("; ")}`);
			}
		}
		log(
			op === "pi-append"
				? `pi's own append: ${piTrials} trials, ${piPartial} left a partial line`
				: `${op}: ${perOp} trials, ${perOpViolations[op]} violations`,
		);
	}
	return {
		title: "Crash safety: kill -9 during append, label, branch to file, legacy upgrade",
		figures: [
			{ label: "trials", value: counts.trials, ok: counts.trials === perOp * 4 },
			{ label: "violations", value: counts.violations, target: 0 },
			...Object.entries(perOpViolations).map(([op, n]) => ({ label: `  of which during ${op}`, value: n, info: true })),
			{ label: "torn appends (killed mid-write) cut off by Arbor's next write", value: counts.repaired, info: true },
			{ label: "opens after a kill that changed the file", value: counts.readsChanged, target: 0 },
			{ label: "trials where the operation failed before the kill (harness could not exercise it)", value: counts.failed, target: 0 },
			{ label: "leftover temp files (not under a final name; harmless)", value: counts.strayTemps, info: true },
			{ label: "for comparison, pi 0.73.1 appending under the same kills: trials with a partial last line", value: `${piPartial}/${piTrials}`, info: true },
		],
		details,
	};
}
