#!/usr/bin/env node
// `npm run bench`: Arbor's session core against (a) the floor — read + JSON.parse of every line — and
// (b) pi's own SessionManager (@mariozechner/pi-coding-agent), measured in the same run on the same files.
// Every figure comes from its own child process (clean peak RSS). Sessions are generated once with
// ../shared/tools/gen-session.mjs and cached in bench/.cache/ (gitignored). See docs/bench.md.
//
//   node bench/run.mjs            default set (10k + 100k, both profiles, 100k-deep chain, branch)
//   node bench/run.mjs --quick    small sizes only (for development)
//   node bench/run.mjs --big      also the 1M-entry / ~1.3 GB fixture-profile file (pi cannot open it)
//   node bench/run.mjs --json     also print the raw results as JSON
//   node bench/run.mjs --only deep,branch   only some sections (context, open, deep, branch, search, rollup, big)
//   node bench/run.mjs --runs 7   paired runs per whole-process figure (default 5; --quick 3)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cache = join(root, "bench", ".cache");
const genScript = join(root, "..", "shared", "tools", "gen-session.mjs");
const argv = process.argv.slice(2);
const flags = new Set(argv);
const quick = flags.has("--quick");
const onlyAt = argv.indexOf("--only");
// --only open,deep,branch,big: run some sections (e.g. `--big --only big` after a full run).
const only = onlyAt >= 0 ? new Set((argv[onlyAt + 1] ?? "").split(",")) : undefined;
const want = (section) => !only || only.has(section);
const big = flags.has("--big") || (only?.has("big") ?? false);
mkdirSync(cache, { recursive: true });

// ---------------------------------------------------------------- sessions
const sessions = quick
	? [
			{ key: "2k brief", args: ["--n", "2000"] },
			{ key: "10k brief", args: ["--n", "10000"] },
			{ key: "10k fixture", args: ["--n", "10000", "--profile", "fixture"] },
		]
	: [
			{ key: "10k brief", args: ["--n", "10000"] },
			{ key: "10k fixture", args: ["--n", "10000", "--profile", "fixture"] },
			{ key: "100k brief", args: ["--n", "100000"] },
			{ key: "100k fixture", args: ["--n", "100000", "--profile", "fixture"] },
		];
const chainN = quick ? 10000 : 100000;
const deep = { key: `${chainN / 1000}k-deep chain`, args: ["--n", String(chainN), "--profile", "fixture", "--branch-every", "0"] };
const branchSrcs = [
	{ key: "10k-deep chain, fixture profile", args: ["--n", "10000", "--profile", "fixture", "--branch-every", "0"] },
	{ key: "10k-deep chain, brief profile", args: ["--n", "10000", "--branch-every", "0"] },
];
const bigSession = { key: "1M fixture", args: ["--n", "1000000", "--profile", "fixture"] };

function sessionFile(s) {
	const file = join(
		cache,
		`${s.args
			.join("_")
			.replace(/--/g, "")
			.replace(/[^\w.-]+/g, "")}_seed-bench.jsonl`,
	);
	if (!existsSync(file)) {
		process.stdout.write(`generating ${s.key} (${s.args.join(" ")}) ... `);
		const t = Date.now();
		const partial = `${file}.partial`;
		const r = spawnSync(process.execPath, [genScript, ...s.args, "--seed", "bench", "--out", partial], { stdio: ["ignore", "ignore", "inherit"] });
		if (r.status !== 0) throw new Error(`gen-session failed for ${s.key}`);
		renameSync(partial, file);
		process.stdout.write(`${((Date.now() - t) / 1000).toFixed(1)} s\n`);
	}
	return file;
}

// ---------------------------------------------------------------- worker bundle
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

function measure(task, file, extra = []) {
	const r = spawnSync(process.execPath, ["--max-old-space-size=8192", worker, task, file, ...extra], {
		encoding: "utf8",
		env: { ...process.env, ARBOR_BENCH_ROOT: root },
		maxBuffer: 16 * 1024 * 1024,
		timeout: 10 * 60 * 1000,
	});
	const lastLine = (r.stdout || "").trim().split("\n").pop();
	try {
		return JSON.parse(lastLine);
	} catch {
		return { ok: false, error: (r.stderr || `exit ${r.status} ${r.signal ?? ""}`).trim().split("\n").slice(-3).join(" | ").slice(0, 300) };
	}
}

// ---------------------------------------------------------------- whole processes
// `arbor context` is a command: its figure is the whole process (start-up, bundle load, scan, output), as a
// user waits for it. Every command below runs with bench/usage-at-exit.cjs preloaded, which reports the
// process's own CPU time and peak RSS at exit; wall time is taken here around the spawn. The commands run
// in turn (A B C ... A B C ...) so a machine that speeds up or slows down during the run moves them alike;
// each figure is the median of its runs and each ratio the median of the per-round ratios.
const runsAt = argv.indexOf("--runs");
const runs = runsAt >= 0 ? Math.max(1, Number(argv[runsAt + 1]) || 5) : quick ? 3 : 5;
const usagePreload = join(root, "bench", "usage-at-exit.cjs");

