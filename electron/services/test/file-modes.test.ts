// Issue #23 (3): other local users must not read a private conversation through Arbor's files. Arbor's own
// folders are 0700 and its files 0600 (settings, the search index with every session's words, titles and
// paths, logs), and a file made from a session (branch, pruned copy, export, backup, child session) is never
// more readable than its source. Run under umask 022, the usual one, which alone gives 0755 / 0644.
import { chmodSync, chownSync, copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../session";
import { appendPrivateLog, makePrivateDir } from "../arbor-files";
import { savePrunedCopy, writeExport } from "../export";
import { createChildSessionFile } from "../new-session-file";
import { SearchIndex } from "../search-index";
import { SettingsStore } from "../settings";
import { tempDir } from "./helpers/entries";

const fixtures = join(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");
const mode = (p: string): number => statSync(p).mode & 0o777;
const octal = (m: number): string => `0${m.toString(8)}`;

/** Every folder and file under `root`, with its mode in octal. */
function modes(root: string): Record<string, string> {
	const out: Record<string, string> = {};
	const walk = (dir: string): void => {
		for (const name of readdirSync(dir)) {
			const p = join(dir, name);
			out[p.slice(root.length + 1)] = octal(mode(p));
			if (statSync(p).isDirectory()) walk(p);
		}
	};
	walk(root);
	return out;
}

function session(dir: string, name: string, fileMode: number): string {
	const t = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
	const lines = [
		{ type: "session", version: 3, id: "s-1", timestamp: t(0), cwd: "/private/project" },
		{ type: "message", id: "a", parentId: null, timestamp: t(1), message: { role: "user", content: "secret plan alpha" } },
		{ type: "message", id: "b", parentId: "a", timestamp: t(2), message: { role: "assistant", content: [{ type: "text", text: "secret answer" }] } },
		{ type: "message", id: "c", parentId: "a", timestamp: t(3), message: { role: "user", content: "another secret branch" } },
	];
	const file = join(dir, name);
	writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
	chmodSync(file, fileMode);
	return file;
}

let umask = 0;
beforeAll(() => {
	umask = process.umask(0o022);
});
afterAll(() => {
	process.umask(umask);
});

describe("Arbor's own folders are 0700 and its files 0600 under umask 022", () => {
	it("the search index (~/.arbor/search-index: dictionary, tables, manifest)", () => {
		const home = tempDir();
		const dir = join(home, "sessions");
		mkdirSync(dir);
		const file = session(dir, "a.jsonl", 0o600);
		const index = new SearchIndex({ home });
		index.update([file]);
		expect(index.search("secret", { files: [file] }).sessions).toHaveLength(1);
		const found = modes(join(home, ".arbor"));
		expect(Object.keys(found).filter((k) => k.endsWith(".json")).length).toBeGreaterThan(2);
		for (const [p, m] of Object.entries(found)) expect(m, p).toBe(statSync(join(home, ".arbor", p)).isDirectory() ? "0700" : "0600");
		expect(octal(mode(join(home, ".arbor")))).toBe("0700");
	});

	it("an index folder an older Arbor left 0755 (files 0644) is narrowed to 0700 and rewritten files are 0600", () => {
		const home = tempDir();
		const dir = join(home, "sessions");
		mkdirSync(dir);
		const file = session(dir, "a.jsonl", 0o600);
		const indexDir = join(home, ".arbor", "search-index");
		mkdirSync(indexDir, { recursive: true, mode: 0o755 });
		writeFileSync(join(indexDir, "manifest.json"), JSON.stringify({ version: 3, files: {}, nextFid: 1 }), { mode: 0o644 });
		new SearchIndex({ home }).update([file]);
		expect(octal(mode(indexDir))).toBe("0700");
		expect(octal(mode(join(indexDir, "manifest.json")))).toBe("0600");
	});

	it("settings.json and the folder it is made in", () => {
		const home = tempDir();
		const store = new SettingsStore(join(home, ".arbor"), join(home, "pi"));
		store.addRecentFile("/some/session.jsonl");
		expect(octal(mode(join(home, ".arbor")))).toBe("0700");
		expect(octal(mode(join(home, ".arbor", "settings.json")))).toBe("0600");
	});

	it("logs: a new log is 0600 in a 0700 folder; one an older Arbor made 0644 is narrowed", () => {
		const home = tempDir();
		const log = join(home, "userData", "logs", "main.log");
		appendPrivateLog(log, "one\n");
		expect(octal(mode(join(home, "userData", "logs")))).toBe("0700");
		expect(octal(mode(log))).toBe("0600");
		chmodSync(log, 0o644);
		appendPrivateLog(log, "two\n");
		expect(octal(mode(log))).toBe("0600");
	});

	it("makePrivateDir leaves a folder of another owner alone (only its own are narrowed)", () => {
		// The rule is about owners, not privileges: a folder whose uid is not ours stays as its owner set it.
		// As root (CI) the test gives a fresh 0755 folder to nobody (65534) and runs as root; as another user
		// /tmp (root's, 1777) is such a folder. Either way the assertion runs: root is not exempt.
		const uid = process.getuid?.();
		expect(uid, "a POSIX uid (the suite runs on Linux)").toBeTypeOf("number");
		let theirs = "/tmp";
		if (uid === 0) {
			theirs = join(tempDir(), "shared-folder");
			mkdirSync(theirs, { mode: 0o755 });
			chownSync(theirs, 65534, 65534);
			expect(statSync(theirs).uid).toBe(65534);
		} else expect(statSync(theirs).uid).not.toBe(uid);
		const before = mode(theirs);
		expect(before & 0o077, "the folder is open to others before").not.toBe(0);
		makePrivateDir(theirs);
		expect(octal(mode(theirs))).toBe(octal(before));
		// And one of our own with the same mode is narrowed: the call does act, only not on others' folders.
		const ours = join(tempDir(), "own-folder");
		mkdirSync(ours, { mode: 0o755 });
		makePrivateDir(ours);
		expect(octal(mode(ours))).toBe("0700");
	});
});

describe("a file made from a session is never more readable than the session", () => {
	for (const source of [0o600, 0o640, 0o644]) {
		it(`branch file, pruned copy, export, child session of a ${octal(source)} session: ${octal(source)}`, () => {
			const dir = tempDir();
			const out = join(dir, "out");
			mkdirSync(out);
			const file = session(dir, "src.jsonl", source);
			const sm = SessionManager.open(file);
			try {
				const branch = sm.createBranchedSession("b", { sessionDir: out, adopt: false }) as string;
				expect(octal(mode(branch)), "branch").toBe(octal(source));
				const pruned = savePrunedCopy(sm, ["c"], out).file;
				expect(octal(mode(pruned)), "prune").toBe(octal(source));
				const md = writeExport(join(out, "x.md"), Buffer.from("# x\n"), file);
				expect(octal(mode(md)), "export").toBe(octal(source));
				const child = createChildSessionFile(out, "/p", file);
				expect(octal(mode(child)), "child session").toBe(octal(source));
			} finally {
				sm.close();
			}
			expect(octal(mode(file)), "the source is unchanged").toBe(octal(source));
		});
	}

	it("the legacy upgrade keeps the file's own mode, and its .bak has it too", () => {
		const dir = tempDir();
		for (const fileMode of [0o600, 0o640]) {
			const file = join(dir, `v2-${fileMode}.jsonl`);
			copyFileSync(join(fixtures, "formic__pi-v2-hook-message.jsonl"), file);
			chmodSync(file, fileMode);
			const sm = SessionManager.open(file);
			try {
				const bak = sm.upgradeLegacy();
				expect(octal(mode(bak)), "backup").toBe(octal(fileMode));
			} finally {
				sm.close();
			}
			expect(octal(mode(file)), "upgraded file").toBe(octal(fileMode));
		}
	});

	it("a new session with no parent is created as pi creates one (0644 under umask 022)", () => {
		const dir = tempDir();
		const child = createChildSessionFile(dir, "/p", undefined);
		expect(octal(mode(child))).toBe("0644");
	});
});
