// A real OpenAI-compatible chat-completions server on 127.0.0.1 for tests (unit and e2e): streams a
// scripted answer as SSE, or fails in a chosen way. Configure Arbor with provider "local",
// api "openai-completions", baseUrl `server.baseUrl`, any model id and any key. Plain Node, no test framework.

import * as http from "node:http";
import type { AddressInfo } from "node:net";

export type LlmScenario =
	/** Stream `chunks` as content deltas, `delayMs` apart, then finish with [DONE]. */
	| { kind: "stream"; chunks: string[]; delayMs?: number }
	/** Answer with an HTTP error status and an OpenAI-style error body. */
	| { kind: "status"; status: number; message?: string }
	/** Start an SSE stream, then send lines that are not valid JSON and close. */
	| { kind: "malformed" }
	/** Start an SSE stream and send nothing more until the client goes away. */
	| { kind: "hang" }
	/** Stream `chunk` as content deltas, `delayMs` apart, forever (until the client goes away); no usage, no end. */
	| { kind: "endless"; chunk: string; delayMs?: number }
	/** Decide per request (chat completions): stream a text answer, or tool calls (finish_reason "tool_calls"). */
	| { kind: "respond"; answer(body: unknown): LlmTurn; delayMs?: number };

/** One streamed answer of the "respond" scenario (hang: start the stream, then send nothing until the client goes away). */
export type LlmTurn = { text: string } | { toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[] } | { hang: true };

export interface RecordedRequest {
	method: string;
	path: string;
	authorization: string | undefined;
	/** Every request header as received (names lower-cased). */
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
	/** True when the client closed the connection before the answer ended (an abort). */
	aborted: boolean;
}

export interface LlmServer {
	/** e.g. http://127.0.0.1:43123/v1 */
	readonly baseUrl: string;
	readonly port: number;
	readonly requests: RecordedRequest[];
	/** Scenario for the following requests. */
	setScenario(s: LlmScenario): void;
	close(): Promise<void>;
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null): string {
	const payload = { id: "chatcmpl-arbor-test", object: "chat.completion.chunk", created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] };
	return `data: ${JSON.stringify(payload)}\n\n`;
}

export async function startLlmServer(initial: LlmScenario = { kind: "stream", chunks: ["## Goal\nTest summary."] }): Promise<LlmServer> {
	let scenario = initial;
	let tokenSeq = 0;
	const requests: RecordedRequest[] = [];
	const sockets = new Set<import("node:net").Socket>();

	const server = http.createServer((req, res) => {
		const bodyParts: Buffer[] = [];
		req.on("data", (c: Buffer) => bodyParts.push(c));
		req.on("end", () => {
			let body: unknown;
			try {
				body = JSON.parse(Buffer.concat(bodyParts).toString("utf8"));
			} catch {
				body = undefined;
			}
			const rec: RecordedRequest = {
				method: req.method ?? "",
				path: req.url ?? "",
				authorization: req.headers.authorization,
				headers: { ...req.headers },
				body,
				aborted: false,
			};
			requests.push(rec);
			let finished = false;
			res.on("close", () => {
				if (!finished) rec.aborted = true;
			});
			const model = typeof (body as { model?: unknown })?.model === "string" ? (body as { model: string }).model : "test-model";
			const s = scenario;
			const url = (req.url ?? "").split("?")[0] as string;
			if (url.endsWith("/oauth/token")) {
				// An OAuth token endpoint: hands out a fresh access token for any refresh token.
				finished = true;
				tokenSeq++;
				res
					.writeHead(200, { "content-type": "application/json" })
					.end(JSON.stringify({ access_token: `fresh-access-${tokenSeq}`, refresh_token: `fresh-refresh-${tokenSeq}`, expires_in: 3600 }));
				return;
			}
			if (url.endsWith("/messages") && s.kind === "stream") {
				// Anthropic's Messages API as SSE.
				res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
				const ev = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
				res.write(
					ev("message_start", {
						message: {
							id: "msg_test",
							type: "message",
							role: "assistant",
							model,
							content: [],
							stop_reason: null,
							usage: { input_tokens: 11, output_tokens: 0 },
						},
					}),
				);
				res.write(ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
				for (const c of s.chunks) res.write(ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: c } }));
				res.write(ev("content_block_stop", { index: 0 }));
				res.write(ev("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 7 } }));
				res.write(ev("message_stop", {}));
				finished = true;
				res.end();
				return;
			}
			if (!url.endsWith("/chat/completions")) {
				finished = true;
				res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
				return;
			}
			if (s.kind === "status") {
				finished = true;
				res.writeHead(s.status, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: s.message ?? `test server error ${s.status}`, type: "test_error", code: s.status } }));
				return;
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
			res.flushHeaders();
			if (s.kind === "hang") {
				res.write(chunk(model, { role: "assistant", content: "" }, null));
				return;
			}
			if (s.kind === "endless") {
				res.write(chunk(model, { role: "assistant", content: "" }, null));
				const more = (): void => {
					if (res.destroyed) return;
					res.write(chunk(model, { content: s.chunk }, null));
					setTimeout(more, s.delayMs ?? 5);
				};
				more();
				return;
			}
			if (s.kind === "malformed") {
				res.write(chunk(model, { role: "assistant", content: "" }, null));
				res.write('data: {"choices": [ this is not json\n\n');
				res.write("data: }}}{{{\n\n");
				finished = true;
				res.end();
				return;
			}
			const turn: LlmTurn = s.kind === "respond" ? s.answer(body) : { text: "" };
			if ("hang" in turn) {
				res.write(chunk(model, { role: "assistant", content: "" }, null));
				return;
			}
			const chunks: { delta: Record<string, unknown> }[] =
				s.kind === "stream"
					? s.chunks.map((c) => ({ delta: { content: c } }))
					: "text" in turn
						? turn.text.split(/(?<= )/).map((w) => ({ delta: { content: w } }))
						: turn.toolCalls.map((t, index) => ({
								delta: { tool_calls: [{ index, id: t.id, type: "function", function: { name: t.name, arguments: JSON.stringify(t.arguments) } }] },
							}));
			const finish = "toolCalls" in turn ? "tool_calls" : "stop";
			const delay = s.delayMs ?? 0;
			res.write(chunk(model, { role: "assistant", content: "" }, null));
			const next = (): void => {
				if (res.destroyed) return;
				const c = chunks.shift();
				if (c === undefined) {
					res.write(chunk(model, {}, finish));
					res.write(
						`data: ${JSON.stringify({ id: "chatcmpl-arbor-test", object: "chat.completion.chunk", created: 0, model, choices: [], usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } })}\n\n`,
					);
					res.write("data: [DONE]\n\n");
					finished = true;
					res.end();
					return;
				}
				res.write(chunk(model, c.delta, null));
				if (delay > 0) setTimeout(next, delay);
				else setImmediate(next);
			};
			next();
		});
	});
	server.on("connection", (sock) => {
		sockets.add(sock);
		sock.on("close", () => sockets.delete(sock));
	});
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => resolve());
	});
	const port = (server.address() as AddressInfo).port;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		port,
		requests,
		setScenario: (s) => {
			scenario = s;
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const sock of sockets) sock.destroy();
				server.close(() => resolve());
			}),
	};
}
