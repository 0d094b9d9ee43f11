// `arbor export` (md / html / jsonl, stdout or a new --out file) and `arbor prune` on generated sessions and
// fixtures: the path is the one pi resumes, HTML is inert, JSONL is createBranchedSession's, nothing is
// overwritten, the source never changes.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, generate, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

type Raw = Record<string, any> & { id: string; parentId: string | null; type: string };
const load = (f: string) =>
	readFileSync(f, "utf8")
		.split("\n")
		.filter((l) => l.trim())
		.map((l) => JSON.parse(l) as Raw);

describe("arbor export", () => {
	it("md: every user prompt on the leaf's path, in order, and none from abandoned branches", () => {
		const dir = tempDir();
		const file = generate(dir, "s.jsonl", ["--n", "2000", "--seed", "5", "--branch-every", "40"]);
		const before = sha256(file);
		const r = arbor(["export", file]);
		expect(r.status, r.stderr).toBe(0);
		const pi = PiSessionManager.open(file);
		const onPath = pi
			.getBranch()
			.filter((e: any) => e.type === "message" && e.message.role === "user")
			.map((e: any) => e.message.content[0].text as string);
		const all = load(file)
			.slice(1)
			.filter((e) => e.type === "message" && e.message.role === "user")
			.map((e) => e.message.content[0].text as string);
		const off = all.filter((t) => !onPath.includes(t) && t.length > 40);
		expect(off.length).toBeGreaterThan(0);
		// The User sections of the Markdown are exactly the path's prompts, in order.
		const users = r.stdout
			.split(/\n(?=## )/)
			.filter((sec) => sec.startsWith("## User"))
			.map((sec) => sec.replace(/^## User[^\n]*\n\n/, "").trimEnd());
		expect(users).toEqual(onPath.map((t) => t.trimEnd()));
		for (const t of off.slice(0, 20)) expect(users).not.toContain(t);
		expect(sha256(file)).toBe(before);
	});

	it("html: self-contained and inert — hostile content is escaped, no script, no remote loads", () => {
		const dir = tempDir();
		const file = join(dir, "h.jsonl");
		const evil = `<script>alert(1)</script><img src="https://evil.example/x.png" onerror="x()"><a href="javascript:y()">z</a>`;
		const lines = [
			{ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" },
			{ type: "message", id: "u", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: evil } },
			{
				type: "message",
				id: "a",
				parentId: "u",
				timestamp: "2026-01-01T00:00:02.000Z",
				message: { role: "assistant", content: [{ type: "text", text: `answer ${evil}` }], stopReason: "stop" },
			},
		];
		writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
		const out = join(dir, "page.html");
		const r = arbor(["export", file, "--format", "html", "--out", out]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout.trim()).toBe(out);
		const html = readFileSync(out, "utf8");
		expect(html).not.toMatch(/<script/i);
		expect(html).not.toMatch(/<img/i);
		expect(html).not.toMatch(/<a\s/i);
		expect(html).not.toMatch(/\s(src|href|onerror)=["']/i);
		expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
		expect(html).toContain("Content-Security-Policy");
		expect(html).toContain("<style>");
	});

	it("jsonl: createBranchedSession's content for --leaf, readable by pi with the same path", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const dir = tempDir();
		const out = join(dir, "inactive.jsonl");
		const r = arbor(["export", file, "--leaf", "inactive-tool", "--format", "jsonl", "--out", out]);
		expect(r.status, r.stderr).toBe(0);
		const got = load(out);
		expect(got[0]).toMatchObject({ type: "session", version: 3, parentSession: file });
		expect(got.slice(1).map((e) => e.id)).toEqual(["model-root", "thinking-root", "inactive-user", "inactive-model", "inactive-thinking", "inactive-tool"]);
		// Kept lines are the source's bytes.
		const src = readFileSync(file, "utf8").split("\n");
		for (const line of readFileSync(out, "utf8").split("\n").slice(1).filter(Boolean)) expect(src).toContain(line);
		const pi = PiSessionManager.open(out);
		expect(
			pi
				.getBranch()
				.map((e) => e.id)
				.at(-1),
		).toBe("inactive-tool");
		// Stdout gives the same entries.
		const s = arbor(["export", file, "--leaf", "inactive-tool", "--format", "jsonl"]);
		expect(s.stdout.split("\n").slice(1)).toEqual(readFileSync(out, "utf8").split("\n").slice(1));
	});

	it("refuses an existing --out file (exit 1, untouched) and bad options", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const out = join(tempDir(), "exists.md");
		writeFileSync(out, "mine");
		const r = arbor(["export", file, "--out", out]);
		expect(r.status).toBe(1);
		expect(r.stderr).toContain("already exists; not overwriting");
		expect(readFileSync(out, "utf8")).toBe("mine");
		expect(arbor(["export", file, "--format", "pdf"]).status).toBe(1);
		expect(arbor(["export", file, "--leaf", "nope"]).stderr).toContain('no entry "nope"');
	});
});

describe("arbor prune", () => {
	it("a new file without the marked branches; kept lines byte for byte; labels on kept entries survive", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const before = sha256(file);
		const r = arbor(["prune", file, "inactive-user"]);
		expect(r.status, r.stderr).toBe(0);
		const created = r.stdout.trim();
		expect(existsSync(created)).toBe(true);
		expect(sha256(file)).toBe(before);
		const got = load(created);
		expect(got[0]).toMatchObject({ type: "session", parentSession: file });
		expect(got[0].id).not.toBe(load(file)[0].id);
		const ids = got.slice(1).map((e) => e.id);
		for (const gone of ["inactive-user", "inactive-model", "inactive-thinking", "inactive-tool"]) expect(ids).not.toContain(gone);
		expect(ids).toContain("unknown-active");
		const pi = PiSessionManager.open(created);
		expect(pi.getLabel("assistant-active")).toBe("accepted");
		expect(pi.getBranch().at(-1)?.id).toBe("unknown-active");
	});

	it("on a generated session: every entry outside the dropped subtree is kept, in order", () => {
		const dir = tempDir();
		const file = generate(dir, "g.jsonl", ["--n", "1500", "--seed", "9", "--branch-every", "30"]);
		const entries = load(file).slice(1);
		const kids = new Map<string | null, string[]>();
		for (const e of entries) kids.set(e.parentId, [...(kids.get(e.parentId) ?? []), e.id]);
		const point = [...kids.entries()].find(([p, c]) => p !== null && c.length > 1)!;
		const dropRoot = point[1][0];
		const dropped = new Set<string>();
		const stack = [dropRoot];
		while (stack.length) {
			const id = stack.pop()!;
			dropped.add(id);
			stack.push(...(kids.get(id) ?? []));
		}
		const r = arbor(["prune", file, dropRoot]);
		expect(r.status, r.stderr).toBe(0);
		const got = load(r.stdout.trim()).slice(1);
		const labelsMoved = got.filter((e) => dropped.has(e.id));
		expect(labelsMoved.every((e) => e.type === "label")).toBe(true);
		const expectIds = entries.filter((e) => !dropped.has(e.id) && !(e.type === "label" && dropped.has(e.targetId))).map((e) => e.id);
		expect(got.filter((e) => !dropped.has(e.id)).map((e) => e.id)).toEqual(expectIds);
	});

	it("leaves out an incomplete last line and says so; the copy is whole JSONL (issue #23)", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const torn = '{"type":"message","id":"torn-tail","parentId":"unknown-active","message":{"role":"user","content":"half';
		writeFileSync(file, readFileSync(file, "utf8") + torn);
		const before = sha256(file);
		const r = arbor(["prune", file, "inactive-user"]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stderr).toContain(`is incomplete (${Buffer.byteLength(torn)} bytes, no newline): it was left out of the copy`);
		const text = readFileSync(r.stdout.trim(), "utf8");
		expect(text.endsWith("\n")).toBe(true);
		expect(text).not.toContain("torn-tail");
		for (const line of text.split("\n").filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
		expect(sha256(file)).toBe(before);
	});

	it("--dir creates a folder that does not exist yet, as branch does", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const dir = join(tempDir(), "new", "folder");
		const r = arbor(["prune", file, "inactive-user", "--dir", dir]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout.trim().startsWith(join(dir, ""))).toBe(true);
		expect(load(r.stdout.trim())[0]).toMatchObject({ type: "session", parentSession: file });
	});
});
