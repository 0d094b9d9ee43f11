// API fuzzing client: random and malformed arguments to every request over the browser host's WebSocket
// (the real wire codec), plus malformed frames. Every answer must be ok or a typed error; no answer may
// carry the canary's secret; the host must keep answering. The parent checks the canary files' bytes
// and access times and whether the host process is still alive.
//
// IPC: { port, token, count, seed, allowedFiles, canaryPaths, secret } -> { done, ... }.

import { statSync } from "node:fs";
import WebSocket from "ws";
import { ARBOR_ERROR_CODES, REQUEST_NAMES, type ArborErrorCode } from "../../../shared/api";
import { decodeWire, encodeWire } from "../../../shared/wire";
import { describeError, rng } from "./common";

interface Job {
	port: number;
	token: string;
	count: number;
	seed: string;
	allowedFiles: string[];
	allowedDirs: string[];
	canaryPaths: string[];
	secret: string;
}

const ERROR_CODES: ReadonlySet<ArborErrorCode> = new Set<ArborErrorCode>(ARBOR_ERROR_CODES);

type Answer = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } } | { timeout: true } | { closed: string };

class Client {
	ws!: WebSocket;
	pending = new Map<number, (a: Answer) => void>();
	nextId = 1;
	constructor(
		readonly port: number,
		readonly token: string,
	) {}
	connect(): Promise<void> {
		this.ws = new WebSocket(`ws://127.0.0.1:${this.port}/api?token=${encodeURIComponent(this.token)}`, { maxPayload: 512 * 1024 * 1024 });
		this.ws.binaryType = "arraybuffer";
		this.ws.on("message", (data: ArrayBuffer) => {
			const m = decodeWire(data);
			if (m.t === "res") {
				this.pending.get(m.id)?.(m.ok ? { ok: true, result: m.result } : { ok: false, error: m.error });
				this.pending.delete(m.id);
			}
		});
		this.ws.on("close", (code, reason) => {
			for (const p of this.pending.values()) p({ closed: `${code} ${reason.toString()}` });
			this.pending.clear();
		});
		this.ws.on("error", () => {});
		return new Promise((ok, fail) => {
			this.ws.once("open", () => ok());
			this.ws.once("error", fail);
		});
	}
	get open(): boolean {
		return this.ws.readyState === WebSocket.OPEN;
	}
	request(name: string, params: unknown, timeoutMs = 60_000): Promise<Answer> {
		const id = this.nextId++;
		return new Promise((ok) => {
			const timer = setTimeout(() => {
				this.pending.delete(id);
				ok({ timeout: true });
			}, timeoutMs);
			this.pending.set(id, (a) => {
				clearTimeout(timer);
				ok(a);
			});
			this.ws.send(encodeWire({ t: "req", id, name, params }));
		});
	}
	sendRaw(data: Uint8Array | string): void {
		this.ws.send(data);
	}
}

