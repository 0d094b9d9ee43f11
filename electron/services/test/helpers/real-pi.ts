// The real pi 1.6.0 CLI as a test oracle: its bundled `cli.js` under Node 24 (from scripts/runtimes.mjs) in RPC
// mode, with a throwaway HOME and agent folder whose models.json points at the loopback model server
// (llm-server.ts). Tests send RPC commands, wait for events, read pi's own entries and leaf, and read what pi sent
// the model. Every process started here is killed by `stop()` (and on exit, should a test forget).
//
// RPC framing follows pi's docs/rpc.md: one JSON record per LF-terminated line, split on LF only (Node's readline
// also splits on U+2028/U+2029, which may appear inside JSON strings).

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type LlmServer, type RecordedRequest, startLlmServer } from "./llm-server";

const repoRoot = path.resolve(import.meta.dirname, "../../../..");
export const PI_CLI = path.join(repoRoot, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js");
/** Provider and model id of the loopback model in the generated models.json. */
export const REAL_PI_PROVIDER = "arbor-loopback";
export const REAL_PI_MODEL = "loopback-model";

let node24: string | undefined;
/** Path of the Node 24 binary, installed into the runtimes cache on first use. scripts/runtimes.mjs runs as a
 * process (the layer walls keep electron/ from importing scripts/); it prints {"node24": PATH}. */
export function node24Path(): string {
	if (!node24) {
		const p = spawnSync(process.execPath, [path.join(repoRoot, "scripts/runtimes.mjs"), "node24"], { encoding: "utf8", timeout: 900_000 });
		if (p.status !== 0) throw new Error(`Node 24 for the real pi is not available: ${(p.stderr || p.stdout).trim()}`);
		node24 = (JSON.parse(p.stdout) as { node24: string }).node24;
	}
	return node24;
}

/**
 * pi refuses (in RPC and print modes) to resume a session whose header names a working folder that does not
 * exist, as fixture files do. This points the header of a session file (a copy, never a user's file) at `cwd`,
 * keeping every other byte; the header's cwd takes no part in the context pi builds.
 */
export function rehomeSession(file: string, cwd: string): void {
	const text = fs.readFileSync(file, "utf8");
	const nl = text.indexOf("\n");
	const first = nl < 0 ? text : text.slice(0, nl);
	const header = JSON.parse(first) as Record<string, unknown>;
	if (header.type !== "session") throw new Error(`${file}: the first line is not a session header`);
	header.cwd = cwd;
	fs.writeFileSync(file, JSON.stringify(header) + (nl < 0 ? "" : text.slice(nl)));
}

/** The loopback model as pi (and Arbor's summarizer, which reads pi's files) sees it from models.json. */
export function loopbackModel(server: LlmServer) {
	return {
		id: REAL_PI_MODEL,
		name: "Loopback",
		api: "openai-completions" as const,
		provider: REAL_PI_PROVIDER,
		baseUrl: server.baseUrl,
		reasoning: false,
		input: ["text" as const],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 4_000_000, // no automatic compaction of the large fixtures
		maxTokens: 4096,
	};
}

/**
 * Write pi's models.json (a custom provider for the loopback server) and settings.json (it is the default model)
 * into a pi agent folder: the real pi's, or the one Arbor's services read for the summary model.
 */
export function writeLoopbackAgentConfig(agentDir: string, server: LlmServer): void {
	fs.mkdirSync(agentDir, { recursive: true });
	const { id, name, contextWindow, maxTokens, input, reasoning } = loopbackModel(server);
	const models = {
		providers: {
			[REAL_PI_PROVIDER]: {
				baseUrl: server.baseUrl,
				api: "openai-completions",
				apiKey: "loopback-key",
				models: [{ id, name, contextWindow, maxTokens, input, reasoning }],
			},
		},
	};
	fs.writeFileSync(path.join(agentDir, "models.json"), JSON.stringify(models, null, 2));
	// Settings already there (the packages `pi install` recorded) are kept.
	const settingsFile = path.join(agentDir, "settings.json");
	const settings = fs.existsSync(settingsFile) ? (JSON.parse(fs.readFileSync(settingsFile, "utf8")) as Record<string, unknown>) : {};
	fs.writeFileSync(settingsFile, JSON.stringify({ ...settings, defaultProvider: REAL_PI_PROVIDER, defaultModel: REAL_PI_MODEL }, null, 2));
}

/** One record pi wrote on stdout: a command response, a session event or an extension UI request. */
export type PiRecord = { type: string; [k: string]: unknown };
export interface PiResponse extends PiRecord {
	type: "response";
	command: string;
	success: boolean;
	data?: unknown;
	error?: string;
}
/** A session entry as pi's `get_entries` returns it. */
export type PiEntry = { type: string; id: string; parentId: string | null; [k: string]: unknown };
/** A chat message as the model received it (OpenAI chat-completions shape). */
export type ModelMessage = { role: string; content?: unknown; [k: string]: unknown };

export interface RealPiOptions {
	/** The loopback model; one is started (and closed by `stop()`) when omitted. */
	server?: LlmServer;
	/** Session file to resume (`--session FILE`); pi starts a new session in `sessionDir` when omitted. */
	session?: string;
	/** Point the session file's header at `cwd` first (see rehomeSession): for copies of fixtures. */
	rehome?: boolean;
	/** Working folder pi runs in (default: a fresh temp folder). pi resumes a session in the folder its header names
	 * when that folder exists. */
	cwd?: string;
	/** More CLI arguments, e.g. ["-e", "/path/ext.ts"] for an extension. */
	args?: string[];
	/** HOME to run pi in (e.g. one where `pi install` ran; its ~/.pi/agent is pi's agent folder) instead of a fresh
	 * temp folder; it is the caller's to delete. */
	home?: string;
	/** More environment variables for the pi process. */
	env?: Record<string, string>;
	/** Answer of the loopback model for the following turns (default: one short fixed sentence). */
	answer?: string;
}

export interface RealPi {
	/** Temp HOME; `agentDir` (= PI_CODING_AGENT_DIR) holds models.json and settings.json; `sessionDir` new sessions. */
	readonly home: string;
	readonly agentDir: string;
	readonly sessionDir: string;
	readonly cwd: string;
	readonly server: LlmServer;
	/** Every record pi has written on stdout so far, in order. */
	readonly records: PiRecord[];
	/** pi's stderr so far (diagnostics; never protocol). */
	stderr(): string;
	/** Send one RPC command and await its response (rejects on `success: false` unless `allowFailure`). */
	send(command: Record<string, unknown> & { type: string }, opts?: { allowFailure?: boolean; timeoutMs?: number }): Promise<PiResponse>;
	/** Wait for the next record of this type (after the `from`-th record, default: any not yet seen) matching `pred`. */
	waitFor(type: string, pred?: (r: PiRecord) => boolean, opts?: { from?: number; timeoutMs?: number }): Promise<PiRecord>;
	/** Send a prompt and wait until pi settles (`agent_settled`); returns the model requests this turn made. */
	prompt(message: string, opts?: { timeoutMs?: number }): Promise<RecordedRequest[]>;
	/** pi's own entries and leaf (`get_entries`). */
	entries(): Promise<{ entries: PiEntry[]; leafId: string | null }>;
	/** The chat-completions requests the model received from this pi process, oldest first. */
	modelRequests(): RecordedRequest[];
	/** The messages array of the last model request (system prompt included). */
	lastModelMessages(): ModelMessage[];
	/** The session file pi writes (from `get_state`). */
	sessionFile(): Promise<string>;
	/** Stop pi (close stdin, then SIGKILL its process group if it lingers) and clean the temp folders. */
	stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
	for (const c of live) killGroup(c);
});

