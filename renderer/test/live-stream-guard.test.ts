// A hostile or broken pi extension cannot blank the app through its stream (issue #28 item 5): every event
// line passes the live channel's reader (shared/live.ts) before Arbor forwards it, and what the reader lets
// through, the graph's streaming cards (graph/streaming.tsx streamCards) can draw.

import { describe, expect, it } from "vitest";
import { readServerMessage } from "../../shared/live";
import { streamCards } from "../graph/streaming";
import { BRANCHED, makeSkeleton } from "./fake-client";

const update = (content: unknown, extra: Record<string, unknown> = {}) => ({
	type: "event",
	event: { type: "message_update", phase: "update", stream: { key: "0.0", parentId: null, message: { role: "assistant", content, ...extra } } },
});

const HOSTILE: [string, unknown][] = [
	["a null block", [null]],
	["a number block", [5]],
	["a text block whose text is an object", [{ type: "text", text: { toString: null } }]],
	["a text block without text", [{ type: "text" }]],
	["a thinking block without thinking", [{ type: "thinking" }]],
	["a tool call without a name", [{ type: "toolCall", id: "c", arguments: {} }]],
	["a tool call whose arguments are a string", [{ type: "toolCall", id: "c", name: "bash", arguments: "rm" }]],
	["a block without a type", [{ text: "x" }]],
	["content as a string", "hello"],
	["content missing", undefined],
];

describe("the live stream reaches the graph only as something it can draw", () => {
	const sk = makeSkeleton(BRANCHED);
	for (const [what, content] of HOSTILE)
		it(`drops a stream update with ${what} (with a warning), never a crash`, () => {
			const line = readServerMessage(update(content));
			expect(line).toEqual({ type: "skip", warning: expect.stringMatching(/^malformed message_update event dropped \(stream\.message\.content/) });
		});

	it("draws what passes: text, thinking, tool calls and a newer pi's unknown block", () => {
		const content = [
			{ type: "text", text: "Hello " },
			{ type: "thinking", thinking: "hm" },
			{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls -la" } },
			{ type: "future_block", x: 1 },
			{ type: "text", text: "world" },
		];
		const line = readServerMessage(update(content, { stopReason: "aborted" }));
		if (line.type !== "event" || line.event.type !== "message_update") throw new Error(`not a stream event: ${JSON.stringify(line)}`);
		const { stream } = line.event;
		const [card] = streamCards(sk, [{ ...stream, done: false, baseCount: sk.count }]);
		expect(card).toEqual({
			key: "0.0",
			parentIndex: -1,
			text: "Hello world",
			tools: [{ name: "bash", args: "ls -la" }],
			thinking: true,
			done: false,
			stopReason: "aborted",
		});
	});
});