function wholeProcess(args) {
	return new Promise((ok) => {
		const t = performance.now();
		const child = spawn(process.execPath, ["--require", usagePreload, ...args], {
			cwd: root,
			env: { ...process.env, ARBOR_BENCH_ROOT: root },
			stdio: ["ignore", "ignore", "pipe"],
		});
		let err = "";
		child.stderr.on("data", (d) => (err += d));
		child.on("close", (code) => {
			const ms = performance.now() - t;
			const m = /@@arbor-bench-usage (.*)\n/.exec(err);
			const u = m ? JSON.parse(m[1]) : {};
			ok({
				ok: code === 0 && !!m,
				ms,
				cpuMs: u.cpuMs,
				rssMiB: u.rssMiB,
				error: code === 0 ? undefined : err.trim().split("\n").slice(-2).join(" | ").slice(0, 200),
			});
		});
	});
}

const median = (xs) => {
	const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
	return v.length ? v[Math.floor((v.length - 1) / 2)] : Number.NaN;
};

/** Runs every command `runs` times in turn; returns per-command medians and the per-round ratios to `base`. */
async function paired(cmds, base) {
	const rounds = [];
	for (let r = 0; r < runs + 1; r++) {
		const round = {};
		for (const [k, args] of Object.entries(cmds)) round[k] = await wholeProcess(args);
		if (r > 0) rounds.push(round); // the first round warms the page cache and is not counted
	}
	const out = {};
	for (const k of Object.keys(cmds)) {
		const rs = rounds.map((x) => x[k]);
		out[k] = {
			ok: rs.every((x) => x.ok),
			error: rs.find((x) => !x.ok)?.error,
			ms: median(rs.map((x) => x.ms)),
			cpuMs: median(rs.map((x) => x.cpuMs)),
			rssMiB: Math.max(...rs.map((x) => x.rssMiB ?? 0)),
			vsBase:
				base && k !== base ? { wall: median(rounds.map((x) => x[k].ms / x[base].ms)), cpu: median(rounds.map((x) => x[k].cpuMs / x[base].cpuMs)) } : undefined,
		};
	}
	return out;
}

const readFloor = (file) => [
	"-e",
	`const fs=require("fs");const fd=fs.openSync(${JSON.stringify(file)},"r");const b=Buffer.allocUnsafe(8<<20);let n=0,p=0,r;while((r=fs.readSync(fd,b,0,b.length,p))>0){p+=r;for(let i=b.indexOf(10);i>=0&&i<r;i=b.indexOf(10,i+1))n++}`,
];
const arborCli = join(root, "bin", "arbor.cjs");

// ---------------------------------------------------------------- formatting
const s = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);
const mib = (m) => (m >= 1024 ? `${(m / 1024).toFixed(2)} GiB` : `${Math.round(m)} MiB`);
const size = (b) => (b >= 1 << 30 ? `${(b / (1 << 30)).toFixed(2)} GB` : `${Math.round(b / (1 << 20))} MB`);
const ratio = (a, b) => (b / a >= 1 ? `${(b / a).toFixed(1)}x faster than` : `${(a / b).toFixed(1)}x slower than`);
const verdict = (ok) => (ok ? "PASS" : "MISS");
const results = { when: new Date().toISOString(), node: process.version, open: [], deep: null, branch: null, big: null };
const out = (line) => process.stdout.write(`${line}\n`);

const base = measure("baseline", "-");
const os = await import("node:os");
results.load = os.loadavg()[0];
out(
	`node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)} at start; an empty node process peaks at ${mib(base.rssMiB)} RSS`,
);
if (os.loadavg()[0] > os.cpus().length) out("  (the machine is busy: wall times are inflated; the cpu figures and ratios are the steadier comparison)");
out("");