function killGroup(child: ChildProcess): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, "SIGKILL");
	} catch {
		try {
			child.kill("SIGKILL");
		} catch {}
	}
}

/** Start the real pi CLI in RPC mode against a loopback model. */
export async function startRealPi(opts: RealPiOptions = {}): Promise<RealPi> {
	const node = node24Path();
	const ownServer = !opts.server;
	const server = opts.server ?? (await startLlmServer());
	if (opts.answer !== undefined || ownServer) server.setScenario({ kind: "stream", chunks: [opts.answer ?? "Loopback answer."] });
	const home = opts.home ?? fs.mkdtempSync(path.join(os.tmpdir(), "arbor-real-pi-"));
	const agentDir = path.join(home, ".pi", "agent");
	const sessionDir = path.join(home, "sessions");
	const cwd = opts.cwd ?? path.join(home, "work");
	fs.mkdirSync(agentDir, { recursive: true });
	fs.mkdirSync(sessionDir, { recursive: true });
	fs.mkdirSync(cwd, { recursive: true });
	if (opts.session && opts.rehome) rehomeSession(opts.session, cwd);
	writeLoopbackAgentConfig(agentDir, server);

	const args = [
		PI_CLI,
		"--mode",
		"rpc",
		"--provider",
		REAL_PI_PROVIDER,
		"--model",
		REAL_PI_MODEL,
		"--offline",
		"--no-context-files",
		"--no-skills",
		"--no-prompt-templates",
		"--no-themes",
	];
	if (opts.session) args.push("--session", opts.session);
	else args.push("--session-dir", sessionDir);
	args.push(...(opts.args ?? []));
	const requestsBefore = server.requests.length;
	const child = spawn(node, args, {
		cwd,
		detached: true, // its own process group, so stop() also ends anything pi started
		stdio: ["pipe", "pipe", "pipe"],
		env: {
			PATH: process.env.PATH ?? "/usr/bin:/bin",
			HOME: home,
			PI_CODING_AGENT_DIR: agentDir,
			PI_OFFLINE: "1",
			PI_SKIP_VERSION_CHECK: "1",
			PI_TELEMETRY: "0",
			TMPDIR: os.tmpdir(),
			...opts.env,
		},
	});
	live.add(child);
	const records: PiRecord[] = [];
	let stderr = "";
	let exitInfo: string | undefined;
	const waiters = new Set<() => void>();
	const wake = (): void => {
		for (const w of [...waiters]) w();
	};
	let buf = "";
	child.stdout!.setEncoding("utf8");
	child.stdout!.on("data", (chunk: string) => {
		buf += chunk;
		let nl: number;
		while ((nl = buf.indexOf("\n")) >= 0) {
			const line = buf.slice(0, nl).replace(/\r$/, "");
			buf = buf.slice(nl + 1);
			if (!line.trim()) continue;
			try {
				records.push(JSON.parse(line) as PiRecord);
			} catch {
				stderr += `[non-JSON stdout] ${line}\n`;
			}
		}
		wake();
	});
	child.stderr!.setEncoding("utf8");
	child.stderr!.on("data", (c: string) => {
		stderr += c;
	});
	const exited = new Promise<void>((resolve) => {
		child.on("exit", (code, signal) => {
			exitInfo = `pi exited (code ${code}, signal ${signal})`;
			live.delete(child);
			wake();
			resolve();
		});
	});
	child.on("error", (e) => {
		exitInfo = `pi could not start: ${e.message}`;
		wake();
	});

	const describe = (): string => `${exitInfo ?? "pi still running"}; stderr:\n${stderr.slice(-4000)}`;

	function waitRecord(match: (r: PiRecord) => boolean, from: number, timeoutMs: number, what: string): Promise<PiRecord> {
		return new Promise((resolve, reject) => {
			let scanned = from;
			const check = (): void => {
				for (; scanned < records.length; scanned++) {
					const r = records[scanned]!;
					if (match(r)) {
						done();
						resolve(r);
						return;
					}
				}
				if (exitInfo) {
					done();
					reject(new Error(`waiting for ${what}: ${describe()}`));
				}
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`waiting for ${what}: no record within ${timeoutMs} ms; ${describe()}`));
			}, timeoutMs);
			const done = (): void => {
				clearTimeout(timer);
				waiters.delete(check);
			};
			waiters.add(check);
			check();
		});
	}

	let seq = 0;
	let seen = 0;
	const send: RealPi["send"] = async (command, o = {}) => {
		const id = `arbor-${++seq}`;
		const from = records.length;
		child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`);
		const r = (await waitRecord((x) => x.type === "response" && x.id === id, from, o.timeoutMs ?? 30_000, `response to ${command.type}`)) as PiResponse;
		if (!r.success && !o.allowFailure) throw new Error(`pi rejected ${command.type}: ${r.error}`);
		return r;
	};
	const waitFor: RealPi["waitFor"] = async (type, pred = () => true, o = {}) => {
		const r = await waitRecord((x) => x.type === type && pred(x), o.from ?? seen, o.timeoutMs ?? 30_000, `event ${type}`);
		seen = records.indexOf(r) + 1;
		return r;
	};
	const modelRequests = (): RecordedRequest[] => server.requests.slice(requestsBefore).filter((r) => r.path.split("?")[0]!.endsWith("/chat/completions"));

	// Ready once it answers a command: pi reads stdin only after startup.
	try {
		await send({ type: "get_state" }, { timeoutMs: 60_000 });
	} catch (e) {
		killGroup(child);
		throw e;
	}

	return {
		home,
		agentDir,
		sessionDir,
		cwd,
		server,
		records,
		stderr: () => stderr,
		send,
		waitFor,
		async prompt(message, o = {}) {
			const before = modelRequests().length;
			const from = records.length;
			const r = await send({ type: "prompt", message });
			const disposition = (r.data as { disposition?: string } | undefined)?.disposition;
			if (disposition === "started") await waitFor("agent_settled", undefined, { from, timeoutMs: o.timeoutMs ?? 60_000 });
			return modelRequests().slice(before);
		},
		async entries() {
			const r = await send({ type: "get_entries" });
			return r.data as { entries: PiEntry[]; leafId: string | null };
		},
		modelRequests,
		lastModelMessages() {
			const last = modelRequests().at(-1);
			if (!last) throw new Error("the model received no request from pi");
			return (last.body as { messages: ModelMessage[] }).messages;
		},
		async sessionFile() {
			const r = await send({ type: "get_state" });
			return (r.data as { sessionFile: string }).sessionFile;
		},
		async stop() {
			if (exitInfo === undefined) {
				child.stdin!.end();
				const timer = setTimeout(() => killGroup(child), 5_000);
				await exited;
				clearTimeout(timer);
			}
			// Whatever pi itself started (tool shells) goes with its group, which outlives its leader.
			try {
				if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
			} catch {}
			if (ownServer) await server.close();
			if (!opts.home) fs.rmSync(home, { recursive: true, force: true });
		},
	};
}
