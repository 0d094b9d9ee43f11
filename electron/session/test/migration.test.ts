// Legacy files are migrated in memory only; writing to them needs an explicit upgrade that keeps a backup.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SessionFileError, SessionManager } from "../index";
import { fixtureCopy, tempDir, writeSession } from "./helpers";

const v1Header = { type: "session", id: "old", timestamp: "2025-11-01T00:00:00.000Z", cwd: "/p", provider: "anthropic", modelId: "m", thinkingLevel: "off" };
const m = (role: string, text: string) => ({
	type: "message",
	timestamp: "2025-11-01T00:00:01.000Z",
	message: role === "user" ? { role, content: text, timestamp: 1 } : { role, content: [{ type: "text", text }], provider: "p", model: "x", stopReason: "stop" },
});

describe("migrations", () => {
	it("v1 entries are chained in file order with fresh ids; the file is not touched", () => {
		const f = fixtureCopy("pi-mono__large-session.v1.jsonl");
		const before = readFileSync(f);
		const sm = SessionManager.open(f);
		expect(sm.getFileVersion()).toBe(1);
		expect(sm.needsUpgrade()).toBe(true);
		expect(sm.getHeader().version).toBe(3);
		const entries = sm.getEntries() as { id: string; parentId: string | null }[];
		expect(entries.length).toBe(1018);
		expect(entries[0].parentId).toBeNull();
		for (let i = 1; i < entries.length; i++) expect(entries[i].parentId).toBe(entries[i - 1].id);
		expect(sm.getBranch().length).toBe(1018);
		expect(readFileSync(f).equals(before)).toBe(true);
	});

	it("v1 firstKeptEntryIndex indexes the record array with the header at 0, and only resolves to an earlier record", () => {
		const comp = (idx: number) => ({
			type: "compaction",
			timestamp: "2025-11-01T00:00:02.000Z",
			summary: `to ${idx}`,
			firstKeptEntryIndex: idx,
			tokensBefore: 10,
		});
		const f = writeSession([m("user", "zero"), m("assistant", "one"), comp(2), comp(0), comp(9), m("user", "after")], { header: v1Header });
		const sm = SessionManager.open(f);
		const e = sm.getEntries() as Record<string, unknown>[];
		expect(e[2].firstKeptEntryId).toBe(e[1].id);
		expect("firstKeptEntryIndex" in e[2]).toBe(false);
		expect(e[3].firstKeptEntryId).toBeUndefined();
		expect(e[4].firstKeptEntryId).toBeUndefined();
		const copy = `${tempDir()}/pi.jsonl`;
		copyFileSync(f, copy);
		const pi = PiSessionManager.open(copy);
		const shape = (ctx: { messages: { role: string }[] }) => ctx.messages.map((x) => x.role);
		expect(shape(sm.buildSessionContext())).toEqual(shape(pi.buildSessionContext()));
	});

	it("v2 hookMessage messages become role custom; other fields stay", () => {
		const f = fixtureCopy("formic__pi-v2-hook-message.jsonl");
		const sm = SessionManager.open(f);
		const hook = sm.getEntries().find((x) => (x as { message?: { role?: string } }).message?.role === "custom") as { message: Record<string, unknown> };
		expect(hook).toBeDefined();
		expect(readFileSync(f, "utf8")).toContain("hookMessage");
		expect(sm.getFileVersion()).toBe(2);
	});

	it("a string version is read as a number", () => {
		const f = writeSession([m("user", "x")], { header: { ...v1Header, version: "2" } });
		expect(SessionManager.open(f).getFileVersion()).toBe(2);
		const g = writeSession([{ ...m("user", "x"), id: "a", parentId: null }], { header: { ...v1Header, version: "3" } });
		expect(SessionManager.open(g).needsUpgrade()).toBe(false);
	});

	it("the first write to a legacy file throws legacy_needs_upgrade and writes nothing", () => {
		const f = fixtureCopy("formic__pi-v2-hook-message.jsonl");
		const before = readFileSync(f);
		const sm = SessionManager.open(f);
		let err: unknown;
		try {
			sm.appendMessage({ role: "user", content: "x", timestamp: 1 });
		} catch (e) {
			err = e;
		}
		expect(err).toBeInstanceOf(SessionFileError);
		expect(err).toMatchObject({ code: "legacy_needs_upgrade", file: f });
		expect(() => sm.appendLabelChange(sm.getLeafId() as string, "x")).toThrow(SessionFileError);
		expect(readFileSync(f).equals(before)).toBe(true);
	});

	it("upgradeLegacy keeps a .bak copy, rewrites the file as v3 atomically, and writing works afterwards", () => {
		const f = fixtureCopy("pi-mono__large-session.v1.jsonl");
		const original = readFileSync(f);
		const sm = SessionManager.open(f);
		const ctxBefore = JSON.stringify(sm.buildSessionContext());
		const leafBefore = sm.getLeafId();
		const bak = sm.upgradeLegacy();
		expect(bak).toBe(`${f}.bak`);
		expect(readFileSync(bak).equals(original)).toBe(true);
		expect(sm.needsUpgrade()).toBe(false);
		expect(sm.getLeafId()).toBe(leafBefore);
		expect(JSON.parse(readFileSync(f, "utf8").split("\n")[0])).toMatchObject({ type: "session", version: 3 });
		const reopened = SessionManager.open(f);
		expect(reopened.getFileVersion()).toBe(3);
		expect(JSON.stringify(reopened.buildSessionContext())).toBe(ctxBefore);
		sm.appendMessage({ role: "user", content: "after upgrade", timestamp: 1 });
		const copy = `${tempDir()}/pi.jsonl`;
		copyFileSync(f, copy);
		expect(JSON.stringify(PiSessionManager.open(copy).buildSessionContext())).toBe(JSON.stringify(SessionManager.open(f).buildSessionContext()));
		// A second upgrade is refused and a second backup never overwrites the first.
		expect(() => sm.upgradeLegacy()).toThrow(SessionFileError);
		expect(existsSync(`${f}.bak.1`)).toBe(false);
	});
});

