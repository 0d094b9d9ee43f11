// getFamily and searchAllSessions through the real router and real services, on generated sessions in a
// temp pi folder: validation, the path policy, the background index build with its events, and opening
// a hit (the library offers it, so it may be opened).
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { ArborEvent, CrossSearchResult, SessionFamily } from "../../../shared/api";
import { ArborServices } from "../../services";
import { createRouter } from "../router";

const gen = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "tools", "gen-session.mjs");

function setup() {
	const dir = realpathSync(mkdtempSync(join(tmpdir(), "arbor-famsearch-")));
	const pi = join(dir, "pi");
	const proj = join(pi, "sessions", "--home-me-app--");
	mkdirSync(proj, { recursive: true });
	const parent = join(proj, "parent.jsonl");
	execFileSync(process.execPath, [gen, "--n", "120", "--seed", "route", "--out", parent]);
	const lines = readFileSync(parent, "utf8").split("\n").filter(Boolean);
	const at = (JSON.parse(lines[40]) as { id: string }).id;
	const child = join(proj, "child.jsonl");
	writeFileSync(
		child,
		[
			JSON.stringify({ type: "session", version: 3, id: "child-1", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/home/me/app", parentSession: parent }),
			...lines.slice(1, 41),
		].join("\n") + "\n",
	);
	const services = new ArborServices({ settingsDir: join(dir, "arbor"), piAgentDir: pi, env: {}, watch: false });
	const router = createRouter({ services, log: () => {} });
	const events: ArborEvent[] = [];
	router.onEvent((e) => events.push(e));
	return { dir, parent, child, at, router, events };
}

async function searchUntilComplete(router: ReturnType<typeof createRouter>, query: string): Promise<CrossSearchResult> {
	for (;;) {
		const r = await router.handle("searchAllSessions", { query });
		expect(r.ok).toBe(true);
		const result = (r as { result: CrossSearchResult }).result;
		if (!result.partial) return result;
		await new Promise((ok) => setTimeout(ok, 50));
	}
}

describe("getFamily / searchAllSessions requests", () => {
	it("answers the family of an opened file, and refuses a file the user did not open", async () => {
		const { parent, child, at, router } = setup();
		expect(await router.handle("getFamily", { path: parent })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		await router.openInitial([child]);
		const r = await router.handle("getFamily", { path: child });
		expect(r.ok).toBe(true);
		const family = (r as { result: SessionFamily }).result;
		expect(family.members.map((m) => [m.path, m.parentPath, m.branchedAtEntryId])).toEqual([
			[parent, null, null],
			[child, parent, at],
		]);
		// A member in pi's folder is offered as the library offers it (listSessions would list it): opening it is allowed now.
		expect(await router.handle("openSession", { path: parent })).toMatchObject({ ok: true });
		expect(await router.handle("getFamily", { path: 42 })).toMatchObject({ ok: false, error: { code: "bad_request" } });
		await router.dispose();
	});

	it("app (no served folder): a parent named outside pi's and omp's folders is only named, never read or made openable", async () => {
		const { dir, child, router } = setup();
		const outsideDir = join(dir, "elsewhere");
		mkdirSync(outsideDir);
		const outside = join(outsideDir, "secret-parent.jsonl");
		writeFileSync(
			outside,
			`${JSON.stringify({ type: "session", version: 3, id: "sp", timestamp: "2026-12-01T00:00:00.000Z", cwd: "/x" })}\n` +
				`${JSON.stringify({ type: "message", id: "s1", parentId: null, timestamp: "2026-12-01T00:00:00.000Z", message: { role: "user", content: "OUTSIDE-WORDS", timestamp: 1 } })}\n`,
		);
		const lines = readFileSync(child, "utf8").split("\n");
		lines[0] = JSON.stringify({ ...(JSON.parse(lines[0]) as object), parentSession: outside });
		writeFileSync(child, lines.join("\n"));
		await router.openInitial([child]);
		const r = await router.handle("getFamily", { path: child });
		expect(r.ok).toBe(true);
		const family = (r as { result: SessionFamily }).result;
		expect(JSON.stringify(family)).not.toContain("OUTSIDE-WORDS");
		expect(family.members[0]).toEqual({
			path: outside,
			parentPath: null,
			branchedAtEntryId: null,
			sessionId: null,
			title: null,
			firstPrompt: null,
			branchedAtText: null,
			entries: null,
			createdAt: null,
			outside: true,
		});
		expect(await router.handle("openSession", { path: outside })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		await router.dispose();
	});

	it("builds the index in the background with search_index events, finds appended entries, and a hit can be opened", async () => {
		const { parent, router, events } = setup();
		const first = await searchUntilComplete(router, "zebraquartz");
		expect(first.sessions).toEqual([]);
		expect(first.indexedFiles).toBe(2);
		expect(events.some((e) => e.type === "search_index" && e.phase === "done" && e.filesTotal === 2)).toBe(true);
		appendFileSync(
			parent,
			`${JSON.stringify({ type: "message", id: "zz1", parentId: null, timestamp: "2026-12-01T00:00:00.000Z", message: { role: "user", content: "a zebraquartz appears", timestamp: 1 } })}\n`,
		);
		const second = await searchUntilComplete(router, "zebraquartz");
		expect(second.sessions.map((s) => [s.path, s.matches[0].entryId])).toEqual([[parent, "zz1"]]);
		expect(await router.handle("openSession", { path: parent })).toMatchObject({ ok: true });
		expect(await router.handle("searchAllSessions", { query: "x", limit: 0 })).toMatchObject({ ok: false, error: { code: "bad_request" } });
		expect(await router.handle("searchAllSessions", { query: "x", dirs: ["/etc"] })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		await router.dispose();
	});

	it("a search on an up-to-date index announces nothing; only a build with files to index sends search_index events", async () => {
		const { parent, router, events } = setup();
		await searchUntilComplete(router, "zebraquartz");
		const indexEvents = () => events.filter((e) => e.type === "search_index");
		const afterBuild = indexEvents().length;
		expect(afterBuild).toBeGreaterThan(0);
		// The library page searches again on each "done": an event per search made it search forever (issue 38).
		for (const q of ["zebraquartz", "helper", "zebraquartz"]) await searchUntilComplete(router, q);
		expect(indexEvents()).toHaveLength(afterBuild);
		appendFileSync(
			parent,
			`${JSON.stringify({ type: "message", id: "zz2", parentId: null, timestamp: "2026-12-01T00:00:00.000Z", message: { role: "user", content: "grown", timestamp: 1 } })}\n`,
		);
		await searchUntilComplete(router, "grown");
		const grown = indexEvents().slice(afterBuild);
		expect(grown.at(-1)).toMatchObject({ phase: "done", filesTotal: 1, filesDone: 1 });
		expect(grown.every((e) => e.type === "search_index" && e.filesTotal === 1)).toBe(true);
		await searchUntilComplete(router, "grown");
		expect(indexEvents()).toHaveLength(afterBuild + grown.length);
		await router.dispose();
	});

	it("a search-index folder that is not Arbor's: an io error naming it, every file left as it was", async () => {
		const { dir, router } = setup();
		const idx = join(dir, "arbor", "search-index");
		mkdirSync(idx, { recursive: true });
		writeFileSync(join(idx, "manifest.json"), "[]");
		writeFileSync(join(idx, "mine.txt"), "mine");
		const r = await router.handle("searchAllSessions", { query: "zebraquartz" });
		expect(r).toMatchObject({ ok: false, error: { code: "io" } });
		expect((r as { error: { message: string } }).error.message).toContain(`"${idx}" is not empty and holds no Arbor search index`);
		expect(readFileSync(join(idx, "manifest.json"), "utf8")).toBe("[]");
		expect(readFileSync(join(idx, "mine.txt"), "utf8")).toBe("mine");
		await router.dispose();
	});

	it("while another process holds the index lock, answers from the index as it is and writes nothing; indexes once it is free", async () => {
		const { dir, parent, router } = setup();
		const idx = join(dir, "arbor", "search-index");
		mkdirSync(idx, { recursive: true });
		const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
		try {
			writeFileSync(join(idx, "index.lock"), JSON.stringify({ pid: other.pid, host: hostname(), start: null }));
			const r = await router.handle("searchAllSessions", { query: "zebraquartz" });
			expect(r).toMatchObject({ ok: true, result: { sessions: [], indexedFiles: 0 } });
			expect(readdirSync(idx)).toEqual(["index.lock"]);
		} finally {
			other.kill();
		}
		await new Promise((ok) => other.on("exit", ok));
		appendFileSync(
			parent,
			`${JSON.stringify({ type: "message", id: "zz1", parentId: null, timestamp: "2026-12-01T00:00:00.000Z", message: { role: "user", content: "a zebraquartz appears", timestamp: 1 } })}\n`,
		);
		// The lock's process is gone: the next search takes the lock over and indexes.
		const found = await searchUntilComplete(router, "zebraquartz");
		expect(found.sessions.map((s) => s.path)).toEqual([parent]);
		expect(readdirSync(idx)).not.toContain("index.lock");
		await router.dispose();
	});
});
