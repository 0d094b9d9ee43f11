// The search index never deletes or overwrites a file it did not write (an --index-dir that is someone
// else's folder), writes under one lock, cleans what a killed writer left, and rebuilds a damaged index
// file instead of merging into it as if it were empty. Full disk: search-index-full-disk.test.ts; two real
// `arbor search` processes on one index: electron/cli/test/cli-search-index.test.ts.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IndexBusyError, IndexFolderError, SearchIndex } from "../search-index";
import { dictName } from "../search-terms";
import { searchSession } from "./helpers/search-sessions";

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
	const d = mkdtempSync(join(tmpdir(), "arbor-search-safety-"));
	dirs.push(d);
	return d;
}

const session = searchSession;

/** Every file under `dir` with its bytes. */
function snapshot(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const n of readdirSync(dir, { recursive: true }) as string[]) {
		const p = join(dir, n);
		if (statSync(p).isFile()) out[n] = readFileSync(p, "base64");
	}
	return out;
}

describe("a folder that is not Arbor's index", () => {
	const hostile: [string, Record<string, string>][] = [
		["a manifest.json that parses but is not Arbor's ([])", { "manifest.json": "[]", "thesis.tex": "my work", "sub/notes.md": "notes" }],
		["a manifest.json that is an object of someone else's", { "manifest.json": '{"name":"my-extension","version":"1.0.0"}', "icon.png": "png" }],
		["a manifest.json that is not JSON", { "manifest.json": "<xml/>", "data.csv": "1,2" }],
		["user files and no manifest.json", { "photo.jpg": "jpg", "d-616263.json": "{}" }],
	];
	for (const [what, files] of hostile) {
		it(`is refused, naming the folder, with every file left as it was: ${what}`, () => {
			const root = tmp();
			const idx = join(tmp(), "my folder");
			for (const [n, text] of Object.entries(files)) {
				mkdirSync(join(idx, n, ".."), { recursive: true });
				writeFileSync(join(idx, n), text);
			}
			const before = snapshot(idx);
			const a = join(root, "a.jsonl");
			writeFileSync(a, session("sa", ["kestrel"]));
			let error: unknown;
			try {
				new SearchIndex({ indexDir: idx }).update([a]);
			} catch (err) {
				error = err;
			}
			expect(error).toBeInstanceOf(IndexFolderError);
			expect((error as Error).message).toContain(`"${idx}" is not empty and holds no Arbor search index`);
			expect((error as Error).message).toContain("choose an empty or new folder");
			expect(snapshot(idx)).toEqual(before);
		});
	}

	it("a file given as the folder is refused", () => {
		const f = join(tmp(), "file");
		writeFileSync(f, "x");
		expect(() => new SearchIndex({ indexDir: f })).toThrow(/is a file, not a folder/);
		expect(readFileSync(f, "utf8")).toBe("x");
	});

	it("an empty or missing folder becomes the index", () => {
		const root = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["kestrel"]));
		for (const idx of [tmp(), join(tmp(), "new", "deeper")]) {
			const index = new SearchIndex({ indexDir: idx });
			index.update([a]);
			expect(index.search("kestrel").sessions.map((s) => s.path)).toEqual([a]);
		}
	});
});

describe("rebuilding Arbor's own index", () => {
	it("an older Arbor's index is replaced: only its own files go, another file in the folder stays", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["kestrel words"]));
		// Version 2's layout (a block table per file) with a file of the user's put in the folder.
		writeFileSync(join(idx, "manifest.json"), JSON.stringify({ version: 2, files: {}, nextFid: 4 }));
		writeFileSync(join(idx, "b-3.json"), "[]");
		writeFileSync(join(idx, "d-6b6573.json"), "{}");
		writeFileSync(join(idx, "reserved.json"), '{"upTo":1003}');
		writeFileSync(join(idx, "README.txt"), "mine");
		mkdirSync(join(idx, "keep"));
		writeFileSync(join(idx, "keep", "d-616263.json"), "mine too");
		// A folder of the user's named like an index file.
		mkdirSync(join(idx, "t-9.json"));
		const index = new SearchIndex({ indexDir: idx });
		index.update([a]);
		expect(readdirSync(idx)).not.toContain("b-3.json");
		expect(readFileSync(join(idx, "README.txt"), "utf8")).toBe("mine");
		expect(readFileSync(join(idx, "keep", "d-616263.json"), "utf8")).toBe("mine too");
		expect(index.search("kestrel").sessions.map((s) => s.path)).toEqual([a]);
		// clear() also leaves them.
		index.clear();
		expect(readdirSync(idx).sort()).toEqual(["README.txt", "keep", "t-9.json"]);
	});
});

