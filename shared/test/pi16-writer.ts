// Writes session files with pi 1.6.0's own SessionManager (@earendil-works/pi-coding-agent, imported from
// dist/core: its main entry does not load on Node 20), for the differential tests: branches, labels,
// compactions (keep-nothing and with a kept range, each with pi's systemMessage checkpoint), system messages
// (a full one, then section / tool patches), usage entries (also as the last line, as pi's cache warmer
// leaves them), context edits (omit and replace), custom entries and messages, model / thinking changes,
// session names, branch summaries with usage. Test-only.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as pi16 from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";

type Pi16SessionManager = any;
export const Pi16 = pi16 as unknown as {
	SessionManager: { open(path: string): Pi16SessionManager; create(cwd: string, dir: string): Pi16SessionManager; inMemory(): Pi16SessionManager };
};

function rng(seed: number): () => number {
	let s = seed >>> 0 || 1;
	return () => {
		s ^= s << 13;
		s >>>= 0;
		s ^= s >>> 17;
		s ^= s << 5;
		s >>>= 0;
		return s / 0x100000000;
	};
}

const usage = (n: number) => ({
	input: n,
	output: Math.round(n / 4),
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: n + Math.round(n / 4),
	cost: { input: n / 1e6, output: n / 4e6, cacheRead: 0, cacheWrite: 0, total: (n + n / 4) / 1e6 },
});
const tool = (name: string) => ({ name, description: `${name} tool`, parameters: { type: "object", properties: {} } });

export interface Pi16WriteOptions {
	seed: number;
	/** Conversation turns (each: user, assistant with a tool call, tool result, assistant). */
	turns: number;
	/** End with a usage line appended from a stale leaf (pi #9930 shape). */
	staleUsageTail?: boolean;
}

/** Writes one session with pi 1.6's SessionManager in `dir`; returns the file path. */
export function writePi16Session(dir: string, opts: Pi16WriteOptions): string {
	mkdirSync(dir, { recursive: true });
	const r = rng(opts.seed);
	const sm = Pi16.SessionManager.create("/work/project", dir);
	let t = 1_800_000_000_000;
	const ts = () => (t += 1000);
	sm.appendMessage({
		role: "system",
		content: "You are a coding agent.",
		sections: { env: "<env>linux</env>", skills: "<skills>a</skills>" },
		toolsAdded: [tool("read"), tool("bash")],
		timestamp: 0,
	});
	sm.appendModelChange("anthropic", "claude-x");
	sm.appendThinkingLevelChange("medium");
	const ids: string[] = [];
	let call = 0;
	for (let k = 0; k < opts.turns; k++) {
		const x = r();
		if (x < 0.08 && ids.length > 4) {
			// Leave the current branch: back to an earlier user/assistant entry, with or without a summary.
			const target = ids[Math.floor(r() * ids.length)];
			if (r() < 0.5) sm.branchWithSummary(target, `Tried approach ${k}; abandoned.`, { files: [] }, false, usage(900));
			else sm.branch(target);
		} else if (x < 0.14) {
			sm.appendMessage({
				role: "system",
				content: "",
				sections: r() < 0.5 ? { skills: null, mcp: `<mcp>${k}</mcp>` } : { env: `<env>step ${k}</env>` },
				...(r() < 0.5 ? { toolsAdded: [tool(`t${k}`)] } : { toolsRemoved: [{ name: "bash" }] }),
				timestamp: ts(),
			});
		} else if (x < 0.2) {
			const kept = ids.length > 2 && r() < 0.5 ? ids[ids.length - 2] : undefined;
			try {
				sm.appendCompaction(`Summary at turn ${k}`, kept, 40_000 + k, { readFiles: [] }, false, usage(3000));
			} catch {
				sm.appendCompaction(`Summary at turn ${k}`, undefined, 40_000 + k);
			}
		} else if (x < 0.26 && ids.length > 0) {
			const branch = sm
				.getBranch()
				.filter(
					(e: { type: string; message?: { role: string } }) =>
						e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message?.role ?? "")),
				);
			if (branch.length > 0) {
				const target = branch[Math.floor(r() * branch.length)].id;
				sm.appendContextEdit(target, r() < 0.4 ? null : { content: r() < 0.5 ? `edited ${k}` : [{ type: "text", text: `edited block ${k}` }] });
			}
		} else if (x < 0.3) {
			sm.appendUsage("cache_warm", "anthropic", "claude-x", usage(120 + k), r() < 0.5 ? "idle" : undefined);
		} else if (x < 0.33 && ids.length > 0) {
			sm.appendLabelChange(ids[Math.floor(r() * ids.length)], r() < 0.2 ? undefined : `mark-${k}`);
		} else if (x < 0.35) {
			sm.appendCustomEntry("ext-state", { k });
		} else if (x < 0.37) {
			sm.appendCustomMessageEntry("ext-note", r() < 0.5 ? `note ${k}` : [{ type: "text", text: `note block ${k}` }], r() < 0.7, { k });
		} else if (x < 0.38) {
			sm.appendSessionInfo(`Session ${k}`);
		} else {
			ids.push(
				sm.appendMessage({ role: "user", content: r() < 0.5 ? `please do step ${k}` : [{ type: "text", text: `step ${k} in blocks` }], timestamp: ts() }),
			);
			const id = `call_${++call}`;
			sm.appendMessage({
				role: "assistant",
				content: [
					{ type: "text", text: r() < 0.5 ? "" : `I will read f${k}` },
					{ type: "toolCall", id, name: "read", arguments: { path: `/home/u/f${k}.ts`, offset: r() < 0.5 ? null : 3, limit: r() < 0.5 ? "10" : 5 } },
				],
				api: "anthropic-messages",
				provider: "anthropic",
				model: "claude-x",
				usage: usage(1000 + k),
				stopReason: "toolUse",
				timestamp: ts(),
			});
			sm.appendMessage({
				role: "toolResult",
				toolCallId: id,
				toolName: "read",
				content: [{ type: "text", text: `contents ${k}` }],
				isError: r() < 0.1,
				timestamp: ts(),
			});
			const stop = r() < 0.05 ? "deferred" : r() < 0.05 ? "error" : "stop";
			ids.push(
				sm.appendMessage({
					role: "assistant",
					content: stop === "deferred" ? [] : [{ type: "text", text: `done with step ${k}` }],
					api: "anthropic-messages",
					provider: "anthropic",
					model: "claude-x",
					responseModel: "claude-x-2026",
					usage: usage(1500 + k),
					stopReason: stop,
					timestamp: ts(),
				}),
			);
		}
	}
	if (opts.staleUsageTail && ids.length > 3) {
		// A usage line appended from a stale leaf: the last line sits on another branch than the newest conversation.
		sm.branch(ids[1]);
		sm.appendUsage("cache_warm", "anthropic", "claude-x", usage(50));
	} else sm.appendUsage("cache_warm", "anthropic", "claude-x", usage(77));
	return sm.getSessionFile() as string;
}

export function pi16Dir(root: string, name: string): string {
	return join(root, name);
}
