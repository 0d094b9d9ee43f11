// The search index's on-disk layout (electron/services/search-index.ts): a merged term -> (file, block)
// dictionary split by the first three characters of a term, read per query only where the query's terms
// start, with postings of a build in progress searchable and file ids never reused after a stop.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ArborServices } from "../arbor-services";
import { SearchIndex } from "../search-index";
import { searchSession } from "./helpers/search-sessions";

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
	const d = mkdtempSync(join(tmpdir(), "arbor-search-index-"));
	dirs.push(d);
	return d;
}

const session = searchSession;

describe("search index layout", () => {
	it("answers a query from only the dictionary files its terms start with", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		const b = join(root, "b.jsonl");
		writeFileSync(a, session("sa", ["walrus banana", "other words here"]));
		writeFileSync(b, session("sb", ["walnut cherry", "banana split"]));
		new SearchIndex({ indexDir: idx }).update([a, b]);
		const dicts = readdirSync(idx).filter((n) => n.startsWith("d-"));
		expect(dicts.length).toBeGreaterThan(4);
		// Every dictionary file but those of words starting "wa" and "ba" removed: a new process still answers.
		const keep = [`d-${Buffer.from("wa").toString("hex")}`, `d-${Buffer.from("ba").toString("hex")}`];
		for (const n of dicts) if (!keep.some((k) => n.startsWith(k))) rmSync(join(idx, n));
		expect(readdirSync(idx).filter((n) => n.startsWith("d-")).length).toBe(2);
		const fresh = new SearchIndex({ indexDir: idx });
		expect(fresh.search("walrus").sessions.map((s) => s.path)).toEqual([a]);
		expect(
			fresh
				.search("wal banana")
				.sessions.map((s) => s.path)
				.sort(),
		).toEqual([a, b].sort());
		expect(fresh.search("walrus banana").sessions[0].matches.map((m) => m.entryId)).toEqual(["sa-e0"]);
		// A one-letter term reads every dictionary file of that first letter.
		expect(
			fresh
				.search("w ba")
				.sessions.map((s) => s.path)
				.sort(),
		).toEqual([a, b].sort());
		expect(fresh.search("w").sessions).toHaveLength(2);
	});

	it("finds postings of files indexed so far while a build is still running", () => {
		const root = tmp();
		const files = [0, 1, 2].map((i) => {
			const f = join(root, `s${i}.jsonl`);
			writeFileSync(f, session(`s${i}`, [`alpaca number${i}`]));
			return f;
		});
		const index = new SearchIndex({ indexDir: tmp() });
		const steps = index.updateSteps(files);
		while (index.search("number0").sessions.length === 0) expect(steps.next().done).toBe(false);
		const mid = index.search("alpaca");
		expect(mid.partial).toBe(true);
		expect(mid.sessions.map((s) => s.path)).toContain(files[0]);
		while (!steps.next().done);
		const done = index.search("alpaca");
		expect(done.partial).toBe(false);
		expect(done.sessions.map((s) => s.path).sort()).toEqual([...files].sort());
	});

	it("never reuses a file id after a stop between writing postings and the manifest", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["first words"]));
		new SearchIndex({ indexDir: idx }).update([a]);
		const manifest = readdirSync(idx).includes("manifest.json");
		expect(manifest).toBe(true);
		// A process indexes b (postings written), then stops before the manifest names it.
		const b = join(root, "b.jsonl");
		writeFileSync(b, session("sb", ["ghostword only in b"]));
		const saved = join(idx, "manifest.json");
		const before = readFileSync(saved, "utf8");
		new SearchIndex({ indexDir: idx }).update([a, b]);
		writeFileSync(saved, before);
		// The next process indexes another file c: it must not inherit b's postings.
		rmSync(b);
		const c = join(root, "c.jsonl");
		writeFileSync(c, session("sc", ["plain text"]));
		const next = new SearchIndex({ indexDir: idx });
		next.update([a, c]);
		expect(next.search("ghostword").sessions).toEqual([]);
		expect(next.search("plain").sessions.map((s) => s.path)).toEqual([c]);
	});

	it("drops a rewritten file's old words and keeps an appended tail searchable", () => {
		const root = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["oldword here"]));
		const index = new SearchIndex({ indexDir: tmp() });
		index.update([a]);
		appendFileSync(
			a,
			`${JSON.stringify({ type: "message", id: "tail1", parentId: "sa-e0", timestamp: "2026-12-01T00:00:02.000Z", message: { role: "user", content: [{ type: "text", text: "tailword" }], timestamp: 2 } })}\n`,
		);
		index.update([a]);
		expect(index.search("tailword").sessions[0].matches[0].entryId).toBe("tail1");
		expect(index.search("oldword").sessions).toHaveLength(1);
		writeFileSync(a, session("sz", ["newword entirely different text that is longer than before"]));
		index.update([a]);
		expect(index.search("oldword").sessions).toEqual([]);
		expect(index.search("tailword").sessions).toEqual([]);
		expect(index.search("newword").sessions.map((s) => s.sessionId)).toEqual(["sz"]);
	});
});

