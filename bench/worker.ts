// One measurement per process (bench/run.mjs spawns this, bundled by esbuild), so peak RSS
// (process.resourceUsage().maxRSS) belongs to that measurement alone. Prints one JSON line.
//   node worker.mjs <task> <file> [arg]
// Tasks: baseline | floor | arbor-open | pi-open (pi 0.73.1) | pi16-open (pi 1.6) | arbor-deep | pi-deep | arbor-branch |
// pi-branch | arbor-search
import { closeSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { SessionManager } from "../electron/session/index";

interface PiLike {
	getLeafId(): string | null;
	branch(id: string): void;
	getBranch(fromId?: string): unknown[];
	getEntries(): Array<{ id: string }>;
	buildSessionContext(): { messages: unknown[] };
	createBranchedSession(leafId: string): string | undefined;
}
interface PiModule {
	SessionManager: { open(path: string, sessionDir?: string): PiLike };
}

const [task, file, arg] = process.argv.slice(2);
const now = () => performance.now();
/** CPU time of this process in ms (user + system): less distorted than wall time when the machine is shared. */
const cpu = () => {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
};
const rssMiB = () => process.resourceUsage().maxRSS / 1024;

/** pi 0.73.1 (@mariozechner, the old reference) or pi 1.6 (@earendil-works, today's pi). */
async function loadPi(pkg = "@mariozechner/pi-coding-agent"): Promise<PiModule> {
	// Only pi's session module: importing the package root also loads its TUI/agent (1.8 s, extra RSS)
	// that have nothing to do with opening a session (and pi 1.6's root does not load on Node 20).
	const url = new URL(`../node_modules/${pkg}/dist/core/session-manager.js`, `file://${process.env.ARBOR_BENCH_ROOT}/bench/`);
	// eslint-disable-next-line arbor/layers -- each pi version's session-manager module, by path (pi 1.6's root does not load on Node 20)
	return (await import(url.href)) as PiModule;
}

/** The floor: read the file in chunks and JSON.parse every line, keeping nothing. */
function floor(path: string): { lines: number } {
	const fd = openSync(path, "r");
	const chunk = Buffer.allocUnsafe(16 * 1024 * 1024);
	let carry: Buffer = Buffer.alloc(0);
	let lines = 0;
	let pos = 0;
	for (;;) {
		const n = readSync(fd, chunk, 0, chunk.length, pos);
		if (n === 0) break;
		pos += n;
		const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
		let start = 0;
		for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
			if (nl > start) {
				JSON.parse(buf.toString("utf8", start, nl));
				lines++;
			}
			start = nl + 1;
		}
		carry = Buffer.from(buf.subarray(start));
	}
	if (carry.length) {
		JSON.parse(carry.toString("utf8"));
		lines++;
	}
	closeSync(fd);
	return { lines };
}

