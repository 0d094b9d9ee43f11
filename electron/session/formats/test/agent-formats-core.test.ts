// Claude Code and Codex files through SessionManager (the core's foreign-format path, docs/formats.md): detected
// by the registry, read eagerly and lazily to the same skeleton and entries, followed while the agent appends
// (the reader's state carries on: a parallel call's result written later still joins its turn), resumed where the
// agent resumes, and refused on every write path with `read_only_format` naming the agent, the file unchanged.

import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EntryKind } from "../../../../shared/skeleton";
import { SessionFileError, SessionManager } from "../../index";
import { generateClaude } from "./read-rows";

const FIX = resolve(import.meta.dirname, "../../../../../shared/fixtures/agents");
const dir = mkdtempSync(join(tmpdir(), "arbor-agent-core-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const copy = (name: string): string => {
	const p = join(dir, `${Math.random().toString(36).slice(2)}-${name}`);
	copyFileSync(join(FIX, name), p);
	return p;
};
const AGENT_FILES = readdirSync(FIX).filter((f) => /(claude|codex).*\.jsonl$/.test(f));

describe("every Claude and Codex fixture through SessionManager", () => {
	it.each(AGENT_FILES)("%s: its format, the same skeleton and entries eager and lazy, no warning", (name) => {
		const p = copy(name);
		const eager = SessionManager.open(p, { lazy: false });
		const lazy = SessionManager.open(p, { lazy: true });
		try {
			expect(eager.getFormat().id).toBe(name.includes("claude") ? "claude" : "codex");
			expect(eager.getFormat().writable).toBe(false);
			const a = eager.getSkeleton();
			const b = lazy.getSkeleton();
			expect(b.ids).toEqual(a.ids);
			expect(Array.from(b.parent)).toEqual(Array.from(a.parent));
			expect(Array.from(b.kind)).toEqual(Array.from(a.kind));
			expect(Array.from(b.tokens)).toEqual(Array.from(a.tokens));
			for (const id of a.ids) expect(lazy.getEntry(id), id).toEqual(eager.getEntry(id));
			expect(lazy.getResumeLeafId()).toBe(eager.getResumeLeafId());
			// Only the catalogue fixture's 45 duplicate self-parented placeholders warn (as the core warns for any file).
			if (!name.includes("claude-small")) expect(eager.getWarnings()).toEqual([]);
		} finally {
			eager.close();
			lazy.close();
		}
	});
});

describe("following and refusing", () => {
	const base = { sessionId: "s", timestamp: "2026-01-01T00:00:00.000Z" };
	const rec = (o: Record<string, unknown>) => `${JSON.stringify({ ...base, ...o })}\n`;
	it("a Claude session followed as Claude appends: a later result of a parallel call still joins its turn", () => {
		const p = copy("agent-history__claude-forked-session.jsonl");
		const sm = SessionManager.open(p, { lazy: true });
		try {
			const call = (uuid: string, parentUuid: string, id: string) =>
				rec({
					type: "assistant",
					uuid,
					parentUuid,
					message: { id: "msg_live", role: "assistant", content: [{ type: "tool_use", id, name: "Read", input: {} }] },
				});
			appendFileSync(p, call("c1", "fa5b-fork", "t1") + call("c2", "c1", "t2"));
			expect(sm.catchUp()).toMatchObject({ kind: "appended", count: 2 });
			appendFileSync(
				p,
				rec({ type: "user", uuid: "r2", parentUuid: "c2", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t2", content: "b" }] } }),
			);
			appendFileSync(
				p,
				rec({ type: "user", uuid: "r1", parentUuid: "c1", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "a" }] } }),
			);
			expect(sm.catchUp()).toMatchObject({ kind: "appended", count: 2 });
			expect(sm.getEntry("r1")?.parentId).toBe("r2");
			expect(sm.getEntry("r2")?.parentId).toBe("c2");
			expect(sm.getResumeLeafId()).toBe("r1");
			appendFileSync(p, rec({ type: "last-prompt", lastPrompt: "x", leafUuid: "r1" }));
			sm.catchUp();
			// A bookkeeping line after it does not move the resume point.
			expect(sm.getResumeLeafId()).toBe("r1");
		} finally {
			sm.close();
		}
	});
	it.each([
		["agent-history__claude-forked-session.jsonl", "Claude Code", "fa2a-fork"],
		["agent-history__codex-session-with-compaction.jsonl", "Codex", "l:5"],
	])("%s: every write refused with read_only_format naming %s; not a byte changed", (name, agent, target) => {
		const p = copy(name);
		const before = readFileSync(p);
		const files = readdirSync(dir).length;
		const sm = SessionManager.open(p);
		try {
			expect(sm.getEntry(target)).toBeDefined();
			const writes: [string, () => unknown][] = [
				["appendMessage", () => sm.appendMessage({ role: "user", content: "x", timestamp: 1 } as never)],
				["appendLabelChange", () => sm.appendLabelChange(target, "l")],
				["appendCustomEntry", () => sm.appendCustomEntry("arbor.position", {})],
				["createBranchedSession", () => sm.createBranchedSession(target)],
			];
			for (const [what, write] of writes) {
				let err: unknown;
				try {
					write();
				} catch (e) {
					err = e;
				}
				expect(err, what).toBeInstanceOf(SessionFileError);
				expect((err as SessionFileError).code, what).toBe("read_only_format");
				expect((err as Error).message, what).toContain(agent);
			}
			expect(readFileSync(p).equals(before)).toBe(true);
			// No branch file was written beside it either.
			expect(readdirSync(dir).length).toBe(files);
		} finally {
			sm.close();
		}
	});
	it("a generated 6k-record Claude session: eager and lazy agree, compactions counted, the resume point the last record", () => {
		const p = join(dir, "gen.jsonl");
		const lines = generateClaude(6000, 11);
		appendFileSync(p, `${lines.join("\n")}\n`);
		const eager = SessionManager.open(p, { lazy: false });
		const lazy = SessionManager.open(p, { lazy: true });
		try {
			const a = eager.getSkeleton();
			expect(lazy.getSkeleton().ids).toEqual(a.ids);
			expect(Array.from(lazy.getSkeleton().parent)).toEqual(Array.from(a.parent));
			const last = [...lines].reverse().find((l) => l.includes('"uuid"'))!;
			expect(eager.getResumeLeafId()).toBe((JSON.parse(last) as { uuid: string }).uuid);
			expect(Array.from(a.kind).filter((k) => k === EntryKind.assistant).length).toBeGreaterThan(500);
			expect(eager.getWarnings()).toEqual([]);
		} finally {
			eager.close();
			lazy.close();
		}
	});
});
