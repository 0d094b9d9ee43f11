// A rig for tries tests (service, CLI, e2e): the real pi 1.6 behind a `pi` command in a temp bin folder (a shell
// script that runs pi's CLI under Node 24 with a throwaway HOME whose models.json names the loopback model), a
// real git repository with a committed file, an uncommitted edit and an untracked file, and a session file in it
// with two branches. The loopback model answers each new conversation with one call of pi's `write` tool (a
// different file per conversation: try-1.txt, try-2.txt, ...) and the tool's result with a short sentence.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SessionEntry } from "../../../../shared/entries";
import { assistant, user, writeSession } from "./entries";
import { type LlmServer, type RecordedRequest, startLlmServer } from "./llm-server";
import { node24Path, PI_CLI, REAL_PI_MODEL, REAL_PI_PROVIDER, writeLoopbackAgentConfig } from "./real-pi";

export interface TriesRig {
	root: string;
	home: string;
	/** The agent folder the rig's pi uses (PI_CODING_AGENT_DIR): models.json and settings.json. */
	agentDir: string;
	binDir: string;
	/** The `pi` command (a script) in binDir. */
	piPath: string;
	repo: string;
	session: string;
	/** Entry ids: u1 -> a1 -> u2 -> a2 (branch A) and a1 -> u3 -> a3 (branch B, the leaf). */
	ids: { u1: string; a1: string; u2: string; a2: string; u3: string; a3: string };
	server: LlmServer;
	/** Chat-completions requests that opened a conversation (no tool result in them), oldest first. */
	firstRequests(): RecordedRequest[];
	/** git status --porcelain of the user's repository. */
	status(): string;
	/** Environment for a process that should find this `pi` on PATH. */
	env(): NodeJS.ProcessEnv;
	close(): Promise<void>;
}

type ChatMessage = { role: string; content?: unknown };

export function messageText(m: ChatMessage): string {
	if (typeof m.content === "string") return m.content;
	if (Array.isArray(m.content)) return m.content.map((p: { text?: string }) => p.text ?? "").join("");
	return "";
}

export interface TriesRigOptions {
	/** Delay between streamed chunks of the model's answers. */
	delayMs?: number;
	/** What the k-th conversation writes (default: try-k.txt, "written by try k"). */
	write?: (k: number) => { path: string; content: string };
	/** No git repository in the project folder (tries then run read-only). */
	noGit?: boolean;
	/** The session's cwd is this folder inside the repository (made, with a tracked file in it). */
	subfolder?: string;
}

export async function startTriesRig(opts: TriesRigOptions = {}): Promise<TriesRig> {
	const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "arbor-tries-")));
	const home = path.join(root, "home");
	const binDir = path.join(root, "bin");
	const repo = path.join(root, "project");
	const agentDir = path.join(home, ".pi", "agent");
	fs.mkdirSync(binDir, { recursive: true });
	fs.mkdirSync(repo, { recursive: true });
	let conversations = 0;
	const server = await startLlmServer({
		kind: "respond",
		delayMs: opts.delayMs,
		answer(body) {
			const messages = ((body as { messages?: ChatMessage[] }).messages ?? []) as ChatMessage[];
			if (messages.at(-1)?.role === "tool") return { text: "I wrote the file." };
			const k = ++conversations;
			const w = opts.write?.(k) ?? { path: `try-${k}.txt`, content: `written by try ${k}\n` };
			return { toolCalls: [{ id: `call_try_${k}`, name: "write", arguments: w }] };
		},
	});
	writeLoopbackAgentConfig(agentDir, server);
	const piPath = path.join(binDir, "pi");
	const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
	fs.writeFileSync(
		piPath,
		[
			"#!/bin/sh",
			`HOME=${q(home)} PI_CODING_AGENT_DIR=${q(agentDir)} PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0`,
			"export HOME PI_CODING_AGENT_DIR PI_OFFLINE PI_SKIP_VERSION_CHECK PI_TELEMETRY",
			`exec ${q(node24Path())} ${q(PI_CLI)} --no-context-files --no-skills --no-prompt-templates --no-themes "$@"`,
			"",
		].join("\n"),
		{ mode: 0o755 },
	);

	const g = (...args: string[]): string => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
	fs.writeFileSync(path.join(repo, "notes.txt"), "line one\n");
	if (!opts.noGit) {
		g("init", "-q", "-b", "main");
		g("config", "user.email", "user@example.com");
		g("config", "user.name", "User");
		if (opts.subfolder) {
			fs.mkdirSync(path.join(repo, opts.subfolder), { recursive: true });
			fs.writeFileSync(path.join(repo, opts.subfolder, "inner.txt"), "inner\n");
			g("add", opts.subfolder);
		}
		g("add", "notes.txt");
		g("commit", "-q", "-m", "first");
	}
	fs.writeFileSync(path.join(repo, "notes.txt"), "line one\nmy uncommitted line\n");
	fs.writeFileSync(path.join(repo, "draft.txt"), "an untracked draft\n");

	const sessions = path.join(root, "sessions");
	fs.mkdirSync(sessions, { recursive: true });
	const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
	const asLoopback = (e: SessionEntry): SessionEntry =>
		({
			...e,
			message: { ...(e as { message: object }).message, api: "openai-completions", provider: REAL_PI_PROVIDER, model: REAL_PI_MODEL, usage },
		}) as SessionEntry;
	const entries = [
		user("u1", null, "Set up the notes project"),
		asLoopback(assistant("a1", "u1", "The notes project is set up.")),
		user("u2", "a1", "Plan branch A: keep notes short"),
		asLoopback(assistant("a2", "u2", "Branch A answer: short notes.")),
		user("u3", "a1", "Plan branch B: never seen by the tries"),
		asLoopback(assistant("a3", "u3", "Branch B answer.")),
	];
	const session = writeSession(sessions, entries, "2026-01-01T00-00-00-000Z_sess-tries.jsonl", {
		type: "session",
		version: 3,
		id: "sess-tries",
		timestamp: "2026-01-01T00:00:00.000Z",
		cwd: opts.subfolder ? path.join(repo, opts.subfolder) : repo,
	});
	return {
		root,
		home,
		agentDir,
		binDir,
		piPath,
		repo,
		session,
		ids: { u1: "u1", a1: "a1", u2: "u2", a2: "a2", u3: "u3", a3: "a3" },
		server,
		firstRequests: () =>
			server.requests.filter(
				(r) => r.path.split("?")[0]!.endsWith("/chat/completions") && ((r.body as { messages?: ChatMessage[] }).messages ?? []).at(-1)?.role !== "tool",
			),
		status: () => g("status", "--porcelain", "--untracked-files=all"),
		// Its agent folder too: a confined try sees pi's agent folder through Arbor's idea of it (confine.ts).
		env: () => ({
			...process.env,
			PATH: `${binDir}${path.delimiter}${process.env.PATH ?? "/usr/bin:/bin"}`,
			HOME: path.join(root, "arbor-home"),
			PI_CODING_AGENT_DIR: agentDir,
		}),
		async close() {
			await server.close();
			fs.rmSync(root, { recursive: true, force: true });
		},
	};
}