async function main(): Promise<Record<string, unknown>> {
	switch (task) {
		case "baseline":
			return {};
		case "floor": {
			const c = cpu();
			const t = now();
			const r = floor(file);
			return { ms: now() - t, cpuMs: cpu() - c, ...r };
		}
		case "arbor-open": {
			const c = cpu();
			const t0 = now();
			const sm = SessionManager.open(file);
			const t1 = now();
			const ctx = sm.buildSessionContext();
			const t2 = now();
			return {
				ms: t1 - t0,
				ctxMs: t2 - t1,
				totalMs: t2 - t0,
				cpuMs: cpu() - c,
				entries: sm.getEntries().length,
				messages: ctx.messages.length,
				warnings: sm.getWarningCount(),
			};
		}
		case "pi-open":
		case "pi16-open": {
			const pi = await loadPi(task === "pi16-open" ? "@earendil-works/pi-coding-agent" : undefined);
			const before = statSync(file).mtimeMs;
			const c = cpu();
			const t0 = now();
			let sm: PiLike;
			try {
				sm = pi.SessionManager.open(file);
			} catch (e) {
				return { failed: String((e as Error).message).slice(0, 200), ms: now() - t0 };
			}
			const t1 = now();
			const ctx = sm.buildSessionContext();
			const t2 = now();
			if (statSync(file).mtimeMs !== before) throw new Error(`pi rewrote ${file}; regenerate the bench cache`);
			return { ms: t1 - t0, ctxMs: t2 - t1, totalMs: t2 - t0, cpuMs: cpu() - c, entries: sm.getEntries().length, messages: ctx.messages.length };
		}
		case "arbor-deep":
		case "pi-deep": {
			// Cold = the first call after open (includes any lazy parsing); warm = the median over 5 other
			// leaves near the bottom (distinct leaves, so no result cache can answer them).
			let sm: SessionManager | PiLike;
			if (task === "arbor-deep") sm = SessionManager.open(file);
			else sm = (await loadPi()).SessionManager.open(file);
			const entries = sm.getEntries();
			const ids = [1, 2, 3, 4, 5].map((k) => (entries[entries.length - 1 - k] as { id: string }).id);
			// Three more leaves, called first and not counted: the JIT is still compiling the walk during the
			// first calls (3-6x the steady cost), which would otherwise dominate a median of five.
			const warmup = [6, 7, 8].map((k) => (entries[entries.length - 1 - k] as { id: string }).id);
			let t = now();
			const depth = sm.getBranch().length;
			const branchCold = now() - t;
			t = now();
			sm.buildSessionContext();
			const contextCold = now() - t;
			for (const id of warmup) {
				sm.getBranch(id);
				if (sm instanceof SessionManager) sm.buildSessionContext(id);
				else {
					sm.branch(id);
					sm.buildSessionContext();
				}
			}
			const branchWarm: number[] = [];
			const contextWarm: number[] = [];
			const branchCpu: number[] = [];
			const contextCpu: number[] = [];
			for (const id of ids) {
				let c = cpu();
				t = now();
				sm.getBranch(id);
				branchWarm.push(now() - t);
				branchCpu.push(cpu() - c);
				c = cpu();
				t = now();
				if (sm instanceof SessionManager) sm.buildSessionContext(id);
				else {
					sm.branch(id);
					sm.buildSessionContext();
				}
				contextWarm.push(now() - t);
				contextCpu.push(cpu() - c);
			}
			const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
			// Arbor's structure-only path (ids, no entry objects), when the core offers it.
			let branchIds: { median: number } | undefined;
			if (sm instanceof SessionManager && typeof (sm as unknown as { getBranchIds?: unknown }).getBranchIds === "function") {
				const fn = (sm as unknown as { getBranchIds(id?: string): string[] }).getBranchIds.bind(sm);
				const times = ids.map((id) => {
					const t0 = now();
					fn(id);
					return now() - t0;
				});
				branchIds = { median: median(times) };
			}
			return {
				depth,
				getBranch: { first: branchCold, median: median(branchWarm), cpu: median(branchCpu) },
				buildSessionContext: { first: contextCold, median: median(contextWarm), cpu: median(contextCpu) },
				branchIds,
			};
		}
		case "arbor-branch":
		case "pi-branch": {
			// createBranchedSession from the entry at depth `arg` of a linear session, new file included.
			const depth = Number(arg);
			const times: number[] = [];
			const cpus: number[] = [];
			let written = 0;
			for (let i = 0; i < 3; i++) {
				let sm: SessionManager | PiLike;
				if (task === "arbor-branch") sm = SessionManager.open(file);
				else sm = (await loadPi()).SessionManager.open(file);
				// The entry at that depth (file order = depth in a linear chain). Arbor reads its id from the index:
				// parsing all 10k entries first (getEntries) would leave ~100 MB of objects on the heap that the
				// app never holds, and the branch would then be timed mostly as garbage collection. pi holds
				// them anyway.
				const target = sm instanceof SessionManager ? sm.idAt(depth - 1) : (sm.getEntries()[depth - 1] as { id: string }).id;
				const c = cpu();
				const t = now();
				const out = sm.createBranchedSession(target) as string;
				times.push(now() - t);
				cpus.push(cpu() - c);
				written = statSync(out).size;
				if (dirname(out) === dirname(file)) rmSync(out);
				if (sm instanceof SessionManager) sm.close();
			}
			times.sort((a, b) => a - b);
			cpus.sort((a, b) => a - b);
			return { depth, median: times[1], min: times[0], cpuMs: cpus[1], bytes: written };
		}
		case "arbor-search": {
			// What a user typing does: a first query per scope (builds/reads everything), another word, then
			// the same word typed further (narrowing).
			const sm = SessionManager.open(file);
			const run = (q: string, scope: "pi" | "full") => {
				const c = cpu();
				const t = now();
				const hits = sm.search(q, scope).length;
				return { ms: now() - t, cpuMs: cpu() - c, hits };
			};
			return {
				pi: { first: run("read", "pi"), other: run("error", "pi"), narrowed: run("error t", "pi") },
				full: { first: run("read", "full"), other: run("error", "full"), narrowed: run("error t", "full") },
			};
		}
		default:
			throw new Error(`unknown task ${task}`);
	}
}

main().then(
	(r) => process.stdout.write(`${JSON.stringify({ ok: true, ...r, rssMiB: rssMiB() })}\n`),
	(e: unknown) => {
		process.stdout.write(`${JSON.stringify({ ok: false, error: String(e instanceof Error ? e.message : e).slice(0, 300), rssMiB: rssMiB() })}\n`);
		process.exitCode = 1;
	},
);