describe("a damaged index file", () => {
	it("a dictionary file cut short is rebuilt from the indexed blocks, by a query and by the next build's merge", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		const b = join(root, "b.jsonl");
		writeFileSync(a, session("sa", ["kestrel alpha", "filler text"]));
		writeFileSync(b, session("sb", ["kestrels bravo", "other"]));
		new SearchIndex({ indexDir: idx }).update([a, b]);
		const dict = join(idx, dictName("kestrel"));
		truncateSync(dict, Math.floor(statSync(dict).size / 2));
		// A query in a new process finds both files.
		const q = new SearchIndex({ indexDir: idx });
		expect(
			q
				.search("kestrel")
				.sessions.map((s) => s.path)
				.sort(),
		).toEqual([a, b].sort());
		// A build that merges into the damaged file (a new file with a word of the same prefix) keeps the old postings.
		truncateSync(dict, Math.floor(statSync(dict).size / 2));
		const c = join(root, "c.jsonl");
		writeFileSync(c, session("sc", ["kestrelling charlie"]));
		const next = new SearchIndex({ indexDir: idx });
		next.update([a, b, c]);
		const fresh = new SearchIndex({ indexDir: idx });
		expect(
			fresh
				.search("kestrel")
				.sessions.map((s) => s.path)
				.sort(),
		).toEqual([a, b, c].sort());
		expect(fresh.search("kestrel alpha").sessions[0].matches.map((m) => m.entryId)).toEqual(["sa-e0"]);
		expect(() => JSON.parse(readFileSync(dict, "utf8")) as unknown).not.toThrow();
	});

	it("a query's rebuild is written by `saveRepairs`, so the file parses again", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["kestrel alpha"]));
		new SearchIndex({ indexDir: idx }).update([a]);
		const dict = join(idx, dictName("kestrel"));
		writeFileSync(dict, "");
		const q = new SearchIndex({ indexDir: idx });
		expect(q.search("kestrel").sessions.map((s) => s.path)).toEqual([a]);
		q.saveRepairs();
		expect(Object.keys(JSON.parse(readFileSync(dict, "utf8")) as object)).toEqual(["kestrel"]);
	});

	it("a block table group cut short: its files are indexed again and their entries found", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["kestrel alpha"]));
		new SearchIndex({ indexDir: idx }).update([a]);
		const table = readdirSync(idx).find((n) => n.startsWith("t-")) as string;
		truncateSync(join(idx, table), 3);
		const next = new SearchIndex({ indexDir: idx });
		next.update([a]);
		next.search("kestrel");
		next.update([a]);
		const fresh = new SearchIndex({ indexDir: idx });
		expect(fresh.search("kestrel").sessions[0].matches.map((m) => m.entryId)).toEqual(["sa-e0"]);
	});
});

describe("what a killed writer leaves", () => {
	it("its temporary files are removed by the next update; a .tmp file that is not Arbor's stays", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["kestrel"]));
		new SearchIndex({ indexDir: idx }).update([a]);
		writeFileSync(join(idx, `${dictName("zebra")}.4242.tmp`), '{"zeb');
		writeFileSync(join(idx, "manifest.json.4242.tmp"), "{");
		writeFileSync(join(idx, "t-3.json.77.tmp"), "");
		writeFileSync(join(idx, "mine.tmp"), "mine");
		new SearchIndex({ indexDir: idx }).update([a]);
		expect(readdirSync(idx).filter((n) => n.endsWith(".tmp"))).toEqual(["mine.tmp"]);
	});

	it("its lock (a process that is gone) is taken over; a live process's lock is not", async () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["kestrel"]));
		new SearchIndex({ indexDir: idx }).update([a]);
		// A process that has exited: its pid is free.
		const gone = spawn(process.execPath, ["-e", ""]);
		await new Promise((ok) => gone.on("exit", ok));
		const host = (await import("node:os")).hostname();
		writeFileSync(join(idx, "index.lock"), JSON.stringify({ pid: gone.pid, host, start: null }));
		const b = join(root, "b.jsonl");
		writeFileSync(b, session("sb", ["bravo"]));
		const index = new SearchIndex({ indexDir: idx });
		index.update([a, b]);
		expect(index.search("bravo").sessions.map((s) => s.path)).toEqual([b]);
		expect(readdirSync(idx)).not.toContain("index.lock");
		// A live one (this test's parent shell, say): the update does not run, nothing is written.
		const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
		try {
			writeFileSync(join(idx, "index.lock"), JSON.stringify({ pid: live.pid, host, start: null }));
			const before = snapshot(idx);
			writeFileSync(b, session("sb", ["changed"]));
			expect(() => index.updateSteps([a, b]).next()).toThrow(IndexBusyError);
			expect(snapshot(idx)).toEqual(before);
		} finally {
			live.kill();
		}
	});
});
