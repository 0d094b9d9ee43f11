// Loopback model servers for other coding agents' own CLIs (real-agents.ts): Anthropic's Messages API (what Claude
// Code calls) and OpenAI's Responses API (what Codex calls), both as SSE on 127.0.0.1, each turn decided per request
// by the test: a text answer, or one message holding several tool calls (a parallel tool call). Plain Node.

import * as http from "node:http";
import type { AddressInfo } from "node:net";

export interface AgentToolCall {
	id: string;
	name: string;
	input: Record<string, unknown>;
}
/** One answer: text, optionally with tool calls after it (several = a parallel call in one message). */
export interface AgentTurn {
	text?: string;
	thinking?: string;
	toolCalls?: AgentToolCall[];
}
export interface AgentRequest {
	path: string;
	body: Record<string, unknown>;
}
export interface AgentModelServer {
	/** Anthropic: http://127.0.0.1:PORT (the CLI adds /v1/messages); Responses: http://127.0.0.1:PORT/v1 */
	readonly baseUrl: string;
	readonly requests: AgentRequest[];
	close(): Promise<void>;
}

type Answer = (body: Record<string, unknown>, n: number) => AgentTurn;

async function serve(route: (req: AgentRequest, res: http.ServerResponse) => void, prefix: string): Promise<AgentModelServer> {
	const requests: AgentRequest[] = [];
	const sockets = new Set<import("node:net").Socket>();
	const server = http.createServer((req, res) => {
		const parts: Buffer[] = [];
		req.on("data", (c: Buffer) => parts.push(c));
		req.on("end", () => {
			let body: Record<string, unknown> = {};
			try {
				body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
			} catch {}
			const r = { path: (req.url ?? "").split("?")[0] ?? "", body };
			requests.push(r);
			route(r, res);
		});
	});
	server.on("connection", (s) => {
		sockets.add(s);
		s.on("close", () => sockets.delete(s));
	});
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => resolve());
	});
	const port = (server.address() as AddressInfo).port;
	return {
		baseUrl: `http://127.0.0.1:${port}${prefix}`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				for (const s of sockets) s.destroy();
				server.close(() => resolve());
			}),
	};
}

const notFound = (res: http.ServerResponse): void => {
	res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
};

/** Anthropic Messages (`POST /v1/messages`, streamed or not); `count_tokens` answered with a fixed count. */
export function startAnthropicServer(answer: Answer): Promise<AgentModelServer> {
	let n = 0;
	return serve((r, res) => {
		if (r.path.endsWith("/messages/count_tokens")) {
			res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ input_tokens: 42 }));
			return;
		}
		if (!r.path.endsWith("/v1/messages")) return notFound(res);
		const turn = answer(r.body, n++);
		const id = `msg_loop_${n}`;
		const model = typeof r.body.model === "string" ? r.body.model : "claude-loopback";
		const blocks: Record<string, unknown>[] = [];
		if (turn.thinking) blocks.push({ type: "thinking", thinking: turn.thinking, signature: "sig-loopback" });
		if (turn.text) blocks.push({ type: "text", text: turn.text });
		for (const t of turn.toolCalls ?? []) blocks.push({ type: "tool_use", id: t.id, name: t.name, input: t.input });
		const stop = turn.toolCalls?.length ? "tool_use" : "end_turn";
		const usage = { input_tokens: 120 + n, cache_creation_input_tokens: 30, cache_read_input_tokens: 200, output_tokens: 17 };
		if (r.body.stream !== true) {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ id, type: "message", role: "assistant", model, content: blocks, stop_reason: stop, stop_sequence: null, usage }));
			return;
		}
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
		const ev = (type: string, data: Record<string, unknown>): boolean => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
		ev("message_start", {
			message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
		});
		blocks.forEach((b, index) => {
			if (b.type === "thinking") {
				ev("content_block_start", { index, content_block: { type: "thinking", thinking: "" } });
				ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: b.thinking } });
				ev("content_block_delta", { index, delta: { type: "signature_delta", signature: b.signature } });
			} else if (b.type === "text") {
				ev("content_block_start", { index, content_block: { type: "text", text: "" } });
				ev("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
			} else {
				ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
				ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
			}
			ev("content_block_stop", { index });
		});
		ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
		ev("message_stop", {});
		res.end();
	}, "");
}

/** OpenAI Responses (`POST /v1/responses`, SSE): a message item and/or function_call items. */
export function startResponsesServer(answer: Answer): Promise<AgentModelServer> {
	let n = 0;
	return serve((r, res) => {
		if (!r.path.endsWith("/responses")) return notFound(res);
		const turn = answer(r.body, n++);
		const rid = `resp_loop_${n}`;
		const items: Record<string, unknown>[] = [];
		if (turn.thinking) items.push({ type: "reasoning", id: `rs_${n}`, summary: [{ type: "summary_text", text: turn.thinking }] });
		if (turn.text)
			items.push({
				type: "message",
				id: `msg_${n}`,
				role: "assistant",
				status: "completed",
				content: [{ type: "output_text", text: turn.text, annotations: [] }],
			});
		for (const t of turn.toolCalls ?? [])
			items.push({ type: "function_call", id: `fc_${t.id}`, call_id: t.id, name: t.name, arguments: JSON.stringify(t.input), status: "completed" });
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
		let seq = 0;
		const ev = (type: string, data: Record<string, unknown>): boolean =>
			res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
		const response = { id: rid, object: "response", status: "in_progress", model: r.body.model ?? "m", output: [] as unknown[] };
		ev("response.created", { response });
		items.forEach((item, output_index) => {
			if (item.type === "message") {
				ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
				ev("response.content_part.added", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
				ev("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta: turn.text });
				ev("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text: turn.text });
			} else if (item.type === "function_call") {
				ev("response.output_item.added", { output_index, item: { ...item, arguments: "", status: "in_progress" } });
				ev("response.function_call_arguments.delta", { item_id: item.id, output_index, delta: item.arguments });
				ev("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments });
			} else ev("response.output_item.added", { output_index, item });
			ev("response.output_item.done", { output_index, item });
		});
		const usage = {
			input_tokens: 300 + n,
			input_tokens_details: { cached_tokens: 100 },
			output_tokens: 21,
			output_tokens_details: { reasoning_tokens: 0 },
			total_tokens: 321 + n,
		};
		ev("response.completed", { response: { ...response, status: "completed", output: items, usage } });
		res.end();
	}, "/v1");
}
