// The session library: default pi/omp roots, project names, titles, first user messages, entry counts
// from a bounded prefix, unreadable files listed with an error, and a 3,000-file library.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeProjectDir, defaultSessionRoots, describeSessionFile, groupByProject, listSessions } from "../library";

const tmp = () => mkdtempSync(join(tmpdir(), "arbor-library-"));

function header(id: string, extra: Record<string, unknown> = {}): string {
	return JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/app", ...extra });
}
function user(id: string, parentId: string | null, content: unknown): string {
	return JSON.stringify({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content, timestamp: 1 } });
}
function assistant(id: string, parentId: string | null, text: string): string {
	return JSON.stringify({
		type: "message",
		id,
		parentId,
		timestamp: "2026-01-01T00:00:02.000Z",
		message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" },
	});
}
function write(file: string, lines: string[], eol = true): string {
	writeFileSync(file, lines.join("\n") + (eol ? "\n" : ""));
	return file;
}

describe("default roots", () => {
	it("finds pi's and omp's session folders that exist, honouring $PI_CODING_AGENT_DIR and XDG", () => {
		const home = tmp();
		mkdirSync(join(home, ".pi", "agent", "sessions"), { recursive: true });
		mkdirSync(join(home, ".omp", "agent", "sessions"), { recursive: true });
		mkdirSync(join(home, "xdg", "omp", "sessions"), { recursive: true });
		mkdirSync(join(home, ".omp", "profiles", "work", "agent", "sessions"), { recursive: true });
		const roots = defaultSessionRoots({ home, env: { XDG_DATA_HOME: join(home, "xdg") } });
		expect(roots).toEqual([
			{ dir: join(home, ".pi", "agent", "sessions"), source: "pi" },
			{ dir: join(home, ".omp", "agent", "sessions"), source: "omp" },
			{ dir: join(home, "xdg", "omp", "sessions"), source: "omp" },
			{ dir: join(home, ".omp", "profiles", "work", "agent", "sessions"), source: "omp" },
		]);
		mkdirSync(join(home, "custom", "sessions"), { recursive: true });
		const custom = defaultSessionRoots({ home, env: { PI_CODING_AGENT_DIR: "~/custom" } });
		expect(custom[0]).toEqual({ dir: join(home, "custom", "sessions"), source: "pi" });
	});
	it("honours pi 1.6's PI_CODING_AGENT_SESSION_DIR before its sessionDir setting, and keeps the default folder listed", () => {
		const home = tmp();
		const agent = join(home, ".pi", "agent");
		mkdirSync(join(agent, "sessions"), { recursive: true });
		mkdirSync(join(home, "from-setting"), { recursive: true });
		mkdirSync(join(home, "from-env"), { recursive: true });
		writeFileSync(join(agent, "settings.json"), `\ufeff${JSON.stringify({ sessionDir: "~/from-setting" })}`);
		expect(defaultSessionRoots({ home, env: {} }).filter((r) => r.source === "pi")).toEqual([
			{ dir: join(home, "from-setting"), source: "pi" },
			{ dir: join(agent, "sessions"), source: "pi" },
		]);
		expect(defaultSessionRoots({ home, env: { PI_CODING_AGENT_SESSION_DIR: join(home, "from-env") } }).filter((r) => r.source === "pi")).toEqual([
			{ dir: join(home, "from-env"), source: "pi" },
			{ dir: join(agent, "sessions"), source: "pi" },
		]);
		// A flat folder of pi 1.6 sessions (pi writes them straight into the configured folder) is listed.
		write(join(home, "from-env", "2026-01-01T00-00-00-000Z_abc.jsonl"), [
			JSON.stringify({ type: "session", version: 3, id: "abc", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w/app" }),
		]);
		const items = listSessions(undefined, { home, env: { PI_CODING_AGENT_SESSION_DIR: join(home, "from-env") } });
		expect(items.map((i) => i.path)).toEqual([join(home, "from-env", "2026-01-01T00-00-00-000Z_abc.jsonl")]);
	});
	it("lists nothing when no folder exists", () => {
		expect(defaultSessionRoots({ home: tmp(), env: {} })).toEqual([]);
	});
});

describe("project names", () => {
	it("decodes pi's --path-- folders and omp's home/tmp-relative ones", () => {
		expect(decodeProjectDir("--Users-me-work-app--", "/h", "/t")).toBe("/Users/me/work/app");
		expect(decodeProjectDir("--C--x-y--", "/h", "/t")).toBe("C:\\x\\y");
		expect(decodeProjectDir("-", "/h", "/t")).toBe("/h");
		expect(decodeProjectDir("-code-app", "/h", "/t")).toBe("/h/code/app");
		expect(decodeProjectDir("-tmp", "/h", "/t")).toBe("/t");
		expect(decodeProjectDir("-tmp-scratch", "/h", "/t")).toBe("/t/scratch");
		expect(decodeProjectDir("plain", "/h", "/t")).toBeNull();
	});
	it("prefers the header's cwd and falls back to the folder name", () => {
		const dir = join(tmp(), "--srv-proj--");
		mkdirSync(dir);
		const withCwd = describeSessionFile(write(join(dir, "a.jsonl"), [header("s1"), user("u1", null, "hi")]), "pi");
		expect(withCwd.project).toBe("/work/app");
		const noCwd = describeSessionFile(write(join(dir, "b.jsonl"), [JSON.stringify({ type: "session", id: "s2" }), user("u1", null, "hi")]), "pi");
		expect(noCwd.project).toBe("/srv/proj");
	});
});

describe("one file", () => {
	const dir = tmp();
	it("reads id, first user message (string or text blocks) and an exact count for a small file", () => {
		const item = describeSessionFile(
			write(
				join(dir, "s.jsonl"),
				[
					header("sid"),
					assistant("a0", null, "hello"),
					user("u1", "a0", [
						{ type: "text", text: "Fix the\nparser" },
						{ type: "image", data: "", mimeType: "image/png" },
						{ type: "text", text: "please" },
					]),
					assistant("a1", "u1", "ok"),
					user("u2", "a1", "second"),
				],
				false,
			),
			"dir",
		);
		expect(item).toMatchObject({
			sessionId: "sid",
			firstUserMessage: "Fix the parser please",
			entryCount: 4,
			entryCountExact: true,
			source: "dir",
			title: null,
		});
		expect(item.error).toBeUndefined();
	});
	it("takes the title from omp's title slot, else the header title, else pi's latest session_info name", () => {
		const slot = JSON.stringify({ type: "title", v: 1, title: "Slot title", updatedAt: "x", pad: "  " });
		expect(describeSessionFile(write(join(dir, "t1.jsonl"), [slot, header("a", { title: "Header title" }), user("u", null, "x")]), "omp")).toMatchObject({
			title: "Slot title",
			entryCount: 1,
		});
		expect(describeSessionFile(write(join(dir, "t2.jsonl"), [header("a", { title: "Header title" })]), "omp").title).toBe("Header title");
		const info = (id: string, name: string) => JSON.stringify({ type: "session_info", id, parentId: null, timestamp: "t", name });
		expect(
			describeSessionFile(write(join(dir, "t3.jsonl"), [header("a"), info("i1", "old"), user("u", "i1", "x"), info("i2", " New name ")]), "pi").title,
		).toBe("New name");
	});
	it("counts the entries of a file up to exactCountBytes exactly, beyond its prefix, without parsing", () => {
		const lines = [header("mid"), user("u0", null, "start")];
		for (let i = 1; i < 300; i++) lines.push(assistant(`a${i}`, `u${i - 1}`, "y".repeat(1000 + (i % 3000))));
		const file = write(join(dir, "mid.jsonl"), lines);
		const item = describeSessionFile(file, "pi", { prefixBytes: 16 * 1024 });
		expect(item).toMatchObject({ entryCount: 300, entryCountExact: true, firstUserMessage: "start" });
	});
	it("an exact count skips blank and whitespace-only lines, also where a line crosses a 1 MB read", () => {
		const lines = [header("ws"), user("u0", null, "start")];
		let expected = 1;
		for (let i = 1; i < 1200; i++) {
			// ~1 KB lines so that several straddle the 1 MB read boundaries; every 7th line is blank-ish.
			if (i % 7 === 0) lines.push(i % 2 ? "   \t " : "\r");
			else {
				lines.push(`${i % 5 === 0 ? "  " : ""}${assistant(`a${i}`, "u0", "z".repeat(900 + (i % 200)))}${i % 3 === 0 ? "\r" : ""}`);
				expected++;
			}
		}
		const file = write(join(dir, "ws.jsonl"), lines);
		const item = describeSessionFile(file, "pi", { prefixBytes: 16 * 1024 });
		expect(item).toMatchObject({ entryCount: expected, entryCountExact: true });
	});
	it("estimates the count of a large file from a bounded prefix and still finds a late session name", () => {
		const lines = [header("big"), user("u0", null, "start")];
		for (let i = 1; i < 3000; i++) lines.push(assistant(`a${i}`, `u${i - 1}`, "x".repeat(200 + (i % 50))));
		lines.push(JSON.stringify({ type: "session_info", id: "i", parentId: "a2999", timestamp: "t", name: "Late name" }));
		const item = describeSessionFile(write(join(dir, "big.jsonl"), lines), "pi", { prefixBytes: 16 * 1024, exactCountBytes: 0 });
		expect(item.entryCountExact).toBe(false);
		expect(item.entryCount).toBeGreaterThan(3000 * 0.8);
		expect(item.entryCount).toBeLessThan(3000 * 1.25);
		expect(item.firstUserMessage).toBe("start");
		expect(item.title).toBe("Late name");
	});
	it("reads on past the prefix (bounded) to finish the line of the first user message", () => {
		const item = describeSessionFile(
			write(join(dir, "late-user.jsonl"), [header("x"), assistant("a", null, "y".repeat(40_000)), user("u", "a", "found me")]),
			"pi",
			{ prefixBytes: 4096 },
		);
		expect(item.firstUserMessage).toBe("found me");
		const bounded = describeSessionFile(join(dir, "late-user.jsonl"), "pi", { prefixBytes: 4096, maxScanBytes: 8192 });
		expect(bounded.firstUserMessage).toBeNull();
		expect(bounded.error).toBeUndefined();
	});
	it('is not fooled by the markers in other lines: a quoted "user" in assistant text, several names in one chunk', () => {
		const info = (id: string, name: string) => JSON.stringify({ type: "session_info", id, parentId: null, timestamp: "t", name });
		const lines = [
			header("m", { note: '"user"' }),
			assistant("a0", null, 'the "user" said "session_info"'),
			info("i1", "first"),
			assistant("a1", "i1", '"user"'),
			info("i2", "second"),
			user("u1", "i2", "the real one"),
			user("u2", "u1", "not this"),
			info("i3", "third"),
		];
		for (const prefixBytes of [64, 300, 16 * 1024]) {
			const item = describeSessionFile(write(join(dir, `markers-${prefixBytes}.jsonl`), lines, false), "pi", { prefixBytes });
			expect(item, `prefix ${prefixBytes}`).toMatchObject({ firstUserMessage: "the real one", title: "third" });
			// A small prefix stops reading at the first user message; the count is then estimated.
			if (prefixBytes > 1024) expect(item).toMatchObject({ entryCount: 7, entryCountExact: true });
		}
	});
	it("lists unreadable, empty and header-less files with an error instead of failing", () => {
		expect(describeSessionFile(write(join(dir, "nohdr.jsonl"), [user("u", null, "x")]), "pi").error).toMatch(/line 1: not a session header/);
		writeFileSync(join(dir, "empty.jsonl"), "");
		expect(describeSessionFile(join(dir, "empty.jsonl"), "pi").error).toBe("empty file");
		symlinkSync(join(dir, "missing-target"), join(dir, "dangling.jsonl"));
		expect(describeSessionFile(join(dir, "dangling.jsonl"), "pi").error).toBeTruthy();
	});
	it("never changes the files it reads", () => {
		const f = write(join(dir, "ro.jsonl"), [header("ro"), user("u", null, "x")]);
		const before = readFileSync(f);
		describeSessionFile(f, "pi");
		expect(readFileSync(f).equals(before)).toBe(true);
	});
});

describe("a library of 3,000 sessions", () => {
	it("lists every file across project folders, newest first, grouped by project", () => {
		const root = tmp();
		const projects = ["--home-me-a--", "--home-me-b--", "-code-c"];
		for (const p of projects) mkdirSync(join(root, p));
		const base = Date.UTC(2026, 0, 1) / 1000;
		for (let i = 0; i < 3000; i++) {
			const p = projects[i % 3];
			const lines = [JSON.stringify({ type: "session", version: 3, id: `s${i}`, timestamp: "t" })];
			for (let k = 0; k < (i % 7) + 1; k++) {
				const u = JSON.parse(user(`u${k}`, k ? `u${k - 1}` : null, `message ${i}.${k}`)) as { message: { timestamp: number } };
				u.message.timestamp = (base + i) * 1000; // the conversation's time orders the list (pi's modified)
				lines.push(JSON.stringify(u));
			}
			const f = write(join(root, p, `${String(i).padStart(4, "0")}.jsonl`), lines);
			utimesSync(f, base + i, base + i);
		}
		writeFileSync(join(root, "--home-me-a--", "notes.txt"), "not a session");
		mkdirSync(join(root, "--home-me-a--", "0001"));
		writeFileSync(join(root, "--home-me-a--", "0001", "subagent.jsonl"), header("sub"));
		const items = listSessions([root], { home: "/home/me" });
		expect(items).toHaveLength(3000);
		expect(items[0].sessionId).toBe("s2999");
		expect(items.at(-1)?.sessionId).toBe("s0");
		expect(items.every((x, k) => k === 0 || items[k - 1].modifiedMs >= x.modifiedMs)).toBe(true);
		expect(items.find((x) => x.sessionId === "s10")).toMatchObject({
			project: "/home/me/b",
			entryCount: 4,
			entryCountExact: true,
			firstUserMessage: "message 10.0",
			source: "dir",
		});
		const groups = groupByProject(items);
		expect(groups.map((g) => [g.project, g.sessions.length])).toEqual([
			["/home/me/code/c", 1000],
			["/home/me/b", 1000],
			["/home/me/a", 1000],
		]);
	});
});

describe("symlinks in a listed folder", () => {
	it("lists a link to a session inside the folder, but not a link to a file outside it (that file is never read)", () => {
		const base = mkdtempSync(join(tmpdir(), "arbor-lib-links-"));
		const served = join(base, "served");
		const outside = join(base, "outside");
		mkdirSync(join(served, "--proj--"), { recursive: true });
		mkdirSync(outside);
		const inside = write(join(served, "--proj--", "a.jsonl"), [header("in"), user("u1", null, "inside message")]);
		const secret = write(join(outside, "secret.jsonl"), [header("out"), user("u1", null, "SECRET first message")]);
		symlinkSync(inside, join(served, "link-in.jsonl"));
		symlinkSync(secret, join(served, "--proj--", "link-out.jsonl"));
		const items = listSessions([served]);
		const paths = items.map((i) => i.path).sort();
		expect(paths).toEqual([join(served, "--proj--", "a.jsonl"), join(served, "link-in.jsonl")].sort());
		expect(JSON.stringify(items)).not.toContain("SECRET");
	});
});
