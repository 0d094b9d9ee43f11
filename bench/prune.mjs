#!/usr/bin/env node
// `npm run bench:prune`: a pruned copy of a big session through the browser host, measured from outside.
// The host (`arbor serve FILE`, the built bundle) opens the file; then savePrunedCopy runs while a client
// keeps asking getSettings one request at a time. Reported: the copy's wall time, the longest wait for
// any answer meanwhile (how long the host stood still), how many answers came back, and the host's peak
// RSS during the copy (VmHWM, reset after the open). Issue #23 item 5; figures in docs/bench.md.
//
//   node bench/prune.mjs                      800k entries, fixture profile (~1.05 GB), cached in bench/.cache
//   node bench/prune.mjs --n 100000           a smaller file
//   node bench/prune.mjs --file PATH          an existing session
//   node bench/prune.mjs --root DIR           the Arbor checkout whose dist/ runs the host (compare builds)
import { spawn, execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..");
const argv = process.argv.slice(2);
const opt = (k, d) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const n = Number(opt("--n", "800000"));
const root = resolve(opt("--root", repo));
const cache = join(repo, "bench", ".cache");
mkdirSync(cache, { recursive: true });

let file = opt("--file");
if (!file) {
	file = join(cache, `prune_n${n}_fixture_seed-prune.jsonl`);
	if (!existsSync(file)) {
		console.log(`generating ${file} …`);
		execFileSync(process.execPath, [
			join(repo, "..", "shared", "tools", "gen-session.mjs"),
			"--n",
			String(n),
			"--profile",
			"fixture",
			"--seed",
			"prune",
			"--out",
			`${file}.part`,
		]);
		renameSync(`${file}.part`, file);
	}
}
// The host's wire frame (shared/wire.ts): "ARB1", the JSON envelope's length, the envelope padded to 8 bytes.
// The requests and answers used here carry no typed arrays, so the envelope is all there is.
const encodeWire = (msg) => {
	const json = Buffer.from(JSON.stringify(msg), "utf8");
	const padded = Math.ceil(json.length / 8) * 8;
	const frame = Buffer.alloc(8 + padded, 0x20);
	frame.write("ARB1", 0, "latin1");
	frame.writeUInt32LE(json.length, 4);
	json.copy(frame, 8);
	return frame;
};
const decodeWire = (data) => {
	const b = Buffer.from(data);
	return JSON.parse(b.toString("utf8", 8, 8 + b.readUInt32LE(4)));
};

/** An entry id near the end of the file (a small subtree to leave out: nearly every line is copied). */
function idNearTheEnd(path) {
	const size = statSync(path).size;
	const fd = openSync(path, "r");
	try {
		const tail = Buffer.alloc(Math.min(size, 1 << 20));
		readSync(fd, tail, 0, tail.length, size - tail.length);
		const lines = tail.toString("utf8").split("\n").slice(1, -1);
		for (let i = Math.max(0, lines.length - 50); i < lines.length; i++) {
			const m = /^\{"type":"message","id":"([^"]+)"/.exec(lines[i]);
			if (m) return m[1];
		}
	} finally {
		closeSync(fd);
	}
	throw new Error("no message entry near the end of the file");
}

const status = (pid, key) => {
	const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
	return m ? Number(m[1]) * 1024 : NaN;
};
const mb = (b) => `${Math.round(b / 1048576)} MB`;

const home = mkdtempSync(join(tmpdir(), "arbor-bench-prune-"));
const host = spawn(process.execPath, [join(root, "bin", "arbor.cjs"), "serve", file, "--port", "0", "--no-open"], {
	env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent") },
	stdio: ["ignore", "pipe", "pipe"],
});
let out = "";
const url = await new Promise((ok, fail) => {
	const timer = setTimeout(() => fail(new Error(`no URL within 300 s:\n${out}`)), 300_000);
	const onData = (d) => {
		out += d.toString();
		const m = /http:\/\/127\.0\.0\.1:(\d+)\/#token=([A-Za-z0-9_-]+)/.exec(out);
		if (m) {
			clearTimeout(timer);
			ok({ port: m[1], token: m[2] });
		}
	};
	host.stdout.on("data", onData);
	host.stderr.on("data", onData);
	host.on("exit", (code) => fail(new Error(`host exited ${code}:\n${out}`)));
});
const ws = new WebSocket(`ws://127.0.0.1:${url.port}/api?token=${url.token}`, { headers: { Origin: `http://127.0.0.1:${url.port}` } });
ws.binaryType = "arraybuffer";
const pending = new Map();
let nextId = 1;
ws.on("message", (data) => {
	const m = decodeWire(data);
	if (m.t === "res") {
		pending.get(m.id)?.(m);
		pending.delete(m.id);
	}
});
await new Promise((ok, fail) => (ws.once("open", ok), ws.once("error", fail)));
const request = (name, params = {}) =>
	new Promise((ok) => {
		const id = nextId++;
		pending.set(id, ok);
		ws.send(encodeWire({ t: "req", id, name, params }));
	});

try {
	let t0 = performance.now();
	const initial = await request("getInitialSessions");
	if (!initial.ok) throw new Error(initial.error.message);
	const { sessionId } = initial.result[0];
	const openMs = performance.now() - t0;
	const dropId = idNearTheEnd(file);
	const rssBefore = status(host.pid, "VmRSS");
	writeFileSync(`/proc/${host.pid}/clear_refs`, "5"); // resets VmHWM to the current RSS
	let done = false;
	let maxWait = 0;
	let answers = 0;
	const pinger = (async () => {
		while (!done) {
			const s = performance.now();
			await request("getSettings");
			const w = performance.now() - s;
			if (!done) {
				answers++;
				maxWait = Math.max(maxWait, w);
			}
			await new Promise((r) => setTimeout(r, 10));
		}
	})();
	t0 = performance.now();
	const r = await request("savePrunedCopy", { sessionId, dropIds: [dropId] });
	const pruneMs = performance.now() - t0;
	done = true;
	await pinger;
	const peak = status(host.pid, "VmHWM");
	if (!r.ok) throw new Error(r.error.message);
	const result = {
		file,
		bytes: statSync(file).size,
		root,
		openMs: Math.round(openMs),
		pruneMs: Math.round(pruneMs),
		longestWaitForAnAnswerMs: Math.round(maxWait),
		answersDuringPrune: answers,
		rssBeforePrune: mb(rssBefore),
		peakRssDuringPrune: mb(peak),
		copyBytes: statSync(r.result.path).size,
		tornTailBytes: r.result.tornTailBytes,
	};
	rmSync(r.result.path, { force: true });
	console.log(JSON.stringify(result, null, 2));
} finally {
	ws.close();
	host.kill("SIGTERM");
	rmSync(home, { recursive: true, force: true });
}
