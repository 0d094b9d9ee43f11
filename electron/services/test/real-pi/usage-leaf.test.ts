// When a session file's last line is a `usage` entry (a cache warmer), the real pi 1.6.0 resumes on that entry:
// `arbor tree --json` prints it as `leafId` (and the entry the tree marks as `shownLeafId`).

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, expect, it } from "vitest";
import { arbor, buildCli } from "../../../cli/test/helpers";
import { tempDir } from "../helpers/entries";
import { type RealPi, startRealPi } from "../helpers/real-pi";

beforeAll(buildCli);
let pi: RealPi | undefined;
afterEach(async () => {
	await pi?.stop();
	pi = undefined;
});

it("real pi's leaf is the trailing usage entry, as arbor tree --json prints it", async () => {
	const dir = tempDir("arbor-real-pi-usage-");
	const file = path.join(dir, "usage-last.jsonl");
	const T = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
	const lines = [
		{ type: "session", version: 3, id: "usage-last", timestamp: T(0), cwd: dir },
		{ type: "thinking_level_change", id: "th", parentId: null, timestamp: T(1), thinkingLevel: "off" },
		{ type: "message", id: "u1", parentId: "th", timestamp: T(2), message: { role: "user", content: "hi", timestamp: 1 } },
		{
			type: "message",
			id: "a1",
			parentId: "u1",
			timestamp: T(3),
			message: { role: "assistant", content: [{ type: "text", text: "yo" }], stopReason: "stop", timestamp: 2 },
		},
		{ type: "usage", id: "w1", parentId: "a1", timestamp: T(4), kind: "cache_warm", provider: "p", model: "m", usage: { totalTokens: 1 } },
	];
	fs.writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
	const tree = arbor(["tree", file, "--json"]);
	expect(tree.status).toBe(0);
	const json = JSON.parse(tree.stdout) as { leafId: string; shownLeafId: string };
	expect(json).toMatchObject({ leafId: "w1", shownLeafId: "a1" });

	pi = await startRealPi({ session: file });
	const { entries, leafId } = await pi.entries();
	// pi may append the model it runs with (a model_change under its leaf) on start.
	const added = entries.slice(entries.findIndex((e) => e.id === "w1") + 1);
	expect(added.every((e) => e.type === "model_change" || e.type === "thinking_level_change")).toBe(true);
	expect(added[0]?.parentId ?? leafId).toBe(json.leafId);
});
