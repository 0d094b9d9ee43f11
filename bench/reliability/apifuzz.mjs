// Figure 6: API fuzzing over the browser host's WebSocket. The host serves one folder and one launch file;
// a canary folder outside them holds a session file with a secret. Random and malformed requests must
// never crash the host, never answer untyped, never read the canary (its bytes and access time stay
// the same) and never write outside the allowed places.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixturesDir, genSessionTool } from "./fuzz-gen.mjs";
import { workerPath } from "./build.mjs";
import { forkWorker } from "./util.mjs";

// Reading a file or listing a folder updates its access time, so times are taken before contents.
const times = (paths) => paths.map((p) => ({ p, atimeMs: statSync(p).atimeMs, mtimeMs: statSync(p).mtimeMs }));
const contents = (paths) => paths.map((p) => (statSync(p).isFile() ? readFileSync(p) : Buffer.from(readdirSync(p).sort().join("\n"))));

/** Identical messages collapsed into one line with a count. */
function summarize(lines) {
	const counts = new Map();
	for (const l of lines) counts.set(l, (counts.get(l) ?? 0) + 1);
	return [...counts].map(([l, n]) => (n > 1 ? `${l} (×${n})` : l));
}

export async function startHost(ctx, { files, dirs, home, rendererDir }) {
	const host = await forkWorker(workerPath(ctx.workers, "host-worker"), { env: { HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent") } });
	const started = await host.ask({ files, dirs, rendererDir }, "started", 60_000);
	if (started.error) {
		host.kill();
		throw new Error(`browser host did not start: ${started.error}`);
	}
	return { ...started, worker: host };
}

export async function run(ctx) {
	const { bounded, seed, tmp, log } = ctx;
	const count = bounded ? 5000 : 50000;
	const served = join(tmp, "served");
	const launchDir = join(tmp, "launch");
	const canaryDir = join(tmp, "canary");
	const home = join(tmp, "home");
	for (const d of [served, launchDir, canaryDir, home]) mkdirSync(d, { recursive: true });
	const secret = `CANARY-SECRET-${seed}-${Date.now()}`;
	execFileSync(process.execPath, [genSessionTool, "--n", "150", "--seed", `api-${seed}`, "--out", join(served, "served.jsonl")], { stdio: "ignore" });
	copyFileSync(join(fixturesDir, "formic__pi-v2-hook-message.jsonl"), join(served, "legacy-v2.jsonl"));
	execFileSync(process.execPath, [genSessionTool, "--n", "80", "--seed", `api-l-${seed}`, "--out", join(launchDir, "launch.jsonl")], { stdio: "ignore" });
	const canary = join(canaryDir, "canary.jsonl");
	writeFileSync(
		canary,
		`{"type":"session","version":3,"id":"canary","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n{"type":"message","id":"c1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"${secret}"}}\n`,
	);
	const secretTxt = join(canaryDir, "secret.txt");
	writeFileSync(secretTxt, `${secret}\n`);
	const phase = async (n, phaseSeed) => {
		const watched = [canary, secretTxt, canaryDir];
		const bytesBefore = contents(watched);
		// Access times two days old (older than the mtime) so any read by the host updates them (relatime).
		const old = new Date(Date.now() - 2 * 86_400_000);
		const mtime = new Date(Date.now() - 86_400_000);
		for (const p of watched) utimesSync(p, old, mtime);
		const before = times(watched);

		const host = await startHost(ctx, { files: [join(launchDir, "launch.jsonl")], dirs: [served], home, rendererDir: join(tmp, "no-renderer") });
		const client = await forkWorker(workerPath(ctx.workers, "ws-fuzz"));
		let res;
		try {
			res = await client.ask(
				{
					port: host.port,
					token: host.token,
					count: n,
					seed: phaseSeed,
					secret,
					allowedFiles: [join(launchDir, "launch.jsonl"), join(served, "served.jsonl"), join(served, "legacy-v2.jsonl")],
					allowedDirs: [served],
					canaryPaths: [canary, secretTxt, canaryDir],
				},
				"done",
				1_800_000,
			);
		} finally {
			client.kill();
		}
		const hostAlive = host.worker.child.exitCode === null && host.worker.child.signalCode === null;
		host.worker.kill();
		if (res.fatal) throw new Error(`fuzz client failed: ${res.fatal}`);
		const after = times(watched);
		const bytesAfter = contents(watched);
		const canaryViolations = [];
		for (const [i, b] of before.entries()) {
			const a = after[i];
			if (Buffer.compare(bytesAfter[i], bytesBefore[i]) !== 0) canaryViolations.push(`${b.p}: content changed`);
			if (a.atimeMs !== b.atimeMs) canaryViolations.push(`${b.p}: read by the host (access time changed)`);
			if (a.mtimeMs !== b.mtimeMs) canaryViolations.push(`${b.p}: modified`);
		}
		// Writes may only land next to files the user opened (branch to file) or in the served folder.
		const strays = readdirSync(tmp).filter((f) => !["served", "launch", "canary", "home", "no-renderer"].includes(f));
		return { res, canaryViolations, strays, hostAlive, hostStderr: host.worker.stderr() };
	};
	// Phase 1: the served folder holds only regular files.
	const { res, canaryViolations, strays, hostAlive, hostStderr } = await phase(count, seed);
	// Phase 2: a symlink in the served folder points at the canary (and one at its folder): listing or
	// opening through it must not reach outside, as the path policy promises (realpath checks).
	symlinkSync(canary, join(served, "link-to-canary.jsonl"));
	symlinkSync(canaryDir, join(served, "linkdir"));
	const p2 = await phase(bounded ? 300 : 2000, `${seed}-symlinks`);
	const symlinkViolations = p2.res.violations.length + p2.canaryViolations.length + (p2.hostAlive ? 0 : 1);
	log(
		`api fuzz: ${res.requests} requests, ${res.oks} ok, errors by code ${JSON.stringify(res.codes)}, ${res.frames} malformed frames, ${res.reconnects} reconnects`,
	);
	const violations = res.violations.length + canaryViolations.length + strays.length + (hostAlive ? 0 : 1);
	return {
		title: "API fuzzing over the browser host's WebSocket",
		figures: [
			{ label: "requests", value: res.requests, ok: res.requests >= count * 0.8 },
			{ label: "malformed frames", value: res.frames, info: true },
			{ label: "answered ok / typed error", value: `${res.oks} / ${res.requests - res.oks}`, info: true },
			{ label: "violations (crash, untyped or missing answer, canary read or written, stray write)", value: violations, target: 0 },
			{ label: "host still running at the end", value: hostAlive ? "yes" : "no", ok: hostAlive },
			{ label: `symlink phase: requests with a symlink to the canary in the served folder`, value: p2.res.requests, info: true },
			{ label: "symlink phase: violations (canary listed, read or returned through the symlink)", value: symlinkViolations, target: 0 },
		],
		details: [
			...summarize(res.violations),
			...canaryViolations,
			...strays.map((s) => `unexpected file ${s}`),
			...(hostAlive ? [] : [`host died: ${hostStderr.slice(-500)}`]),
			...summarize(p2.res.violations.map((v) => `symlink phase: ${v}`)),
			...p2.canaryViolations.map((v) => `symlink phase: ${v}`),
		],
	};
}
