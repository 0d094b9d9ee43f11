// kill -9 at a chosen byte of every kind of write: an append (message, label) and a branch to a new file.
// The child's writes stop at the byte budget and it kills itself (helpers/probe runKilledAfter), so each
// cut is reproducible; `npm run test:reliability` adds timed kills from outside. The promises: opening the
// file afterwards changes nothing; after Arbor's next write the session file is its old bytes plus whole
// lines (the write's proof-checked marker cuts the torn line off), and no partial file ever appears under a
// session file's name. The budget counts every byte written, the append marker's too (MARKER_HEADER_BYTES
// plus a copy of the line, written before the line itself).
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { MARKER_HEADER_BYTES } from "../write";
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
		it(`${what}: opening changes nothing; after Arbor's next write the file is its old bytes plus whole lines, and pi reads the same`, () => {
			let killed = 0;
			let repaired = 0;
			let tornCount = 0;
			// The line is about `length` + 150 bytes; its marker is written first (header + a copy of the line).
			const marker = MARKER_HEADER_BYTES + length + 150;
			const budgets = [0, 1, Math.floor(marker / 2), marker, marker + 4096, marker + Math.floor(length / 2), marker + length - 200, marker * 3];
			for (const budget of budgets) {
				const f = fixtureCopy(FIXTURE);
				const original = readFileSync(f);
				const r = runKilledAfter(f, budget, ops);
				if (r.killed) killed++;
				else expect(r.status, `budget ${budget}: ${r.stderr}`).toBe(0);
				const torn = readFileSync(f);
				SessionManager.open(f).getTree();
				expect(readFileSync(f).equals(torn), `budget ${budget}: opening changed the file`).toBe(true);
				const writer = SessionManager.open(f);
				writer.appendLabelChange(writer.getLeafId()!, "next write");
				const now = readFileSync(f);
				if (r.killed && torn.length > original.length) {
					tornCount++;
					// Repaired: the only line added is the next write's label (the torn bytes are gone).
					if (now.subarray(original.length).toString("utf8").split("\n").filter(Boolean).length === 1) repaired++;
				}
				expect(appendOnlyProblem(original, now), `budget ${budget}`).toBe("");
				const ids = SessionManager.open(f)
					.getEntries()
					.map((e) => e.id);
				expect(
					PiSessionManager.open(f)
						.getEntries()
						.map((e) => e.id),
					`budget ${budget}`,
				).toEqual(ids);
			}
			// Every budget but the last cuts the write; every cut inside the line is repaired by the next write.
			expect(killed).toBe(budgets.length - 1);
			expect(tornCount).toBeGreaterThanOrEqual(3);
			expect(repaired).toBe(tornCount);
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
