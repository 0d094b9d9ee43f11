// The check a live pi's fork answer passes before Arbor opens, allows and lists the file it names
// (electron/services/steering/fork-check.ts, docs/security.md): each refusal on its own case, the accepted
// forms (parent by path, by a link to that path, by id, omp's branchedFrom), and the folders a fork may be in.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { forkFolders, notAForkBecause } from "../steering/fork-check";

let root: string;
let sessions: string;
let original: string;

const header = (fields: Record<string, unknown>): string =>
	`${JSON.stringify({ type: "session", version: 3, id: "fork-id", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w", ...fields })}\n`;

function file(dir: string, name: string, text: string): string {
	const p = join(dir, name);
	writeFileSync(p, text);
	return p;
}

beforeEach(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "arbor-fork-check-")));
	sessions = join(root, "sessions");
	mkdirSync(sessions);
	original = file(sessions, "original.jsonl", header({ id: "orig-id" }));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const orig = (id: string | null = "orig-id") => ({ path: original, id });

describe("notAForkBecause: the refusals, one rule each", () => {
	it("a relative path, even one naming a real fork from the working folder", () => {
		const fork = file(sessions, "fork.jsonl", header({ parentSession: original }));
		expect(notAForkBecause("sessions/fork.jsonl", orig(), [sessions])).toBe("it is not an absolute path");
		expect(notAForkBecause("./fork.jsonl", orig(), [sessions])).toBe("it is not an absolute path");
		expect(notAForkBecause(fork, orig(), [sessions])).toBeNull();
	});

	it("a path that does not exist, and a dangling link", () => {
		expect(notAForkBecause(join(sessions, "missing.jsonl"), orig(), [sessions])).toBe("no such file");
		symlinkSync(join(root, "gone.jsonl"), join(sessions, "dangling.jsonl"));
		expect(notAForkBecause(join(sessions, "dangling.jsonl"), orig(), [sessions])).toBe("no such file");
	});

	it("a folder, even one named like a session file", () => {
		mkdirSync(join(sessions, "dir.jsonl"));
		expect(notAForkBecause(join(sessions, "dir.jsonl"), orig(), [sessions])).toBe("it is not a file");
		expect(notAForkBecause(sessions, orig(), [sessions])).toBe("it is not a file");
	});

	it("a file that is not .jsonl (the extension of the real file counts, not of a link to it)", () => {
		const json = file(sessions, "fork.json", header({ parentSession: original }));
		expect(notAForkBecause(json, orig(), [sessions])).toBe("it is not a .jsonl session file");
		expect(notAForkBecause(file(sessions, "fork.jsonl.bak", header({ parentSession: original })), orig(), [sessions])).toBe("it is not a .jsonl session file");
		symlinkSync(json, join(sessions, "link.jsonl"));
		expect(notAForkBecause(join(sessions, "link.jsonl"), orig(), [sessions])).toBe("it is not a .jsonl session file");
	});

	it("the session itself, by its path or through a link to it", () => {
		expect(notAForkBecause(original, orig(), [sessions])).toBe("it is the session itself");
		symlinkSync(original, join(sessions, "same.jsonl"));
		expect(notAForkBecause(join(sessions, "same.jsonl"), orig(), [sessions])).toBe("it is the session itself");
	});

	it("a fork outside the folders, in a sibling folder sharing the prefix, or in a subfolder; the message names the folders", () => {
		const other = join(root, "other");
		const sibling = join(root, "sessions-2");
		const sub = join(sessions, "sub");
		for (const d of [other, sibling, sub]) mkdirSync(d);
		const text = header({ parentSession: original });
		for (const dir of [other, sibling, sub])
			expect(notAForkBecause(file(dir, "fork.jsonl", text), orig(), [sessions])).toBe(`it is outside pi's session folders (${sessions})`);
		expect(notAForkBecause(join(other, "fork.jsonl"), orig(), [sessions, sibling])).toBe(`it is outside pi's session folders (${sessions}, ${sibling})`);
		expect(notAForkBecause(join(other, "fork.jsonl"), orig(), [])).toBe("it is outside pi's session folders ()");
		// The same file is taken once its folder is one of them.
		expect(notAForkBecause(join(other, "fork.jsonl"), orig(), [sessions, other])).toBeNull();
	});

	it("a link inside the folder to a fork outside it is judged where the file really is", () => {
		const other = join(root, "other");
		mkdirSync(other);
		const outside = file(other, "fork.jsonl", header({ parentSession: original }));
		symlinkSync(outside, join(sessions, "link.jsonl"));
		expect(notAForkBecause(join(sessions, "link.jsonl"), orig(), [sessions])).toBe(`it is outside pi's session folders (${sessions})`);
	});

	it("a .jsonl with no session header: empty, an entry first, not JSON", () => {
		for (const [name, text] of [
			["empty.jsonl", ""],
			["entry.jsonl", '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x"}}\n'],
			["text.jsonl", "not json\n"],
		])
			expect(notAForkBecause(file(sessions, name, text), orig(), [sessions]), name).toBe("it has no session header");
	});

	it("a header with no parent, or an empty one", () => {
		expect(notAForkBecause(file(sessions, "none.jsonl", header({})), orig(), [sessions])).toBe("its header names no parentSession");
		expect(notAForkBecause(file(sessions, "empty.jsonl", header({ parentSession: "" })), orig(), [sessions])).toBe("its header names no parentSession");
	});

	it("a header naming another session, by path or id; an id is not taken when the original has none", () => {
		const other = file(sessions, "other.jsonl", header({ id: "other-id" }));
		expect(notAForkBecause(file(sessions, "a.jsonl", header({ parentSession: other })), orig(), [sessions])).toBe(
			`its header names another parentSession (${other})`,
		);
		expect(notAForkBecause(file(sessions, "b.jsonl", header({ parentSession: "other-id" })), orig(), [sessions])).toBe(
			"its header names another parentSession (other-id)",
		);
		expect(notAForkBecause(file(sessions, "c.jsonl", header({ parentSession: "orig-id" })), orig(null), [sessions])).toBe(
			"its header names another parentSession (orig-id)",
		);
	});
});

