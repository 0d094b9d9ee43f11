// `arbor family` and `arbor search` on generated sessions, with children written by pi 1.6's own
// SessionManager (createBranchedSession = /fork, forkFrom), by `arbor branch`, and omp 18.3's header shapes
// (parentSession as a session id; previousSessionFiles after a move).
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, generate, repo, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

interface PiSM {
	createBranchedSession(leafId: string): string | undefined;
}
interface PiStatic {
	open(p: string, sessionDir?: string): PiSM;
	forkFrom(source: string, cwd: string, sessionDir?: string): { getSessionFile(): string | undefined };
}
async function pi(): Promise<PiStatic> {
	// eslint-disable-next-line arbor/layers -- pi 1.6's dist/core by path (its exports map hides it)
	const m = (await import(pathToFileURL(join(repo, "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js")).href)) as {
		SessionManager: PiStatic;
	};
	return m.SessionManager;
}

function ids(file: string): string[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.slice(1)
		.map((l) => (JSON.parse(l) as { id: string }).id);
}
/** The root -> id path of a generated file, without label entries (pi re-writes those with new ids). */
function pathTo(file: string, id: string): string[] {
	const byId = new Map<string, { parentId: string | null; type: string }>();
	for (const l of readFileSync(file, "utf8").split("\n").filter(Boolean).slice(1)) {
		const o = JSON.parse(l) as { id: string; parentId: string | null; type: string };
		byId.set(o.id, o);
	}
	const out: string[] = [];
	for (let at: string | null = id; at; at = byId.get(at)?.parentId ?? null) if (byId.get(at)?.type !== "label") out.unshift(at);
	return out;
}

interface Member {
	path: string;
	parentPath: string | null;
	branchedAtEntryId: string | null;
	sessionId: string;
	title: string | null;
	entries: number;
}

function family(file: string, home: string): Member[] {
	const r = arbor(["family", file, "--json"], { HOME: home, PI_CODING_AGENT_DIR: join(home, "nopi"), XDG_DATA_HOME: join(home, "xdg") });
	expect(r.stderr).toBe("");
	expect(r.status).toBe(0);
	return (JSON.parse(r.stdout) as { members: Member[] }).members;
}

