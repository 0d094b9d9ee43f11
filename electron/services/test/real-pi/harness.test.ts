// The real-pi harness itself: one real turn of pi 1.6.0 (Node 24, RPC mode) against the loopback model.

import * as fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type RealPi, startRealPi } from "../helpers/real-pi";

let pi: RealPi | undefined;
afterEach(async () => {
	await pi?.stop();
	pi = undefined;
});

describe("real pi harness", () => {
	it("runs a real turn: the model receives the prompt and pi writes the answer to its session file", async () => {
		pi = await startRealPi({ answer: "Hello from the loopback model." });
		const requests = await pi.prompt("What is two plus two?");
		expect(requests).toHaveLength(1);
		const messages = pi.lastModelMessages();
		expect(messages.at(-1)).toMatchObject({ role: "user" });
		expect(JSON.stringify(messages.at(-1)!.content)).toContain("What is two plus two?");

		const { entries, leafId } = await pi.entries();
		const last = entries.at(-1)!;
		expect(leafId).toBe(last.id);
		expect(last).toMatchObject({ type: "message", message: { role: "assistant" } });

		const file = await pi.sessionFile();
		const lines = fs
			.readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l) as Record<string, unknown>);
		expect(lines[0]).toMatchObject({ type: "session" });
		const answer = lines.find((l) => l.id === leafId) as { message: { content: { type: string; text: string }[] } };
		expect(answer.message.content).toEqual([expect.objectContaining({ type: "text", text: "Hello from the loopback model." })]);
	});
});
