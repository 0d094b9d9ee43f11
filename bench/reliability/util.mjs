// Small helpers shared by the reliability sections (Node only).
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export function sha256File(path) {
	return createHash("sha256").update(readFileSync(path)).digest("hex");
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function fmtBytes(n) {
	if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(2)} GiB`;
	if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(0)} MiB`;
	return `${n} B`;
}

/**
 * A Node binary another user (the sections' `nobody`) can run: this process's own when every folder above it
 * lets others through, else a copy in a 0755 folder of the temp dir. `npm test` runs on the Node 24 of the
 * runtimes cache under ~/.cache, which only its owner can enter.
 */
export function nodeForOtherUsers() {
	const own = process.execPath;
	const open = (p) => (statSync(p).mode & 0o001) !== 0;
	let ok = (statSync(own).mode & 0o005) === 0o005;
	for (let d = dirname(own); ok && d !== dirname(d); d = dirname(d)) ok = open(d);
	if (ok) return own;
	const dir = join(tmpdir(), `arbor-reliability-node-${process.version}`);
	const copy = join(dir, "node");
	if (!existsSync(copy)) {
		mkdirSync(dir, { recursive: true, mode: 0o755 });
		chmodSync(dir, 0o755);
		const part = `${copy}.${process.pid}`;
		copyFileSync(own, part);
		chmodSync(part, 0o755);
		renameSync(part, copy);
	}
	return copy;
}

/** Fork an IPC worker and wait for its { ready } message. `ask(msg, key)` sends and awaits a reply with `key`. */
export async function forkWorker(script, { execArgv = [], env = {}, uid, gid } = {}) {
	const { fork } = await import("node:child_process");
	// Another user runs a Node binary it can reach.
	const ids = uid === undefined ? {} : { uid, gid, execPath: nodeForOtherUsers() };
	const child = fork(script, [], { execArgv, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe", "ipc"], ...ids });
	let stderr = "";
	child.stderr.on("data", (d) => {
		stderr = (stderr + d.toString()).slice(-4000);
	});
	const waitFor = (key, timeoutMs = 600_000) =>
		new Promise((resolve, reject) => {
			const timer = setTimeout(() => {
				cleanup();
				reject(new Error(`worker ${script} gave no "${key}" within ${timeoutMs} ms`));
			}, timeoutMs);
			const onMsg = (m) => {
				if (m && m[key]) {
					cleanup();
					resolve(m);
				}
			};
			const onExit = (code, sig) => {
				cleanup();
				reject(new Error(`worker ${script} exited (${sig ?? code}) waiting for "${key}": ${stderr.slice(-1500)}`));
			};
			const cleanup = () => {
				clearTimeout(timer);
				child.off("message", onMsg);
				child.off("exit", onExit);
			};
			child.on("message", onMsg);
			child.on("exit", onExit);
		});
	try {
		await waitFor("ready", 60_000);
	} catch (err) {
		// A worker that never said it is ready is not left running (issue 39: one outlived its section by 16 min).
		child.kill("SIGKILL");
		throw err;
	}
	return {
		child,
		waitFor,
		ask(msg, key, timeoutMs) {
			const p = waitFor(key, timeoutMs);
			child.send(msg);
			return p;
		},
		stderr: () => stderr,
		kill: () => child.kill("SIGKILL"),
	};
}

/**
 * The "never lose a byte" rule for a file something appended to: `before` is an exact prefix of `after`,
 * then (only if `before` lacked a final newline) one "\n", then whole JSON-object lines. Returns null when
 * the rule holds, else what broke it.
 */
export function appendOnlyViolation(before, after) {
	if (after.length < before.length) return `file shrank (${before.length} -> ${after.length} bytes)`;
	if (Buffer.compare(before, after.subarray(0, before.length)) !== 0) return "existing bytes changed";
	let rest = after.subarray(before.length);
	if (!rest.length) return null;
	if (before.length && before[before.length - 1] !== 0x0a) {
		if (rest[0] !== 0x0a) return "glued onto the unterminated last line";
		rest = rest.subarray(1);
	}
	if (rest.length && rest[rest.length - 1] !== 0x0a) return `partial last line (${rest.length - rest.lastIndexOf(0x0a) - 1} bytes after the last newline)`;
	const lines = rest.toString("utf8").split("\n").slice(0, -1);
	for (const [i, l] of lines.entries()) {
		let v;
		try {
			v = JSON.parse(l);
		} catch {
			return `appended line ${i + 1} is not JSON`;
		}
		if (v === null || typeof v !== "object" || Array.isArray(v)) return `appended line ${i + 1} is not a JSON object`;
	}
	return null;
}