describe("arbor family", () => {
	it("links pi 1.6 /fork (createBranchedSession), forkFrom and arbor branch children, with the branch point", async () => {
		const home = tempDir();
		const dir = join(home, "proj");
		mkdirSync(dir);
		const parent = generate(dir, "parent.jsonl", ["--n", "400", "--seed", "fam"]);
		const all = ids(parent);
		const at1 = all[120];
		const at2 = all[300];
		const SM = await pi();
		const forked = SM.open(parent, dir).createBranchedSession(at1) as string;
		const arborOut = arbor(["branch", parent, at2, "--dir", dir]);
		expect(arborOut.status).toBe(0);
		const arborChild = arborOut.stdout.trim();
		// A grandchild: pi's forkFrom copies the whole fork file.
		const grand = SM.forkFrom(forked, dir, dir).getSessionFile() as string;
		const before = [parent, forked, arborChild, grand].map(sha256);

		const members = family(arborChild, home);
		const byPath = new Map(members.map((m) => [m.path, m]));
		expect(members[0].path).toBe(parent);
		expect(members[0].parentPath).toBeNull();
		expect(new Set(members.map((m) => m.path))).toEqual(new Set([parent, forked, arborChild, grand]));
		expect(byPath.get(forked)).toMatchObject({ parentPath: parent, branchedAtEntryId: at1, entries: ids(forked).length });
		expect(byPath.get(arborChild)).toMatchObject({ parentPath: parent, branchedAtEntryId: at2 });
		expect(byPath.get(grand)?.parentPath).toBe(forked);
		// forkFrom copies every entry of the fork: it branched at the fork's last copied entry.
		expect(byPath.get(grand)?.branchedAtEntryId).toBe(
			ids(forked)
				.filter((i) => ids(grand).includes(i))
				.at(-1),
		);
		// The fork copied root -> at1 with the parent's ids, ending at at1.
		expect(ids(forked).slice(0, pathTo(parent, at1).length)).toEqual(pathTo(parent, at1));
		// Same family from any member; files untouched.
		expect(
			family(grand, home)
				.map((m) => m.path)
				.sort(),
		).toEqual(members.map((m) => m.path).sort());
		expect([parent, forked, arborChild, grand].map(sha256)).toEqual(before);
		const text = arbor(["family", parent], { HOME: home });
		expect(text.stdout).toContain(`branched at ${at1}`);
	});

	it("follows omp 18.3's parentSession by session id and a parent moved away (previousSessionFiles); a fork with no copied entries has no branch point", () => {
		const home = tempDir();
		const dir = join(home, "proj");
		mkdirSync(dir);
		const parent = generate(dir, "parent.jsonl", ["--n", "50", "--seed", "omp"]);
		const lines = readFileSync(parent, "utf8").split("\n").filter(Boolean);
		const header = JSON.parse(lines[0]) as Record<string, unknown>;
		// omp fork(): same entries, header parentSession = the parent's session id.
		const fork = join(dir, "fork.jsonl");
		writeFileSync(
			fork,
			[
				JSON.stringify({ type: "session", version: 3, id: "omp-fork-1", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/x", parentSession: header.id }),
				...lines.slice(1),
			].join("\n") + "\n",
		);
		// The parent is moved by omp: its new header lists the old path; a child still names the old path.
		const moved = join(dir, "moved.jsonl");
		renameSync(parent, moved);
		writeFileSync(moved, [JSON.stringify({ ...header, previousSessionFiles: [parent] }), ...lines.slice(1)].join("\n") + "\n");
		const empty = join(dir, "empty-fork.jsonl");
		writeFileSync(
			empty,
			`${JSON.stringify({ type: "session", version: 3, id: "pi-new", timestamp: "2026-12-01T00:00:01.000Z", cwd: "/x", parentSession: parent })}\n`,
		);
		const members = family(fork, home);
		const byPath = new Map(members.map((m) => [m.path, m]));
		expect(members[0].path).toBe(moved);
		expect(byPath.get(fork)).toMatchObject({ parentPath: moved, branchedAtEntryId: ids(moved).at(-1), sessionId: "omp-fork-1" });
		expect(byPath.get(empty)).toMatchObject({ parentPath: moved, branchedAtEntryId: null, entries: 0 });
	});

	it("reads a child's header after omp's title slot (the listing's header rule)", () => {
		const home = tempDir();
		const dir = join(home, "proj");
		mkdirSync(dir);
		const parent = generate(dir, "parent.jsonl", ["--n", "30", "--seed", "slot"]);
		const lines = readFileSync(parent, "utf8").split("\n").filter(Boolean);
		const slot = JSON.stringify({ type: "title", v: 1, title: "Slot title", pad: "" });
		const child = join(dir, "child.jsonl");
		writeFileSync(
			child,
			[
				slot.padEnd(255, " "),
				JSON.stringify({ type: "session", version: 3, id: "slot-child", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/x", parentSession: parent }),
				...lines.slice(1),
			].join("\n") + "\n",
		);
		const byPath = new Map(family(child, home).map((m) => [m.path, m]));
		expect(byPath.get(child)).toMatchObject({ parentPath: parent, sessionId: "slot-child", branchedAtEntryId: ids(parent).at(-1) });
	});

	it("a file without relatives is a family of one; a missing file or a non-session file is a usage error", () => {
		const home = tempDir();
		const f = generate(home, "alone.jsonl", ["--n", "20", "--seed", "solo"]);
		expect(family(f, home)).toMatchObject([{ path: f, parentPath: null, branchedAtEntryId: null, entries: ids(f).length }]);
		expect(arbor(["family", join(home, "nope.jsonl")], { HOME: home }).status).toBe(1);
		const bad = join(home, "bad.jsonl");
		writeFileSync(bad, "not json\n");
		const r = arbor(["family", bad], { HOME: home });
		expect(r.status).toBe(1);
		expect(r.stderr).toMatch(/line 1 is not a session header/);
	});
});

interface SearchOut {
	query: string;
	indexedFiles: number;
	sessions: { path: string; title: string | null; matchCount: number; matches: { entryId: string | null; kind: string; snippet: string }[] }[];
}

function search(query: string, dirs: string[], indexDir: string): SearchOut {
	const r = arbor(["search", query, ...dirs, "--json", "--index-dir", indexDir]);
	expect(r.stderr).toBe("");
	expect(r.status).toBe(0);
	return JSON.parse(r.stdout) as SearchOut;
}

function entry(id: string, parentId: string | null, text: string): string {
	return `${JSON.stringify({ type: "message", id, parentId, timestamp: "2026-12-01T00:00:00.000Z", message: { role: "user", content: [{ type: "text", text }], timestamp: 1 } })}\n`;
}

describe("arbor search", () => {
	it("finds entries in every session, grouped by session, and keeps up with appends, rewrites and deletions", () => {
		const root = tempDir();
		const idx = join(tempDir(), "index");
		mkdirSync(join(root, "a"));
		mkdirSync(join(root, "b"));
		const a = generate(join(root, "a"), "a.jsonl", ["--n", "200", "--seed", "s1"]);
		const b = generate(join(root, "b"), "b.jsonl", ["--n", "200", "--seed", "s2"]);
		const before = [a, b].map(sha256);
		let r = search("zebraquartz", [root], idx);
		expect(r.sessions).toEqual([]);
		expect(r.indexedFiles).toBe(2);
		// The index is Arbor's own folder, never next to the sessions.
		expect(statSync(join(idx, "manifest.json")).isFile()).toBe(true);
		expect([a, b].map(sha256)).toEqual(before);

		const last = ids(a).at(-1) as string;
		appendFileSync(a, entry("zz000001", last, "look for the zebraquartz token"));
		r = search("zebraquartz", [root], idx);
		expect(r.sessions.map((s) => s.path)).toEqual([a]);
		expect(r.sessions[0].matches[0]).toMatchObject({ entryId: "zz000001", kind: "user" });
		expect(r.sessions[0].matches[0].snippet).toContain("zebraquartz");
		// Prefix and AND of terms.
		expect(search("zebraq token", [root], idx).sessions).toHaveLength(1);
		expect(search("zebraquartz absentword", [root], idx).sessions).toHaveLength(0);

		// A torn last line is not indexed until it is complete.
		appendFileSync(b, entry("zz000002", ids(b).at(-1) as string, "zebraquartz in b").slice(0, 40));
		expect(search("zebraquartz", [root], idx).sessions.map((s) => s.path)).toEqual([a]);
		writeFileSync(b, readFileSync(b, "utf8") + entry("zz000002", null, "zebraquartz in b").slice(40));
		expect(
			search("zebraquartz", [root], idx)
				.sessions.map((s) => s.path)
				.sort(),
		).toEqual([a, b].sort());

		// a replaced by a shorter file without the word: re-indexed from scratch.
		generate(join(root, "a"), "a.jsonl", ["--n", "50", "--seed", "s3"]);
		expect(search("zebraquartz", [root], idx).sessions.map((s) => s.path)).toEqual([b]);
		// b emptied, then deleted: gone from the results and from the index.
		writeFileSync(b, "");
		expect(search("zebraquartz", [root], idx).sessions).toEqual([]);
		rmSync(b);
		expect(search("zebraquartz", [root], idx).indexedFiles).toBe(1);
	});

	it("rejects an empty query and a bad --limit", () => {
		expect(arbor(["search"]).status).toBe(1);
		expect(arbor(["search", "x", "--limit", "0"]).stderr).toMatch(/--limit/);
	});
});
