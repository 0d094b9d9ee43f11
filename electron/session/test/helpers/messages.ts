// Small, valid pi messages for write tests.
import type { AgentMessage } from "../../../../shared/entries";

let clock = Date.UTC(2026, 0, 1);

export function userMessage(text: string, timestamp = clock++): AgentMessage {
	return { role: "user", content: text, timestamp };
}

export function assistantMessage(text: string, model = "claude-test", timestamp = clock++): AgentMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model,
		usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
		stopReason: "stop",
		timestamp,
	};
}
