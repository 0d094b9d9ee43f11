#!/usr/bin/env node
// A large Claude Code 2.1.337 session, shaped like the real CLI's output (record types, keys and their order as in
// the files the real CLI writes: electron/services/test/real-agent-files.test.ts compares them): per turn the
// queue operations, the prompt, its attachments, the request bookkeeping, an answer split into one record per
// content block (thinking, text, tool calls; sometimes two calls at once, whose results hang under each call),
// the tool results, then last-prompt / mode / cost-state. Now and then a turn starts under an earlier answer (a
// --resume-session-at branch) or a /compact boundary cuts the chain. Deterministic for a seed.
//
//   node bench/gen-claude-session.mjs --records 100000 --seed 1 --out /tmp/claude-100k.jsonl
//   import { generateClaudeSession } from "./gen-claude-session.mjs"   (returns the lines)

import { writeFileSync } from "node:fs";

function rng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const WORDS =
	"the parser file test branch session tree node graph compact answer tool result read write edit function value error line index chain turn model".split(" ");

/**
 * @param {{ records: number, seed?: number, cwd?: string }} o
 * @returns {string[]} the JSONL lines (no newlines)
 */
export function generateClaudeSession(o) {
	const rand = rng(o.seed ?? 1);
	const pick = (a) => a[Math.floor(rand() * a.length)];
	const words = (n) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
	let idn = 0;
	const uuid = () => {
		const h = (++idn).toString(16).padStart(12, "0");
		const r = Math.floor(rand() * 0xffffffff)
			.toString(16)
			.padStart(8, "0");
		return `${r}-${h.slice(0, 4)}-4${h.slice(4, 7)}-8${h.slice(7, 10)}-${h.slice(10)}${r}`.slice(0, 36);
	};
	const sessionId = uuid();
	const cwd = o.cwd ?? "/home/dev/project";
	let clock = Date.UTC(2026, 11, 1, 9, 0, 0);
	const ts = () => new Date((clock += 50 + Math.floor(rand() * 2000))).toISOString();
	const tail = { userType: "external", entrypoint: "sdk-cli", cwd, sessionId, version: "2.1.337", gitBranch: "main" };
	const out = [];
	const push = (r) => out.push(JSON.stringify(r));
	let parent = null;
	const answers = [];
	let msgN = 0;
	let tool = 0;

	const usage = (n) => ({
		input_tokens: 100 + n,
		cache_creation_input_tokens: 40,
		cache_read_input_tokens: 2000 + n * 3,
		output_tokens: 20 + (n % 400),
		output_tokens_details: { thinking_tokens: 0 },
		server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
		service_tier: "standard",
		cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 40 },
		inference_geo: "",
		iterations: [],
		speed: "standard",
		fallback_credit: null,
	});
	const user = (content, promptId, extra = {}) => {
		const u = uuid();
		push({ parentUuid: parent, isSidechain: false, promptId, type: "user", message: { role: "user", content }, uuid: u, timestamp: ts(), ...extra, ...tail });
		parent = u;
		return u;
	};
	const attachment = (att, rendered) => {
		const u = uuid();
		const r = { parentUuid: parent, isSidechain: false, attachment: att, type: "attachment", uuid: u, timestamp: ts() };
		if (rendered) Object.assign(r, { rendered: [{ content: `<system-reminder>\n${rendered}\n</system-reminder>` }], renderedRole: "system" });
		push({ ...r, ...tail });
		parent = u;
	};
	const answer = (id, block, n, stop, requestRef, extra = {}) => {
		const u = uuid();
		push({
			parentUuid: parent,
			isSidechain: false,
			message: {
				id,
				type: "message",
				role: "assistant",
				model: "claude-opus-5-5",
				content: [block],
				stop_reason: stop,
				stop_sequence: null,
				usage: usage(n),
				stop_details: null,
			},
			...extra,
			requestRef,
			requestedModel: "claude-opus-5-5",
			promptCacheRequested: "5m",
			type: "assistant",
			uuid: u,
			timestamp: ts(),
			effort: "medium",
			perTurnEffort: "medium",
			madeBy: "model",
			...tail,
		});
		parent = u;
		return u;
	};
	const bookkeeping = (prompt) => {
		push({ type: "last-prompt", lastPrompt: prompt, leafUuid: parent, sessionId });
		push({ type: "mode", mode: "normal", sessionId });
		push({ type: "api-request-route", provider: "firstParty", credential: "key", sessionId });
		push({
			type: "cost-state",
			sessionId,
			totalCostUSD: msgN * 0.0012,
			totalAPIDuration: msgN * 900,
			totalAPIDurationWithoutRetries: msgN * 880,
			totalToolDuration: tool * 20,
			totalLinesAdded: 0,
			totalLinesRemoved: 0,
			totalDuration: msgN * 1500,
			startTime: Date.UTC(2026, 11, 1, 9, 0, 0),
			modelUsage: {},
			hasUnknownModelCost: false,
		});
	};

	for (let turn = 0; out.length < o.records; turn++) {
		const prompt = `${words(6 + Math.floor(rand() * 20))} (turn ${turn})`;
		const promptId = uuid();
		push({ type: "queue-operation", operation: "enqueue", timestamp: ts(), sessionId, content: prompt });
		push({ type: "queue-operation", operation: "dequeue", timestamp: ts(), sessionId });
		// Now and then a turn resumed at an earlier answer (--resume-session-at): a branch inside the file.
		if (answers.length > 4 && rand() < 0.03) parent = answers[Math.floor(rand() * answers.length)];
		if (turn > 0 && rand() < 0.01) {
			const u = uuid();
			push({
				parentUuid: null,
				logicalParentUuid: parent,
				isSidechain: false,
				type: "system",
				subtype: "compact_boundary",
				content: "Conversation compacted",
				isMeta: false,
				timestamp: ts(),
				uuid: u,
				level: "info",
				compactMetadata: { trigger: "auto", preTokens: 150000 + turn, durationMs: 900, postTokens: 3000, cumulativeDroppedTokens: 0 },
				...tail,
			});
			parent = u;
			user(`This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n${words(80)}`, uuid(), {
				isVisibleInTranscriptOnly: true,
				isCompactSummary: true,
			});
		}
		user(prompt, promptId, {
			permissionMode: "default",
			promptSource: "sdk",
			sentAtMs: clock,
			rowSource: "local",
			turnOrigin: "sdk",
			turnPromptId: promptId,
			turnPosition: { promptIndex: turn, turnIndex: 1 },
		});
		attachment({ type: "date", date: "2026-12-01" }, "Today's date is 2026-12-01.");
		if (turn % 5 === 0) attachment({ type: "session_context", context: {} });
		push({ type: "api-request-route", provider: "firstParty", credential: "key", sessionId });
		// One to three API calls per turn; each may call tools (one or two at once).
		const calls = 1 + Math.floor(rand() * 3);
		for (let c = 0; c < calls; c++) {
			const id = `msg_${(++msgN).toString(36).padStart(8, "0")}`;
			const requestRef = uuid();
			push({
				type: "api-request",
				sessionId,
				id: requestRef,
				timestamp: ts(),
				version: "2.1.337",
				querySource: "sdk",
				shapeHash: "5886",
				params: { model: "claude-opus-5-5", max_tokens: 128000 },
				thread: { type: "none" },
				echoWireToolInputs: false,
				keep: 0,
				tail: [],
				cacheControl: {},
				requestDigest: "d",
			});
			let block = 0;
			if (rand() < 0.5)
				answer(id, { type: "thinking", thinking: words(30 + Math.floor(rand() * 200)), signature: "EqQBCkYIBxgCKkB" }, msgN, "tool_use", requestRef, {
					thinkingDurationMs: 900,
					thinkingDisplay: "omitted",
					apiBlockIndex: block++,
				});
			const last = c === calls - 1;
			answer(id, { type: "text", text: words(20 + Math.floor(rand() * 150)) }, msgN, last ? "end_turn" : "tool_use", requestRef, { apiBlockIndex: block++ });
			answers.push(parent);
			if (last) break;
			const n = rand() < 0.25 ? 2 : 1;
			const callRecords = [];
			for (let k = 0; k < n; k++) {
				const tid = `toolu_${(++tool).toString(36).padStart(10, "0")}`;
				callRecords.push([
					tid,
					answer(id, { type: "tool_use", id: tid, name: "Read", input: { file_path: `${cwd}/src/${pick(WORDS)}.ts` } }, msgN, "tool_use", requestRef, {
						toolInputStreamMs: 3,
						apiBlockIndex: block++,
					}),
				]);
			}
			if (c === 0) push({ type: "tools-used", tools: ["Read"], sessionId });
			// Results hang under the record holding their call; they finish in either order.
			if (n === 2 && rand() < 0.5) callRecords.reverse();
			for (const [tid, callUuid] of callRecords) {
				parent = callUuid;
				const body = Array.from({ length: 5 + Math.floor(rand() * 40) }, (_, i) => `${i + 1}\t${words(8)}`).join("\n");
				user([{ tool_use_id: tid, type: "tool_result", content: body }], promptId, {
					toolUseResult: { type: "text", file: { filePath: `${cwd}/src/x.ts`, content: body, numLines: 10, startLine: 1, totalLines: 10 } },
					sourceToolAssistantUUID: callUuid,
					toolResultScreened: false,
					permissionDecision: { decision: "accept", source: "config", reasonType: "rule", ruleSource: "cliArg" },
				});
			}
		}
		bookkeeping(prompt);
	}
	return out.slice(0, o.records);
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const arg = (name, d) => {
		const i = process.argv.indexOf(`--${name}`);
		return i > 0 ? process.argv[i + 1] : d;
	};
	const lines = generateClaudeSession({ records: Number(arg("records", "100000")), seed: Number(arg("seed", "1")) });
	const out = arg("out", "/tmp/claude-session.jsonl");
	writeFileSync(out, `${lines.join("\n")}\n`);
	process.stdout.write(`${out}: ${lines.length} records\n`);
}