async function main(job: Job): Promise<void> {
	const r = rng(job.seed);
	const violations: string[] = [];
	const codes: Record<string, number> = {};
	let requests = 0,
		oks = 0,
		frames = 0,
		reconnects = 0;
	const c = new Client(job.port, job.token);
	await c.connect();

	const sessionIds: string[] = [];
	const entryIds: string[] = ["", "root", "__proto__", "constructor", "x".repeat(1024)];
	const indices: number[] = [];
	const check = (name: string, params: unknown, a: Answer): void => {
		requests++;
		if ("timeout" in a) violations.push(`${name}: no answer within 60 s`);
		else if ("closed" in a) violations.push(`${name}: socket closed before answering (${a.closed})`);
		else {
			const text = safeJson(a.ok ? a.result : a.error);
			if (text.includes(job.secret)) violations.push(`${name}: the answer carries the canary's content (params ${safeJson(params).slice(0, 200)})`);
			if (a.ok) oks++;
			else {
				codes[a.error.code] = (codes[a.error.code] ?? 0) + 1;
				if (!ERROR_CODES.has(a.error.code as ArborErrorCode) || typeof a.error.message !== "string" || !a.error.message) {
					violations.push(`${name}: untyped error ${safeJson(a.error).slice(0, 200)}`);
				}
			}
		}
	};
	// The canary's access times after every answer, so a read is pinned on the request that made it (the
	// parent's before/after comparison only says that one happened).
	const atimes = (): number[] =>
		job.canaryPaths.map((p) => {
			try {
				return statSync(p).atimeMs;
			} catch {
				return Number.NaN;
			}
		});
	let lastAtimes = atimes();
	const ask = async (name: string, params: unknown): Promise<Answer> => {
		if (!c.open) {
			reconnects++;
			await c.connect();
		}
		const a = await c.request(name, params);
		check(name, params, a);
		const now = atimes();
		now.forEach((t, i) => {
			if (t !== lastAtimes[i]) violations.push(`${name}: ${job.canaryPaths[i]} was read while answering it (params ${safeJson(params).slice(0, 300)})`);
		});
		lastAtimes = now;
		return a;
	};

	// Legitimate sessions first, so later requests can aim at real session and entry ids.
	for (const f of job.allowedFiles) {
		const a = await ask("openSession", { path: f });
		if ("ok" in a && a.ok) {
			const s = a.result as { sessionId: string };
			sessionIds.push(s.sessionId);
			const sk = await ask("getSkeleton", { sessionId: s.sessionId });
			if ("ok" in sk && sk.ok) {
				const ids = (sk.result as { ids: string[] }).ids;
				for (let k = 0; k < 30 && ids.length; k++) entryIds.push(r.pick(ids));
				indices.push(0, ids.length - 1, ids.length, ids.length + 1);
			}
		}
	}
	sessionIds.push("", "0", "-1", "__proto__", "s".repeat(300), "constructor");

	const hostilePaths = [
		...job.canaryPaths,
		...job.canaryPaths.map((p) => `${p}/`),
		...job.canaryPaths.map((p) => p.replace(/^\//, "//")),
		...job.allowedDirs.flatMap((d) => [
			`${d}/../${job.canaryPaths[0]!.split("/").slice(-2).join("/")}`,
			`${d}/link-to-canary.jsonl`,
			`${d}/linkdir/canary.jsonl`,
			`${d}/..`,
			d,
		]),
		"/etc/passwd",
		"/proc/self/environ",
		"/proc/self/cmdline",
		"/dev/zero",
		"/dev/urandom",
		"/",
		"~/.ssh/id_rsa",
		"relative.jsonl",
		"../../etc/passwd",
		"file:///etc/passwd",
		"\\\\server\\share\\x.jsonl",
		"C:\\Windows\\win.ini",
		"/tmp",
		"%2e%2e/etc/passwd",
		`${job.allowedFiles[0]}\u0000/etc/passwd`,
		`${job.allowedFiles[0]}/../../../etc/passwd`,
		"x".repeat(5000),
	];
	const strings = ["", " ", "\u0000", "\ud800", "<script>alert(1)</script>", "${7*7}", "../", "%s%n", "a".repeat(100_001), "é", "null", "__proto__"];
	const value = (depth = 0): unknown => {
		const k = r.int(0, depth > 2 ? 6 : 9);
		switch (k) {
			case 0:
				return r.pick([null, true, false, 0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, Number.NaN, Number.POSITIVE_INFINITY]);
			case 1:
				return r.pick(strings);
			case 2:
				return r.pick(hostilePaths);
			case 3:
				return r.pick(sessionIds);
			case 4:
				return r.pick(entryIds);
			case 5:
				return r.int(-5, 5);
			case 6:
				return r.pick(["pi", "full", "back", "forward", "tree", "branch", "TB", "LR", "default", "all"]);
			case 7:
				return Array.from({ length: r.int(0, 5) }, () => value(depth + 1));
			case 8:
				return Object.fromEntries(
					Array.from({ length: r.int(0, 4) }, () => [
						r.pick(["path", "sessionId", "id", "__proto__", "constructor", "dirs", "settings", "x"]),
						value(depth + 1),
					]),
				);
			default:
				return r.pick([[], {}, new Uint8Array(4), new Float64Array([Number.NaN])]);
		}
	};
	/** Valid-looking params for a request, with hostile values in the fields. */
	const plausible = (name: string): Record<string, unknown> => {
		const sid = r.pick(sessionIds);
		const eid = r.pick(entryIds);
		switch (name) {
			case "openSession":
				return { path: r.pick(hostilePaths) };
			case "listSessions":
				return r.int(0, 1) ? { dirs: [r.pick(hostilePaths)] } : {};
			case "getPreviews":
				return {
					sessionId: sid,
					indices: r.int(0, 3) === 0 ? Array.from({ length: 2000 }, (_, i) => i * 7919) : [r.pick(indices.length ? indices : [0]), r.int(-2, 1e6), 2 ** 31 - 1],
				};
			case "getEntry":
				return { sessionId: sid, id: eid };
			case "getContext":
				return { sessionId: sid, leafId: r.int(0, 3) ? eid : null };
			case "search":
				return { sessionId: sid, query: r.pick(strings).slice(0, 10_000), scope: r.pick(["pi", "full"]) };
			case "previewNavigation":
				return { sessionId: sid, targetId: eid };
			case "navigate":
				return { sessionId: sid, targetId: eid, summarize: false, label: r.pick(["", "<img src=x onerror=alert(1)>", "l"]) };
			case "branchToFile":
				return { sessionId: sid, entryId: eid };
			case "setLabel":
				return { sessionId: sid, entryId: eid, label: r.pick([null, "", "label", "<b>x</b>", "x".repeat(10_000)]) };
			case "appendUserMessage":
				return { sessionId: sid, text: r.pick(strings).slice(0, 1000) };
			case "leafHistory":
				return { sessionId: sid, direction: r.pick(["back", "forward"]) };
			case "setSettings":
				return {
					settings: r.pick([
						{ recentFiles: [r.pick(hostilePaths)] },
						{ model: { baseUrl: r.pick(["file:///etc/passwd", "http://127.0.0.1:1/", "javascript:alert(1)"]) } },
						{ treeFilterMode: "all" },
					]),
				};
			case "runExtensionCommand":
				return { sessionId: sid, name: r.pick(["", "x", "../../etc/passwd", "__proto__"]), args: r.pick(strings).slice(0, 100) };
			case "getSettings":
			case "getActiveModel":
			case "listCommands":
			case "getInitialSessions":
			case "showOpenDialog":
				return {};
			default:
				return { sessionId: sid };
		}
	};
	const names = [...REQUEST_NAMES, "__proto__", "constructor", "toString", "hasOwnProperty", "", "x".repeat(2000), "openSession "];

	for (let k = 0; k < job.count; k++) {
		const name = r.int(0, 9) === 0 ? r.pick(names) : r.pick(REQUEST_NAMES);
		const mode = r.int(0, 9);
		let params: unknown;
		if (mode < 5) params = plausible(name);
		else if (mode < 8) {
			const p = plausible(name);
			const keys = Object.keys(p);
			if (keys.length) p[r.pick(keys)] = value();
			if (r.int(0, 2) === 0) p[r.pick(["extra", "__proto__", "constructor", "path"])] = value();
			params = p;
		} else params = value();
		// Session-closing and setting-changing requests are kept rarer so the rest of the run has targets.
		if (name === "closeSession" && r.int(0, 4)) continue;
		await ask(name, params);
		// Malformed frames now and then (each closes the socket: the client reconnects, the host lives on).
		if (k % 97 === 0) {
			frames++;
			const junk = r.pick<() => Uint8Array | string>([
				() => "not binary",
				() => new Uint8Array([1, 2, 3]),
				() => {
					const f = encodeWire({ t: "req", id: 1, name: "getSettings", params: {} });
					return f.subarray(0, f.length - 3);
				},
				() => {
					const f = new Uint8Array(encodeWire({ t: "req", id: 1, name: "getSettings", params: {} }));
					new DataView(f.buffer).setUint32(4, 0xfffffff0, true);
					return f;
				},
				() => encodeWire({ t: "res", id: 1, ok: true, result: null }),
				() => encodeWire({ t: "req", id: Number.NaN, name: "getSettings", params: {} }),
			])();
			// The host closes the socket on a malformed frame: wait for that before the next request, so a
			// request is never sent into a socket that is about to close (the harness's race, not the host's).
			const closed = new Promise<void>((ok) => {
				const timer = setTimeout(ok, 2000);
				c.ws.once("close", () => {
					clearTimeout(timer);
					ok();
				});
			});
			try {
				c.sendRaw(junk);
			} catch {
				/* socket already closing */
			}
			await closed;
		}
		if (k % 50 === 49) {
			if (!c.open) {
				reconnects++;
				await c.connect();
			}
			const h = await c.request("getSettings", {});
			if (!("ok" in h) || !h.ok) violations.push(`host stopped answering after request ${k} (${safeJson(h).slice(0, 200)})`);
		}
	}
	process.send?.({ done: true, requests, oks, codes, frames, reconnects, violations });
	c.ws.close();
}

function safeJson(v: unknown): string {
	try {
		return JSON.stringify(v) ?? String(v);
	} catch {
		return String(v);
	}
}

process.on("message", (job: Job) => {
	main(job).catch((err: unknown) => process.send?.({ done: true, fatal: describeError(err) }));
});
process.send?.({ ready: true });
