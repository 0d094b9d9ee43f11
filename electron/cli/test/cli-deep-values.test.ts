// Issue #28 item 7: values nested 20,000 deep where a session holds tool arguments must not overflow the stack
// anywhere Arbor turns them into text: `arbor context` (the transcript), cross-session search (one such file
// must not break search across its folder) and the context view the app shows (its token estimate).
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRouter } from "../../api/router";
import { makeServices, type TestServices } from "../../services/test/helpers/services";
import { arbor, buildCli, fixtures, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

const deep = (n: number): string => "[".repeat(n) + "]".repeat(n);
const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" });
const first = '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"find the zebra"}}';
const call = `{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"zebra here"},{"type":"toolCall","id":"c","name":"probe","arguments":{"deep":${deep(20000)}}}],"provider":"p","model":"m","stopReason":"toolUse"}}`;

function deepSession(dir: string): string {
	const file = join(dir, "deep.jsonl");
	writeFileSync(file, `${[header, first, call].join("\n")}\n`);
	return file;
}

let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

describe("tool arguments nested 20,000 deep", () => {
	it("arbor context prints the transcript (exit 0, no stack trace)", () => {
		const file = deepSession(tempDir());
		const before = sha256(file);
		const r = arbor(["context", file]);
		expect(r.stderr).not.toMatch(/internal error|Maximum call stack/);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toContain("→ probe");
		expect(sha256(file)).toBe(before);
	});

	it("arbor search still finds the other sessions of the folder and the deep one's own text", () => {
		const dir = tempDir();
		deepSession(dir);
		copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), join(dir, "other.jsonl"));
		const r = arbor(["search", "zebra", dir, "--json", "--index-dir", join(tempDir(), "index")]);
		expect(r.stderr).not.toMatch(/internal error|Maximum call stack/);
		expect(r.status, r.stderr).toBe(0);
		const found = JSON.parse(r.stdout) as { sessions: { path: string }[] };
		expect(found.sessions.map((s) => s.path)).toEqual([join(dir, "deep.jsonl")]);
	});

	it("the app's context view answers with a token estimate for the deep message", async () => {
		t = makeServices();
		const file = deepSession(t.dir);
		const router = createRouter({ services: t.services as never, log: () => {} });
		await router.allowPath(file);
		const open = await router.handle("openSession", { path: file });
		if (!open.ok) throw new Error(open.error.message);
		const { sessionId } = open.result as { sessionId: string };
		const r = await router.handle("getContext", { sessionId, leafId: "b" });
		if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
		const view = r.result as { messages: { estimatedTokens: number }[] };
		expect(view.messages).toHaveLength(2);
		expect(view.messages[1].estimatedTokens).toBeGreaterThan(20000 / 4);
	});
});
