import * as fs from "node:fs";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { searchSession } from "./helpers/search-sessions";

// A full disk while the search index is updated: every write into the index folder fails with ENOSPC after
// `allow` more writes (a real full tmpfs runs in `npm run test:reliability`, section "search"). The update
// must fail with one line naming the folder, leave no temporary file, and leave the index on disk exactly
// as it was, answering as before (in this process and a new one).
const failing = { armed: false, dir: "", allow: 0, writes: 0 };
vi.mock("node:fs", async (importOriginal) => {
	const real = await importOriginal<typeof import("node:fs")>();
	const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
	const fdPaths = new Map<number, string>();
	const gate = (path: string) => {
		if (!failing.armed || !path.startsWith(failing.dir)) return;
		failing.writes++;
		if (failing.allow-- <= 0) throw enospc();
	};
	const openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
		const fd = (real.openSync as (...a: unknown[]) => number)(path, ...rest);
		fdPaths.set(fd, String(path));
		return fd;
	}) as typeof real.openSync;
	const writeSync = ((fd: number, ...rest: unknown[]) => {
		gate(fdPaths.get(fd) ?? "");
		return (real.writeSync as (...a: unknown[]) => number)(fd, ...rest);
	}) as typeof real.writeSync;
	const writeFileSync = ((path: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
		// Arbor's private files are written through a descriptor opened 0600 (arbor-files.ts).
		gate(typeof path === "number" ? (fdPaths.get(path) ?? "") : String(path));
		return (real.writeFileSync as (...a: unknown[]) => void)(path, ...rest);
	}) as typeof real.writeFileSync;
	const patched = { openSync, writeSync, writeFileSync };
	return { ...real, ...patched, default: { ...real, ...patched } };
});

const { IndexWriteError, SearchIndex } = await import("../search-index");

const session = searchSession;

function snapshot(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const n of readdirSync(dir)) out[n] = readFileSync(join(dir, n), "base64");
	return out;
}

describe("the search index on a full disk", () => {
	const dirs: string[] = [];
	afterEach(() => {
		failing.armed = false;
		for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
	});

	/** Two sessions indexed, then changed: b rewritten (new id, old postings dropped), c new, a grown. */
	function setup(): { idx: string; a: string; b: string; c: string; before: Record<string, string> } {
		const root = mkdtempSync(join(tmpdir(), "arbor-search-full-"));
		const idx = mkdtempSync(join(tmpdir(), "arbor-search-full-idx-"));
		dirs.push(root, idx);
		const [a, b, c] = ["a", "b", "c"].map((n) => join(root, `${n}.jsonl`));
		writeFileSync(a, session("sa", ["kestrel alpha", "walrus"]));
		writeFileSync(b, session("sb", ["bravo words"]));
		new SearchIndex({ indexDir: idx }).update([a, b]);
		const before = snapshot(idx);
		writeFileSync(b, session("sb2", ["completely different text now"]));
		writeFileSync(c, session("sc", ["charlie kestrel"]));
		fs.appendFileSync(a, `${session("sa", ["tailword"]).split("\n")[1]}\n`);
		return { idx, a, b, c, before };
	}

	// The lock, the id reservation, dictionary files (a write per piece), the table group, and last the manifest.
	const WRITES = 15;

	it("counts the writes of the update the cases below cut short", () => {
		const { idx, a, b, c } = setup();
		failing.dir = idx;
		failing.allow = Infinity;
		failing.writes = 0;
		failing.armed = true;
		new SearchIndex({ indexDir: idx }).update([a, b, c]);
		failing.armed = false;
		expect(failing.writes).toBe(WRITES);
	});

	for (let allow = 0; allow < WRITES; allow++) {
		it(`fails in one line and keeps the old index whole (disk full after ${allow} of ${WRITES} writes)`, () => {
			const { idx, a, b, c, before } = setup();
			const index = new SearchIndex({ indexDir: idx });
			failing.dir = idx;
			failing.allow = allow;
			failing.armed = true;
			let error: unknown;
			try {
				index.update([a, b, c]);
			} catch (err) {
				error = err;
			}
			failing.armed = false;
			expect(error).toBeInstanceOf(IndexWriteError);
			const message = (error as Error).message;
			expect(message).toBe(`cannot update the search index in "${idx}": no space left on the disk (ENOSPC); the index is kept as it was`);
			expect(message).not.toContain("\n");
			const after = snapshot(idx);
			expect(Object.keys(after).filter((n) => n.endsWith(".tmp") || n === "index.lock")).toEqual([]);
			// Files rewritten before the failure hold the same postings for every file the old manifest names.
			expect(after["manifest.json"]).toBe(before["manifest.json"]);
			for (const q of [index, new SearchIndex({ indexDir: idx })]) {
				expect(q.search("kestrel").sessions.map((s) => s.path)).toEqual([a]);
				expect(q.search("bravo").sessions.map((s) => s.path)).toEqual([b]);
				expect(q.search("walrus").sessions[0].matches.map((m) => m.entryId)).toEqual(["sa-e1"]);
			}
			// With space again, the next update brings it up to date.
			index.update([a, b, c]);
			expect(
				index
					.search("kestrel")
					.sessions.map((s) => s.path)
					.sort(),
			).toEqual([a, c].sort());
			expect(index.search("bravo").sessions).toEqual([]);
			expect(index.search("tailword").sessions.map((s) => s.path)).toEqual([a]);
		});
	}
});