describe("notAForkBecause: the forks it takes", () => {
	it("parent named by the original's path, by a link to it, by its id, or as omp's branchedFrom", () => {
		symlinkSync(original, join(root, "alias.jsonl"));
		const forms = { byPath: original, byLink: join(root, "alias.jsonl"), byId: "orig-id" };
		for (const [name, parent] of Object.entries(forms))
			expect(notAForkBecause(file(sessions, `${name}.jsonl`, header({ parentSession: parent })), orig(), [sessions]), name).toBeNull();
		expect(notAForkBecause(file(sessions, "omp.jsonl", header({ branchedFrom: original })), orig(), [sessions])).toBeNull();
		// The path form needs no id on the original.
		expect(notAForkBecause(join(sessions, "byPath.jsonl"), orig(null), [sessions])).toBeNull();
	});

	it("a fork reached through a link to its folder", () => {
		symlinkSync(sessions, join(root, "via"));
		file(sessions, "fork.jsonl", header({ parentSession: original }));
		expect(notAForkBecause(join(root, "via", "fork.jsonl"), orig(), [sessions])).toBeNull();
	});
});

describe("forkFolders", () => {
	const agentDir = () => join(root, "agent");

	it("the original's folder and each working folder's project folder under the agent folder, as real paths", () => {
		symlinkSync(sessions, join(root, "via"));
		const folders = forkFolders(join(root, "via", "original.jsonl"), ["/w/a", "/w/b"], agentDir(), {});
		expect(folders).toEqual([sessions, join(agentDir(), "sessions", "--w-a--"), join(agentDir(), "sessions", "--w-b--")]);
	});

	it("an empty working folder is skipped; the same folder twice is listed once", () => {
		expect(forkFolders(original, ["", "/w/a", "/w/a"], agentDir(), {})).toEqual([sessions, join(agentDir(), "sessions", "--w-a--")]);
		expect(forkFolders(original, [], agentDir(), {})).toEqual([sessions]);
	});

	it("the configured session folder, from the environment or pi's settings, is one of them", () => {
		const configured = join(root, "configured");
		mkdirSync(configured);
		expect(forkFolders(original, [], agentDir(), { PI_CODING_AGENT_SESSION_DIR: configured })).toEqual([sessions, configured]);
		mkdirSync(agentDir());
		writeFileSync(join(agentDir(), "settings.json"), JSON.stringify({ sessionDir: configured }));
		expect(forkFolders(original, [], agentDir(), {})).toEqual([sessions, configured]);
		// Configured as the original's own folder: listed once.
		expect(forkFolders(original, [], agentDir(), { PI_CODING_AGENT_SESSION_DIR: sessions })).toEqual([sessions]);
	});

	it("a fork in any of the folders it lists passes the check; one elsewhere does not", () => {
		const cwdFolder = join(agentDir(), "sessions", "--w-a--");
		mkdirSync(cwdFolder, { recursive: true });
		const folders = forkFolders(original, ["/w/a"], agentDir(), {});
		const text = header({ parentSession: original });
		expect(notAForkBecause(file(cwdFolder, "fork.jsonl", text), orig(), folders)).toBeNull();
		expect(notAForkBecause(file(sessions, "fork.jsonl", text), orig(), folders)).toBeNull();
		mkdirSync(join(agentDir(), "sessions", "--w-b--"));
		expect(notAForkBecause(file(join(agentDir(), "sessions", "--w-b--"), "fork.jsonl", text), orig(), folders)).toMatch(/^it is outside/);
	});
});
