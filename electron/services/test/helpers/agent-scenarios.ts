// What the formats are checked on: one Claude Code session and one Codex thread written by the real CLIs
// (real-agents.ts) against a scripted loopback model, each resumed, branched or forked the ways those agents can.
// The scripts answer "use tools" with two tool calls in one message (a parallel call), anything else with text.

import * as fs from "node:fs";
import * as path from "node:path";
import { type AgentModelServer, type AgentTurn, startAnthropicServer, startResponsesServer } from "./agent-model-servers";
import { type AgentHome, claudeProjectDir, filesUnder, makeAgentHome, records, type RunResult, runClaude, runCodex } from "./real-agents";

type Json = Record<string, unknown>;

function lastUserText(messages: unknown): { text: string; toolResult: boolean } {
	const list = Array.isArray(messages) ? (messages as Json[]) : [];
	const last = list[list.length - 1];
	const content = typeof last?.content === "string" ? [{ type: "text", text: last.content }] : Array.isArray(last?.content) ? (last.content as Json[]) : [];
	return {
		text: content.map((b) => (typeof b.text === "string" ? b.text : "")).join(" "),
		toolResult: content.some((b) => b.type === "tool_result" || b.type === "function_call_output"),
	};
}

export interface ClaudeScenario {
	home: AgentHome;
	server: AgentModelServer;
	/** The session folder under ~/.claude/projects. */
	dir: string;
	/** The session resumed, branched with --resume-session-at and compacted. */
	main: string;
	sessionId: string;
	/** The --fork-session copy. */
	fork: string;
	/** The first assistant record (the --resume-session-at point). */
	branchAt: string;
	runs: RunResult[];
	close(): Promise<void>;
}

/**
 * `claude -p "hello first"`, then `--resume` with a parallel tool call, `--resume` again, `--resume-session-at`
 * the first answer, `--fork-session`, `/compact`, and one turn after it. Throws with the CLI's output when a run fails.
 */
export async function claudeScenario(bin: string): Promise<ClaudeScenario> {
	const home = makeAgentHome("arbor-claude-rig-");
	fs.writeFileSync(path.join(home.cwd, "a.txt"), "alpha\n");
	fs.writeFileSync(path.join(home.cwd, "b.txt"), "beta\n");
	let calls = 0;
	const server = await startAnthropicServer((body, n): AgentTurn => {
		if (body.stream !== true) return { text: "Loopback title" };
		const { text, toolResult } = lastUserText(body.messages);
		if (toolResult) return { text: `Read both files (answer ${n}).` };
		if (text.includes("use tools")) {
			calls++;
			return {
				thinking: "Both files are needed.",
				text: "Reading two files.",
				toolCalls: [
					{ id: `toolu_a${calls}`, name: "Read", input: { file_path: path.join(home.cwd, "a.txt") } },
					{ id: `toolu_b${calls}`, name: "Read", input: { file_path: path.join(home.cwd, "b.txt") } },
				],
			};
		}
		if (text.includes("summary of the conversation") || text.includes("compact")) return { text: "<summary>Loopback summary.</summary>" };
		return { text: `Answer ${n}.` };
	});
	const runs: RunResult[] = [];
	const run = async (args: string[]): Promise<void> => {
		const r = await runClaude(bin, home, server.baseUrl, ["-p", ...args]);
		runs.push(r);
		if (r.status !== 0) throw new Error(`claude ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-2000)} ${r.stdout.slice(-500)}`);
	};
	try {
		await run(["hello first"]);
		const dir = claudeProjectDir(home);
		const main = filesUnder(dir)[0]!;
		const sessionId = path.basename(main, ".jsonl");
		await run(["--resume", sessionId, "please use tools to read a.txt and b.txt", "--allowedTools", "Read"]);
		await run(["--resume", sessionId, "third prompt"]);
		const branchAt = records(main).find((r) => r.type === "assistant")!.uuid as string;
		await run(["--resume", sessionId, "--resume-session-at", branchAt, "branch prompt"]);
		await run(["--resume", sessionId, "--fork-session", "fork prompt"]);
		const fork = filesUnder(dir).find((f) => f !== main && f.endsWith(".jsonl"))!;
		await run(["--resume", sessionId, "/compact"]);
		await run(["--resume", sessionId, "after compact"]);
		return { home, server, dir, main, sessionId, fork, branchAt, runs, close: () => close(server, home) };
	} catch (e) {
		await close(server, home);
		throw e;
	}
}

async function close(server: AgentModelServer, home: AgentHome): Promise<void> {
	await server.close();
	home.remove();
}

export interface CodexScenario {
	home: AgentHome;
	server: AgentModelServer;
	/** The thread resumed twice (the second turn runs two tool calls from one answer). */
	main: string;
	threadId: string;
	/** `codex exec fork`'s new rollout. */
	fork: string;
	forkId: string;
	runs: RunResult[];
	close(): Promise<void>;
}

/** `codex exec "hello first"`, `resume` with two tool calls in one answer, `resume` again, then `fork`. */
export async function codexScenario(bin: string): Promise<CodexScenario> {
	const home = makeAgentHome("arbor-codex-rig-");
	fs.writeFileSync(path.join(home.cwd, "a.txt"), "alpha\n");
	let calls = 0;
	const server = await startResponsesServer((body, n): AgentTurn => {
		const { text, toolResult } = lastUserText(body.input);
		if (toolResult) return { text: `Done with tools (answer ${n}).` };
		if (text.includes("use tools")) {
			calls++;
			return {
				thinking: "Run two commands.",
				toolCalls: [
					{ id: `call_a${calls}`, name: "exec_command", input: { cmd: "cat a.txt" } },
					{ id: `call_b${calls}`, name: "exec_command", input: { cmd: "echo hi" } },
				],
			};
		}
		return { text: `Answer ${n}.` };
	});
	const runs: RunResult[] = [];
	const run = async (args: string[]): Promise<void> => {
		const r = await runCodex(bin, home, server.baseUrl, ["exec", "--skip-git-repo-check", ...args]);
		runs.push(r);
		if (r.status !== 0) throw new Error(`codex ${args.join(" ")} exited ${r.status}: ${r.stderr.slice(-2000)}`);
	};
	const rollouts = (): string[] => filesUnder(path.join(home.home, ".codex", "sessions")).filter((f) => /rollout-.*\.jsonl(\.zst)?$/.test(f));
	try {
		await run(["hello first"]);
		const main = rollouts()[0]!;
		const threadId = /([0-9a-f]{8}-[0-9a-f-]{27})\.jsonl/.exec(main)![1]!;
		await run(["--dangerously-bypass-approvals-and-sandbox", "resume", threadId, "please use tools now"]);
		await run(["resume", threadId, "third"]);
		await run(["fork", threadId, "fork prompt"]);
		const fork = rollouts().find((f) => f !== main)!;
		const forkId = /([0-9a-f]{8}-[0-9a-f-]{27})\.jsonl/.exec(fork)![1]!;
		return { home, server, main, threadId, fork, forkId, runs, close: () => close(server, home) };
	} catch (e) {
		await close(server, home);
		throw e;
	}
}
