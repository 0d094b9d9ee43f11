// Figure 1: hostile session files. Every file of the seeded corpus (fuzz-gen.mjs) goes through every core
// call in a worker process (workers/fuzz-worker.ts) under a time bound scaled by file size.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { sha256File } from "./util.mjs";
import { generateCorpus } from "./fuzz-gen.mjs";
import { runPool } from "./pool.mjs";
import { workerPath } from "./build.mjs";

function countLines(file) {
	const b = readFileSync(file);
	let n = 0;
	for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++;
	return n;
}

export async function run(ctx) {
	const { bounded, seed, tmp, log } = ctx;
	const script = workerPath(ctx.workers, "fuzz-worker");
	const count = bounded ? 80 : 1000;
	const tinyLines = bounded ? 100_000 : 1_000_000;
	const corpusDir = join(tmp, "fuzz-corpus");
	const t0 = Date.now();
	const corpus = generateCorpus({ seed, count, outDir: corpusDir, tinyLines, hugeMiB: bounded ? 4 : 16 });
	log(`fuzz: ${corpus.length} files generated in ${((Date.now() - t0) / 1000).toFixed(1)} s (seed ${seed})`);
	const hashes = new Map(corpus.map((f) => [f.path, sha256File(f.path)]));
	let tried = 0,
		unsendable = 0,
		crashes = 0,
		hangs = 0,
		changed = 0,
		violations = 0,
		calls = 0,
		typed = 0,
		opened = 0;
	const details = [];
	const jobs = corpus.map((f, i) => ({ file: f.path, recipe: f.recipe, workDir: join(tmp, "fuzz-work", String(i)), seed }));
	// Time bound per file (all ~360 calls): generous for a loaded 2-core machine but finite, scaled by size
	// and by line count (10^6 lines of "{}" are only 3 MB but take ~4 min of calls on the loaded machine).
	const timeoutMs = (job) => 90_000 + Math.ceil(statSync(job.file).size / 1e6) * 5_000 + Math.ceil(countLines(job.file) * 0.3);
	await runPool({
		script,
		jobs,
		size: 2,
		timeoutMs,
		execArgv: ["--max-old-space-size=3072"],
		onResult(job, outcome) {
			tried++;
			if (outcome.kind === "hang") {
				hangs++;
				details.push(`HANG ${job.recipe}: ${outcome.detail}`);
			} else if (outcome.kind === "died") {
				crashes++;
				details.push(`CRASH ${job.recipe}: ${outcome.detail}`);
			} else {
				const r = outcome.result;
				calls += r.calls;
				typed += r.typedErrors;
				if (r.opened) opened++;
				if (r.crashes.length) {
					crashes++;
					details.push(`CRASH ${job.recipe}: ${r.crashes.slice(0, 3).join(" || ")}`);
				}
				if (r.unsendable.length) {
					unsendable++;
					details.push(`UNSENDABLE ${job.recipe}: ${r.unsendable[0]}`);
				}
				if (r.violations.length) {
					violations++;
					details.push(`WRITE VIOLATION ${job.recipe}: ${r.violations.slice(0, 3).join(" || ")}`);
				}
			}
			if (sha256File(job.file) !== hashes.get(job.file)) {
				changed++;
				details.push(`CHANGED ${job.recipe}`);
			}
			if (tried % 50 === 0) log(`fuzz: ${tried}/${jobs.length}`);
		},
	});
	return {
		title: "Fuzzing: hostile session files",
		figures: [
			{ label: "files tried", value: tried, ok: tried === corpus.length },
			{ label: "API calls made", value: calls, info: true },
			{ label: "files that opened (rest: typed error)", value: opened, info: true },
			{ label: "typed errors (expected, shown to the user)", value: typed, info: true },
			{ label: "crashes", value: crashes, target: 0 },
			{ label: "hangs", value: hangs, target: 0 },
			{ label: "input files changed", value: changed, target: 0 },
			{ label: "files with a result the wire codec cannot encode (host answers 'internal')", value: unsendable, info: true },
			{ label: "write violations (copy damaged, or branch file incomplete)", value: violations, target: 0 },
		],
		details,
	};
}