if (want("context")) {
	spawnSync(process.execPath, [join(root, "build", "build-main.mjs")], { cwd: root, stdio: "inherit" });
	out(`context = whole processes, median of ${runs} paired runs (cpu = user + system of the process; peak = its max RSS):`);
	out("  node -e 0 | raw read (read the file in 8 MiB chunks, count lines) | `arbor context FILE --json` | pi open + buildSessionContext (1.6.0, 0.73.1)");
	results.context = [];
	const ctxSessions = quick ? [sessions[2]] : [sessions[3], sessions[2]];
	if (big) ctxSessions.push(bigSession);
	for (const sess of ctxSessions) {
		const file = sessionFile(sess);
		const bytes = statSync(file).size;
		const isBig = sess === bigSession;
		const cmds = { node: ["-e", "0"], read: readFloor(file), arbor: [arborCli, "context", file, "--json"] };
		// pi cannot open the 1M file (larger than a JS string); a 1M run would only time its failure.
		if (!isBig) Object.assign(cmds, { pi16: [worker, "pi16-open", file], pi73: ["--max-old-space-size=8192", worker, "pi-open", file] });
		const r = await paired(cmds, "arbor");
		results.context.push({ session: sess.key, bytes, ...r });
		const fig = (x) => (x.ok ? `${s(x.ms)} (cpu ${s(x.cpuMs)}) ${mib(x.rssMiB)}` : `failed: ${x.error}`);
		const times = (q) => (q >= 1 ? `${q.toFixed(1)}x faster` : `${(1 / q).toFixed(1)}x slower`);
		const vs = (x, name) => (x.ok && r.arbor.ok ? ` | ${name} ${fig(x)}, arbor ${times(x.vsBase.wall)} (cpu ${times(x.vsBase.cpu)})` : ` | ${name} ${fig(x)}`);
		out(
			`context ${sess.key} (${size(bytes)}): node -e 0 ${fig(r.node)} | raw read ${fig(r.read)} | arbor ${fig(r.arbor)}${isBig ? "" : vs(r.pi16, "pi 1.6.0") + vs(r.pi73, "pi 0.73.1")}`,
		);
		if (isBig) out(`  target: opens within 1 GiB: ${mib(r.arbor.rssMiB)} -> ${verdict(r.arbor.ok && r.arbor.rssMiB <= 1024)}`);
		else if (sess.key.startsWith("100k") && r.pi16.ok && r.arbor.ok) {
			const limit = sess.key.includes("fixture") ? " and <=150 MiB" : "";
			const pass = r.pi16.vsBase.wall >= 5 && (!limit || r.arbor.rssMiB <= 150);
			out(
				`  target: >=5x faster than pi 1.6.0${limit}: ${r.pi16.vsBase.wall.toFixed(1)}x wall, ${r.pi16.vsBase.cpu.toFixed(1)}x cpu, ${mib(r.arbor.rssMiB)} -> ${verdict(pass)}`,
			);
		}
	}
	out("");
}

out("open = SessionManager.open; +ctx = open + buildSessionContext at the loaded leaf (what pi does to resume)");

for (const sess of want("open") ? sessions : []) {
	const file = sessionFile(sess);
	const bytes = statSync(file).size;
	const fl = measure("floor", file);
	const a = measure("arbor-open", file);
	const p = measure("pi-open", file);
	results.open.push({ session: sess.key, bytes, floor: fl, arbor: a, pi: p });
	if (!a.ok) {
		out(`open ${sess.key} (${size(bytes)}): arbor FAILED: ${a.error}`);
		continue;
	}
	const piOk = p.ok && !p.failed;
	const piPart = piOk
		? `pi ${s(p.totalMs)} ${mib(p.rssMiB)} | ${ratio(a.totalMs, p.totalMs)} pi (cpu: ${ratio(a.cpuMs, p.cpuMs)} pi)`
		: `pi failed: ${p.failed ?? p.error}`;
	out(
		`open ${sess.key} (${size(bytes)}, ${a.entries} entries): arbor ${s(a.ms)} (+ctx ${s(a.totalMs)}, cpu ${s(a.cpuMs)}) / ${mib(a.rssMiB)} | floor ${s(fl.ms)} (cpu ${s(fl.cpuMs)}) ${mib(fl.rssMiB)} | ${piPart}`,
	);
	if (piOk && (a.entries !== p.entries || a.messages !== p.messages)) {
		out(`  MISMATCH: arbor ${a.entries} entries / ${a.messages} context messages, pi ${p.entries} / ${p.messages}`);
	}
	if (sess.key === "100k brief" && piOk) {
		out(
			`  target: >=5x faster than pi and <=400 MiB peak: ${(p.totalMs / a.totalMs).toFixed(1)}x wall, ${(p.cpuMs / a.cpuMs).toFixed(1)}x cpu, ${mib(a.rssMiB)} -> ${verdict(p.totalMs / a.totalMs >= 5 && a.rssMiB <= 400)}`,
		);
	}
}