describe("upgrading a legacy file that holds an entry nested 20,000 deep", () => {
	it("fails with a typed bad_file error before writing anything (no .bak, file unchanged)", async () => {
		const fs = await import("node:fs");
		const { tmpdir } = await import("node:os");
		const { join } = await import("node:path");
		const { SessionManager, SessionFileError } = await import("../index");
		const dir = fs.mkdtempSync(join(tmpdir(), "arbor-deep-upgrade-"));
		const file = join(dir, "v1.jsonl");
		const deep = "[".repeat(20000) + "]".repeat(20000);
		const text = `{"type":"session","id":"s","timestamp":"2025-11-01T00:00:00.000Z","cwd":"/"}\n{"type":"message","timestamp":"2025-11-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}\n{"type":"message","timestamp":"2025-11-01T00:00:02.000Z","message":{"role":"user","content":${deep}}}\n`;
		fs.writeFileSync(file, text);
		const sm = SessionManager.open(file);
		let caught: unknown;
		try {
			sm.upgradeLegacy();
		} catch (err) {
			caught = err;
		}
		expect(caught).toBeInstanceOf(SessionFileError);
		expect((caught as InstanceType<typeof SessionFileError>).code).toBe("bad_file");
		expect(fs.readFileSync(file, "utf8")).toBe(text);
		expect(fs.readdirSync(dir)).toEqual(["v1.jsonl"]);
	});
});

describe("upgrading when the process is killed part-way through its writes", () => {
	it("a kill at any byte leaves the original or a whole v3 rewrite, and every .bak equal to the original", async () => {
		const fs = await import("node:fs");
		const { join } = await import("node:path");
		const { runKilledAfter } = await import("./helpers/probe");
		const size = readFileSync(fixtureCopy("pi-mono__large-session.v1.jsonl")).length;
		// Inside the backup copy (0 .. size) and inside the rewrite that follows it.
		const budgets = [0, 1, 4096, Math.floor(size / 2), size - 1, size, size + 1, Math.floor(size * 1.5), size * 2 - 100];
		let killed = 0;
		for (const budget of budgets) {
			const f = fixtureCopy("pi-mono__large-session.v1.jsonl");
			const dir = join(f, "..");
			const original = readFileSync(f);
			const r = runKilledAfter(f, budget, "sm.upgradeLegacy();");
			if (r.killed) killed++;
			else expect(r.status, `budget ${budget}: ${r.stderr}`).toBe(0);
			const baks = fs.readdirSync(dir).filter((n) => n.endsWith(".bak") || /\.bak\.\d+$/.test(n));
			for (const name of baks) expect(readFileSync(join(dir, name)).equals(original), `budget ${budget}: ${name} differs from the original`).toBe(true);
			if (!readFileSync(f).equals(original)) {
				const reopened = SessionManager.open(f);
				expect(reopened.getFileVersion(), `budget ${budget}: a rewritten file is a whole v3 file`).toBe(3);
				expect(reopened.getEntries().length).toBe(SessionManager.open(join(dir, baks[0]!)).getEntries().length);
			}
			expect(
				fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl")),
				`budget ${budget}`,
			).toEqual([f.slice(dir.length + 1)]);
		}
		// The harness really cut writes short (every budget but the last lies inside the writes).
		expect(killed).toBeGreaterThanOrEqual(budgets.length - 1);
	});
});
