// getPreviews reads its rows (and the assistant entries their tool results name) in one batch; the rows must
// equal the ones built entry by entry, in the caller's order, with "" for indices that name no entry.
import { afterAll, describe, expect, it } from "vitest";
import { previewText } from "../../../shared/preview";
import type { ToolCallBlock } from "../../../shared/entries";
import { SessionManager } from "../manager";
import { cleanupTempDirs, copyToTemp } from "./helpers/files";
import { generatedSession } from "./helpers/gen";

afterAll(cleanupTempDirs);

describe("getPreviews", () => {
	it("a batch in any order (repeats, out of range) equals entry-by-entry rows on a large-file session", () => {
		const file = copyToTemp(generatedSession({ n: 1200, seed: "previews", customMessages: 0.3 }), "previews");
		const sm = SessionManager.open(file, { lazy: true });
		const n = sm.getEntryCount();
		const entries = sm.getEntries().map((e) => JSON.parse(JSON.stringify(e)) as Record<string, unknown>);
		const calls = new Map<string, ToolCallBlock>();
		for (const e of entries) {
			const m = e.message as { content?: unknown } | undefined;
			if (!m || !Array.isArray(m.content)) continue;
			for (const b of m.content as ToolCallBlock[]) if (b && b.type === "toolCall") calls.set(b.id, b);
		}
		const indices = [n - 1, 7, -1, n + 5, 3, 3, ...Array.from({ length: 300 }, (_, k) => (k * 37) % n)];
		const expected = indices.map((i) => (i >= 0 && i < n ? previewText(entries[i] as never, (id) => calls.get(id), { homeDir: "/home/u" }) : ""));
		expect(sm.getPreviews(indices, { homeDir: "/home/u" })).toEqual(expected);
		expect(expected.some((r) => r.startsWith("[read:") || r.startsWith("[bash:") || r.startsWith("[edit:"))).toBe(true);
		sm.close();
	});
});