if (want("deep")) {
	const file = sessionFile(deep);
	const a = measure("arbor-deep", file);
	const p = measure("pi-deep", file);
	results.deep = { session: deep.key, arbor: a, pi: p };
	out("");
	if (!a.ok) out(`depth ${deep.key}: arbor FAILED: ${a.error}`);
	else {
		const piB = p.ok ? ` | pi ${s(p.getBranch.median)} (${ratio(a.getBranch.median, p.getBranch.median)} pi)` : ` | pi failed: ${p.error}`;
		const piC = p.ok ? ` | pi ${s(p.buildSessionContext.median)} (${ratio(a.buildSessionContext.median, p.buildSessionContext.median)} pi)` : "";
		out(
			"(warm = median over 5 other leaves at the same depth, after the first call and 3 uncounted warm-up calls on further leaves; cold = first call after open, incl. lazy parsing)",
		);
		out(
			`getBranch at depth ${a.depth}: arbor warm ${s(a.getBranch.median)} (cpu ${s(a.getBranch.cpu)}), cold ${s(a.getBranch.first)}${piB}  target <=10 ms: ${verdict(a.getBranch.median <= 10)}`,
		);
		if (a.branchIds) out(`getBranchIds at depth ${a.depth} (ids only, no entry objects): arbor ${s(a.branchIds.median)}`);
		out(
			`buildSessionContext at depth ${a.depth}: arbor warm ${s(a.buildSessionContext.median)} (cpu ${s(a.buildSessionContext.cpu)}), cold ${s(a.buildSessionContext.first)}${piC}  target <=15 ms: ${verdict(a.buildSessionContext.median <= 15)}`,
		);
	}
}

results.branch = [];
for (const src of want("branch") ? branchSrcs : []) {
	const file = sessionFile(src);
	const a = measure("arbor-branch", file, ["10000"]);
	const p = measure("pi-branch", file, ["10000"]);
	results.branch.push({ session: src.key, arbor: a, pi: p });
	if (!a.ok) out(`branch to new file (${src.key}): arbor FAILED: ${a.error}`);
	else {
		const piPart = p.ok ? ` | pi ${s(p.median)} (no fsync)` : ` | pi failed: ${p.error}`;
		out(
			`branch to new file from a 10k-deep path (${src.key}, ${size(a.bytes)} written, incl. fsync): arbor ${s(a.median)} (cpu ${s(a.cpuMs)})${piPart}  target <=100 ms: ${verdict(a.median <= 100)}`,
		);
	}
}

if (want("search")) {
	// The 100k brief file (10k with --quick): first query per scope, another word, the word typed further.
	const sess = sessions.find((x) => x.key === (quick ? "10k brief" : "100k brief"));
	const file = sessionFile(sess);
	const a = measure("arbor-search", file);
	results.search = { session: sess.key, arbor: a };
	out("");
	if (!a.ok) out(`search ${sess.key}: arbor FAILED: ${a.error}`);
	else {
		for (const scope of ["pi", "full"]) {
			const r = a[scope];
			const f = (x) => `${s(x.ms)} (cpu ${s(x.cpuMs)}, ${x.hits} hits)`;
			out(`search ${sess.key}, ${scope} scope: first query ${f(r.first)} | another word ${f(r.other)} | typed further ${f(r.narrowed)}`);
		}
	}
}

if (want("rollup")) {
	// Subtree roll-ups of the whole tree (issue #12): own script, own process.
	const r = spawnSync(process.execPath, [join(root, "bench", "rollup.mjs"), "--n", quick ? "10000" : "100000"], { encoding: "utf8" });
	out("");
	out(r.status === 0 ? r.stdout.trim() : `roll-ups FAILED: ${r.stderr.trim().slice(0, 300)}`);
}

if (big) {
	const file = sessionFile(bigSession);
	const bytes = statSync(file).size;
	const fl = measure("floor", file);
	const a = measure("arbor-open", file);
	const p = measure("pi-open", file);
	results.big = { session: bigSession.key, bytes, floor: fl, arbor: a, pi: p };
	out("");
	if (!a.ok) out(`open ${bigSession.key} (${size(bytes)}): arbor FAILED: ${a.error}`);
	else {
		const piPart = p.ok && !p.failed ? `pi ${s(p.totalMs)} ${mib(p.rssMiB)}` : `pi cannot open it (${(p.failed ?? p.error ?? "").slice(0, 80)})`;
		out(
			`open ${bigSession.key} (${size(bytes)}, ${a.entries} entries): arbor ${s(a.ms)} (+ctx ${s(a.totalMs)}, cpu ${s(a.cpuMs)}) / ${mib(a.rssMiB)} | floor ${s(fl.ms)} (cpu ${s(fl.cpuMs)}) ${mib(fl.rssMiB)} | ${piPart}`,
		);
		out(`  target: opens within 1 GiB peak RSS: ${mib(a.rssMiB)} -> ${verdict(a.rssMiB <= 1024)}`);
	}
}

results.loadAtEnd = os.loadavg()[0];
out(`load average at end ${results.loadAtEnd.toFixed(1)}`);
writeFileSync(join(cache, "last.json"), `${JSON.stringify(results, null, 2)}\n`);
if (flags.has("--json")) out(JSON.stringify(results, null, 2));
