// One error path (issue #31 item 4): every error of the session core and the services reaches the client as its
// API code with the file and line; `internal` is left for real bugs. The race Arbor exists for — the file
// changes under an open session while the lazy entry cache reads it — answers `conflict` naming file and line.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeServices, type TestServices } from "../../services/test/helpers/services";
import { createRouter } from "../router";

const genSession = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "tools", "gen-session.mjs");
let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

/** A session big enough that entry bodies stay on disk (the lazy entry cache). */
function bigSession(dir: string): string {
	const file = path.join(dir, "big.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "16000", "--seed", "31", "--out", file, "--profile", "fixture"]);
	expect(fs.statSync(file).size).toBeGreaterThan(16 * 1024 * 1024);
	return file;
}

/** Rewrites line `lineNo` (1-based) in place, same length, so its entry's id no longer matches. */
function scrambleLine(file: string, lineNo: number): string {
	const lines = fs.readFileSync(file, "utf8").split("\n");
	const rec = JSON.parse(lines[lineNo - 1]) as { id: string };
	const id = rec.id;
	const other = id.replace(/[0-9a-f]/g, (c) => (c === "0" ? "1" : "0"));
	lines[lineNo - 1] = lines[lineNo - 1].replace(`"id":"${id}"`, `"id":"${other}"`);
	fs.writeFileSync(file, lines.join("\n"));
	return id;
}

describe("errors reach the client with their meaning", () => {
	const requests: [string, (sessionId: string, id: string) => [string, Record<string, unknown>]][] = [
		["getEntry", (sessionId, id) => ["getEntry", { sessionId, id }]],
		["getContext", (sessionId, id) => ["getContext", { sessionId, leafId: id }]],
	];
	for (const [name, request] of requests) {
		it(`${name} after the file changed under the open session answers conflict naming the file and line`, async () => {
			t = makeServices();
			const file = bigSession(t.dir);
			const router = createRouter({ services: t.services as never, log: () => {} });
			await router.allowPath(file);
			const open = await router.handle("openSession", { path: file });
			if (!open.ok) throw new Error(open.error.message);
			const { sessionId } = open.result as { sessionId: string };
			const lineNo = 200;
			const id = scrambleLine(file, lineNo);
			const [req, params] = request(sessionId, id);
			const r = await router.handle(req, params);
			expect(r.ok).toBe(false);
			const error = (r as { error: { code: string; file?: string; line?: number; message: string } }).error;
			expect(error.code).toBe("conflict");
			expect(error.file).toBe(file);
			expect(error.line).toBe(lineNo);
			expect(error.message).toMatch(/changed under the open session/);
		});
	}
});
