// omp rewrites its 256-byte title line in place (same size): the open session's title follows without a
// reload, and writes are not refused because of it.
import * as fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { branchySession, header, tempDir } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

function slot(title: string): string {
	const obj = { type: "title", v: 1, title, source: "auto", updatedAt: "2026-06-01T00:00:00.000Z", pad: "" };
	return `${JSON.stringify({ ...obj, pad: " ".repeat(255 - Buffer.byteLength(JSON.stringify(obj))) })}\n`;
}

describe("omp title line rewritten in place", () => {
	it("the session summary takes the new title (session_loaded), no reload; a label write still goes through", async () => {
		t = makeServices({ watch: true, pollMs: 100 });
		const file = `${tempDir()}/omp.jsonl`;
		fs.writeFileSync(file, slot("Old title") + [header(), ...branchySession()].map((e) => `${JSON.stringify(e)}\n`).join(""));
		const s = await t.services.openSession({ path: file });
		expect(s.title).toBe("Old title");
		t.events.length = 0;
		const buf = fs.readFileSync(file);
		Buffer.from(slot("New title")).copy(buf, 0);
		fs.writeFileSync(file, buf);
		await expect.poll(() => t.of("session_loaded").at(-1)?.session.title, { timeout: 5_000 }).toBe("New title");
		expect(t.of("session_reloaded")).toEqual([]);
		await t.services.setLabel({ sessionId: s.sessionId, entryId: "u2", label: "ok" });
		expect(readLines(file).at(-1)).toMatchObject({ type: "label", targetId: "u2" });
		expect(fs.readFileSync(file, "utf8").startsWith(slot("New title"))).toBe(true);
	});
});
