// The live channel under attack (issue #28, docs/live.md "Security"): another local user posing as the
// user's pi (a socket in someone else's folder; a registration whose pid another user's process reuses),
// clients that try to take pi's memory (parallel floods before the hello, idle connections that never say
// hello: slowloris), and a pi extension sending malformed stream events. Each figure prints the value of the
// commit before the hardening (0f5b54b, measured with this harness's attacks, bounded counts) beside today's.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { workerPath } from "./build.mjs";
import { nodeForOtherUsers, sleep } from "./util.mjs";

/** The extension's limits (pi-extension/channel.ts CHANNEL_LIMITS). */
const MAX_CLIENTS = 16;
const HELLO_MS = 5_000;

function runWorker(worker, args, opts = {}) {
	// A worker run as another user needs a Node binary that user can reach.
	const node = opts.uid === undefined ? process.execPath : nodeForOtherUsers();
	const p = spawnSync(node, [worker, ...args], { encoding: "utf8", timeout: 60_000, ...opts });
	if (p.status !== 0) throw new Error(`live worker ${args[0]} failed: ${(p.stderr || p.stdout).trim().slice(0, 400)}`);
	return JSON.parse(p.stdout.trim().split("\n").at(-1));
}

/** A pi's end of the channel in its own process, HOME in the section's temp folder. */
async function startPi(worker, home) {
	mkdirSync(home, { recursive: true });
	const child = spawn(process.execPath, [worker, "pi"], { env: { ...process.env, HOME: home }, stdio: ["ignore", "pipe", "inherit"] });
	const first = await new Promise((resolve, reject) => {
		let out = "";
		child.stdout.on("data", (d) => {
			out += d;
			if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]));
		});
		child.once("exit", (code) => reject(new Error(`pi worker exited (${code})`)));
	});
	return { child, socket: first.socket, pid: first.pid };
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
function memoryMb(pid) {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
	return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** `n` clients each writing `bytes` without a newline or hello, all at once; resolves when pi closed them all. */
function flood(socket, n, bytes) {
	const chunk = Buffer.alloc(1024 * 1024, 0x61);
	return Promise.all(
		Array.from(
			{ length: n },
			() =>
				new Promise((resolve) => {
					const s = connect(socket);
					s.on("error", () => {});
					s.on("close", resolve);
					s.on("data", () => {});
					s.on("connect", () => {
						let left = bytes;
						const pump = () => {
							while (left > 0) {
								left -= chunk.length;
								if (!s.write(chunk)) return void s.once("drain", pump);
							}
							s.end();
						};
						pump();
					});
				}),
		),
	);
}

/** Open `n` idle connections (no hello); how many pi still holds after `waitMs`, counted by who is not closed. */
async function slowloris(socket, n, waitMs) {
	const sockets = [];
	let closed = 0;
	for (let i = 0; i < n; i++) {
		const s = connect(socket);
		s.on("error", () => {});
		s.on("close", () => closed++);
		s.on("data", () => {});
		sockets.push(s);
		if (i % 200 === 199) await sleep(10);
	}
	await Promise.all(sockets.map((s) => new Promise((r) => (s.connecting ? s.once("connect", r).once("close", r) : r()))));
	await sleep(500);
	const heldSoon = n - closed;
	await sleep(waitMs);
	const heldLater = n - closed;
	for (const s of sockets) s.destroy();
	return { heldSoon, heldLater };
}

export async function run({ bounded, tmp, workers, log }) {
	mkdirSync(tmp, { recursive: true });
	const worker = workerPath(workers, "live-worker");
	const figures = [];
	const root = process.getuid?.() === 0;

	// Another user poses as the user's pi.
	if (root) {
		const o = runWorker(worker, ["ownership", join(tmp, "ownership")]);
		log(`ownership: ${JSON.stringify(o)}`);
		figures.push({
			label: "bytes (hello + secret) Arbor sends to a socket in another user's folder / a folder others can open (before: 304, the secret twice)",
			value: o.bytes,
			target: 0,
		});
		const e = runWorker(worker, ["eperm"], { uid: 65534, gid: 65534, cwd: "/" });
		figures.push({ label: "a registration whose pid another user's process reuses counts as (before: alive)", value: e.verdict, target: "stale" });
	} else {
		figures.push({ label: "ownership and pid-reuse attacks", value: "NOT RUN (they need root to act as a second user)", ok: false });
	}

	// Floods and slowloris against the real extension code.
	const pi = await startPi(worker, join(tmp, "home"));
	try {
		const base = memoryMb(pi.pid);
		const n = 20;
		const mb = bounded ? 12 : 48;
		await flood(pi.socket, n, mb * 1024 * 1024);
		const after = memoryMb(pi.pid);
		log(`flood: rss ${base.rss.toFixed(0)} -> peak ${after.peak.toFixed(0)} MB`);
		figures.push({
			label: `pi's peak memory growth under ${n} parallel ${mb} MB floods before the hello (before: 666 MB, peak 709 MB, for 20 × 12 MB; the review saw 981 MB)`,
			value: `${(after.peak - base.peak).toFixed(0)} MB (peak ${after.peak.toFixed(0)} MB)`,
			ok: after.peak - base.peak < 64,
			targetText: "< 64 MB",
		});
		const count = bounded ? 2_000 : 17_000;
		const held = await slowloris(pi.socket, count, HELLO_MS + 1_000);
		figures.push({
			label: `idle connections (no hello) pi holds of ${count} opened (before: 2000 of 2000, still all 2000 after 6 s)`,
			value: `${held.heldSoon} at once, ${held.heldLater} after ${(HELLO_MS + 1000) / 1000} s`,
			ok: held.heldSoon <= MAX_CLIENTS && held.heldLater === 0,
			targetText: `≤ ${MAX_CLIENTS}, then 0`,
		});
	} finally {
		pi.child.kill("SIGKILL");
	}

	// Malformed events from a pi extension.
	const m = runWorker(worker, ["malformed", join(tmp, "malformed"), String(bounded ? 200 : 5_000)]);
	figures.push({
		label: `malformed stream events (of ${m.sent}) reaching the app / crashing its stream cards (before: 6 / 1 of 200, then the channel closed on the 7th)`,
		value: `${m.delivered} / ${m.crashes}, channel ${m.open ? "still open" : "CLOSED"}, ${m.warnings} dropped with a warning`,
		ok: m.delivered === 0 && m.crashes === 0 && m.open && m.warnings === m.sent,
		targetText: "0 / 0, open",
	});
	return { title: "Live channel: another user, floods, slowloris, malformed events", figures, details: [] };
}
