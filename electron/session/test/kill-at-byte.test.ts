// kill -9 at a chosen byte of every kind of write: an append (message, label) and a branch to a new file.
// The child's writes stop at the byte budget and it kills itself (helpers/probe runKilledAfter), so each
// cut is reproducible; `npm run test:reliability` adds timed kills from outside. The promises: the session
// file keeps its bytes and gains only whole lines once Arbor has reopened it (its append marker cuts a torn
// line off), and no partial file ever appears under a session file's name.
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { fixtureCopy } from "./helpers";
import { runKilledAfter } from "./helpers/probe";

const FIXTURE = "formic__pi-v3-branch-compaction.jsonl";

/** Empty when `now` is `original` followed by whole JSON lines only; else what is wrong. */
function appendOnlyProblem(original: Buffer, now: Buffer): string {
	if (now.length < original.length || !now.subarray(0, original.length).equals(original)) return "the original bytes changed";
	const added = now.subarray(original.length).toString("utf8");
	if (added === "") return "";
	if (!added.endsWith("\n")) return `a partial last line (${added.length} bytes without a newline)`;
	for (const line of added.slice(0, -1).split("\n")) {
		try {
			JSON.parse(line);
		} catch {
			return `an unparsable appended line: ${line.slice(0, 80)}`;
		}
	}
	return "";
}

describe("kill -9 in the middle of an append", () => {
	// [what, ops, line length]: budgets past the line's length let the append finish.
	const cases: [string, string, number][] = [
		["a 200 KB user message", `sm.appendMessage({ role: "user", content: "x".repeat(200_000), timestamp: 1 });`, 200_000],
		["a label with a 100 KB value", `sm.appendLabelChange(sm.getLeafId(), "y".repeat(100_000));`, 100_000],
	];
	for (const [what, ops, length] of cases) {
		it(`${what}: after Arbor's next open the file is its old bytes plus whole lines, and pi reads the same`, () => {
			let killed = 0;
			let repaired = 0;
			const budgets = [0, 1, 4096, Math.floor(length / 2), length - 10, length * 2];
			for (const budget of budgets) {
				const f = fixtureCopy(FIXTURE);
				const original = readFileSync(f);
				const r = runKilledAfter(f, budget, ops);
				if (r.killed) killed++;
				else expect(r.status, `budget ${budget}: ${r.stderr}`).toBe(0);
				const torn = readFileSync(f);
				const reopened = SessionManager.open(f);
				if (readFileSync(f).length < torn.length) repaired++;
				expect(appendOnlyProblem(original, readFileSync(f)), `budget ${budget}`).toBe("");
				const ids = reopened.getEntries().map((e) => e.id);
				expect(PiSessionManager.open(f).getEntries().map((e) => e.id), `budget ${budget}`).toEqual(ids);
			}
			// Every budget but the last cuts the write; every cut inside the line is repaired on reopen.
			expect(killed).toBe(budgets.length - 1);
			expect(repaired).toBeGreaterThanOrEqual(budgets.length - 2);
		});
	}
});

describe("kill -9 in the middle of a branch to a new file", () => {
	it("leaves the source untouched and no partial file under a session file's name", () => {
		const source = fixtureCopy(FIXTURE);
		const sm = SessionManager.open(source);
		const leaf = sm.getLeafId()!;
		const size = readFileSync(sm.createBranchedSession(leaf)!).length;
		let killed = 0;
		for (const budget of [0, 1, 512, Math.floor(size / 3), Math.floor(size / 2), size - 1, size * 4]) {
			const f = fixtureCopy(FIXTURE);
			const dir = dirname(f);
			const original = readFileSync(f);
			const r = runKilledAfter(f, budget, `sm.createBranchedSession(${JSON.stringify(leaf)});`);
			if (r.killed) killed++;
			else expect(r.status, `budget ${budget}: ${r.stderr}`).toBe(0);
			expect(readFileSync(f).equals(original), `budget ${budget}: source changed`).toBe(true);
			for (const name of readdirSync(dir).filter((n) => n.endsWith(".jsonl") && n !== basename(f))) {
				// Only a finished branch may carry a session file name: it opens with the leaf's whole path.
				const b = SessionManager.open(join(dir, name));
				expect(b.getWarnings(), `budget ${budget}: ${name}`).toEqual([]);
				const entries = (list: { type: string; id?: string }[]) => list.filter((e) => e.type !== "label").map((e) => e.id);
				expect(entries(b.getBranch()), `budget ${budget}: ${name}`).toEqual(entries(sm.getBranch(leaf)));
			}
		}
		expect(killed).toBe(6);
	});
});