describe("progress", () => {
	it("counts the bytes read: a new tail reports its own length, not its end offset", () => {
		const root = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(
			a,
			session(
				"sa",
				Array.from({ length: 200 }, (_, i) => `line ${i} of text`),
			),
		);
		const index = new SearchIndex({ indexDir: tmp() });
		const full: { bytesDone: number; bytesTotal: number }[] = [];
		index.update([a], (p) => full.push(p));
		expect(full.at(-1)).toMatchObject({ phase: "done", filesDone: 1, filesTotal: 1 });
		expect(full.at(-1)?.bytesDone).toBe(full.at(-1)?.bytesTotal);
		const tail = `${JSON.stringify({ type: "message", id: "t1", parentId: "sa-e199", timestamp: "2026-12-01T00:00:02.000Z", message: { role: "user", content: [{ type: "text", text: "tail" }], timestamp: 2 } })}\n`;
		appendFileSync(a, tail);
		const grown: { bytesDone: number; bytesTotal: number }[] = [];
		index.update([a], (p) => grown.push(p));
		expect(grown.at(-1)?.bytesTotal).toBe(Buffer.byteLength(tail));
		expect(grown.every((p) => p.bytesDone <= p.bytesTotal)).toBe(true);
		expect(grown.at(-1)?.bytesDone).toBe(Buffer.byteLength(tail));
	});
});

describe("words that name an object's own machinery", () => {
	it("finds constructor / toString / hasOwnProperty like any word, in the building and in a new instance", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["at Object.__proto__ constructor toString", "hasOwnProperty valueOf"]));
		const index = new SearchIndex({ indexDir: idx });
		index.update([a]);
		for (const s of [index, new SearchIndex({ indexDir: idx })]) {
			expect(s.search("constructor").sessions[0]?.matches.map((m) => m.entryId)).toEqual(["sa-e0"]);
			expect(s.search("tostring object").sessions[0]?.matches.map((m) => m.entryId)).toEqual(["sa-e0"]);
			expect(s.search("hasownproperty valueof").sessions[0]?.matches.map((m) => m.entryId)).toEqual(["sa-e1"]);
			expect(s.search("__proto__").sessions).toEqual([]);
		}
	});
});

describe("a cancelled build", () => {
	it("indexes the lines of the block it stopped in on the next update, in their own file", () => {
		const root = tmp();
		const a = join(root, "a.jsonl");
		const b = join(root, "b.jsonl");
		// 120 entries: the build yields every 50 lines, so it stops inside a's first (unfinished) block.
		writeFileSync(
			a,
			session(
				"sa",
				Array.from({ length: 120 }, (_, i) => `stopword${i} in a`),
			),
		);
		writeFileSync(b, session("sb", ["bravo only in b"]));
		const index = new SearchIndex({ indexDir: tmp() });
		const steps = index.updateSteps([a, b]);
		steps.next();
		steps.next();
		steps.return(undefined as never);
		index.update([a, b]);
		for (const i of [0, 49, 119])
			expect(
				index.search(`stopword${i}`).sessions.map((s) => s.matches.map((m) => m.entryId)),
				`stopword${i}`,
			).toEqual([[`sa-e${i}`]]);
		expect(index.search("bravo").sessions.map((s) => s.path)).toEqual([b]);
		expect(index.search("bravo stopword0").sessions).toEqual([]);
	});
});

describe("an index an older Arbor wrote", () => {
	it("is replaced on the next update, its per-session files removed", () => {
		const root = tmp();
		const idx = tmp();
		const a = join(root, "a.jsonl");
		writeFileSync(a, session("sa", ["kestrel words"]));
		// The first design's layout: manifest version 1 and one MiniSearch JSON file per session.
		writeFileSync(
			join(idx, "manifest.json"),
			JSON.stringify({
				version: 1,
				files: { [a]: { size: 1, mtimeMs: 1, indexedTo: 1, head: "x", shard: "0123abcd.json", sessionId: "sa", title: null, entries: 1 } },
			}),
		);
		writeFileSync(join(idx, "0123abcd.json"), "{}");
		const index = new SearchIndex({ indexDir: idx });
		expect(index.fileCount).toBe(0);
		index.update([a]);
		expect(readdirSync(idx)).not.toContain("0123abcd.json");
		expect(index.search("kestrel").sessions.map((s) => s.path)).toEqual([a]);
		expect(JSON.parse(readFileSync(join(idx, "manifest.json"), "utf8")).version).toBe(3);
	});
});

describe("hits in id-less (v1) sessions", () => {
	it("name the hit's line, and the open session finds the entry Arbor made of that line (pi-mono's v1 fixture)", async () => {
		const root = tmp();
		const file = join(root, "large-session.v1.jsonl");
		writeFileSync(file, readFileSync(join(import.meta.dirname, "../../../../shared/fixtures/sessions/pi-mono__large-session.v1.jsonl")));
		const index = new SearchIndex({ indexDir: tmp() });
		index.update([file]);
		const [hit] = index.search("lakcing htemes").sessions[0].matches;
		expect(hit).toMatchObject({ entryId: null, line: 70 });
		expect(readFileSync(file, "utf8").split("\n")[69]).toContain("lakcing is the htemes");
		const services = new ArborServices({ settingsDir: tmp(), piAgentDir: tmp(), watch: false, liveDir: null });
		try {
			const { sessionId } = await services.openSession({ path: file });
			const id = await services.entryAtLine({ sessionId, line: 70 });
			const entry = (await services.getEntry({ sessionId, id: id! })) as { message?: { content?: { text?: string }[] } };
			expect(entry.message?.content?.[0]?.text).toContain("what's lakcing is the htemes");
			expect(await services.entryAtLine({ sessionId, line: 5000 })).toBeNull();
		} finally {
			services.dispose();
		}
	});
});
