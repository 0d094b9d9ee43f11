// Issue #23 (4): text from a session file (messages, labels, titles, cwd, tool names, file names) must never
// reach the terminal as a control sequence (OSC 52 sets the clipboard, OSC 0 the title, CR overwrites a
// line, C1 CSI is ESC [ to many terminals). Human-readable output shows the controls escaped (^[ ^G ^M
// <U+009B>); --json output stays JSON whose values read back exactly.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, tempDir } from "./helpers";

beforeAll(buildCli);

/** OSC 52 (clipboard), OSC 0 (title), clear screen, CR overwrite, BEL, C1 CSI / OSC, DEL, a forged line. */
const H = "\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07\x1b[2J\rFAKE\u009b31m\u009d0;t\u009c\x7f\nforged line";
const FILE_H = "\x1b]0;f\x07\r\u009b"; // a file name: no "/" and no newline (the file has to be created)

interface Fixture {
	home: string;
	dir: string;
	file: string;
	ids: { user: string; assistant: string; second: string };
}

function hostileSession(): Fixture {
	const home = tempDir();
	const dir = join(home, `proj${FILE_H}`);
	mkdirSync(dir);
	const file = join(dir, `s${FILE_H}.jsonl`);
	const t = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
	const lines: unknown[] = [
		{ type: "session", version: 3, id: "sess-1", timestamp: t(0), cwd: `/work/${H}` },
		{ type: "session_info", id: "i1", parentId: null, timestamp: t(1), name: `title ${H}` },
		{ type: "message", id: "u1", parentId: "i1", timestamp: t(2), message: { role: "user", content: `needle ${H}` } },
		{
			type: "message",
			id: "a1",
			parentId: "u1",
			timestamp: t(3),
			message: {
				role: "assistant",
				content: [
					{ type: "text", text: `answer needle ${H}` },
					{ type: "toolCall", id: "c1", name: `tool${H}`, arguments: { command: `ls ${H}` } },
				],
				provider: `p${H}`,
				model: `m${H}`,
				stopReason: "toolUse",
			},
		},
		{
			type: "message",
			id: "r1",
			parentId: "a1",
			timestamp: t(4),
			message: { role: "toolResult", toolCallId: "c1", toolName: `tool${H}`, content: [{ type: "text", text: `out ${H}` }], isError: false },
		},
		{ type: "message", id: "b1", parentId: "r1", timestamp: t(5), message: { role: "bashExecution", command: `echo ${H}`, output: `o ${H}`, exitCode: 0 } },
		{ type: "branch_summary", id: "s1", parentId: "b1", timestamp: t(6), fromId: "b1", summary: `summary ${H}` },
		{ type: "custom_message", id: "c2", parentId: "s1", timestamp: t(7), customType: `kind${H}`, content: `custom ${H}`, display: true },
		{ type: "label", id: "l1", parentId: "c2", timestamp: t(8), targetId: "u1", label: `label ${H}` },
		{ type: "message", id: "u2", parentId: "u1", timestamp: t(9), message: { role: "user", content: `other needle ${H}` } },
	];
	writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
	return { home, dir, file, ids: { user: "u1", assistant: "a1", second: "u2" } };
}

function env(home: string): Record<string, string> {
	return { HOME: home, PI_CODING_AGENT_DIR: join(home, "nopi"), XDG_DATA_HOME: join(home, "xdg") };
}

/** The controls a terminal would obey, with where they are, for a readable failure. */
function controlsIn(s: string): string[] {
	const found: string[] = [];
	for (const m of s.matchAll(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g)) {
		found.push(
			`U+${(m[0].codePointAt(0) ?? 0).toString(16).padStart(4, "0")} at ${m.index}: ${JSON.stringify(s.slice(Math.max(0, (m.index ?? 0) - 20), (m.index ?? 0) + 5))}`,
		);
		if (found.length >= 3) break;
	}
	return found;
}

describe("human-readable output shows control characters from session text escaped", () => {
	it("tree, context, info, compare, sessions, search, family, export md/html/jsonl, label, branch, prune, navigate", () => {
		const f = hostileSession();
		const e = env(f.home);
		const out = join(f.home, `out${FILE_H}`);
		mkdirSync(out);
		const runs: [string, string[]][] = [
			["tree", ["tree", f.file, "--filter", "all"]],
			["tree --search", ["tree", f.file, "--search", "needle"]],
			["context", ["context", f.file, "--leaf", "c2"]],
			["context (full reader)", ["context", f.file, "--leaf", "c2"]],
			["context --as omp", ["context", f.file, "--as", "omp", "--leaf", "c2"]],
			["info", ["info", f.file]],
			["compare", ["compare", f.file, "c2", "u2"]],
			["sessions", ["sessions", f.dir]],
			["search", ["search", "needle", f.dir, "--index-dir", join(f.home, "idx")]],
			["family", ["family", f.file, f.dir]],
			["export md", ["export", f.file, "--leaf", "c2"]],
			["export html", ["export", f.file, "--leaf", "c2", "--format", "html"]],
			["export jsonl", ["export", f.file, "--leaf", "c2", "--format", "jsonl"]],
			["label", ["label", f.file, "u2", `new ${H}`]],
			["branch", ["branch", f.file, "c2", "--dir", out]],
			["prune", ["prune", f.file, "u2", "--dir", out]],
			["navigate", ["navigate", f.file, "u2"]],
		];
		for (const [name, args] of runs) {
			const r = arbor(args, name === "context (full reader)" ? { ...e, ARBOR_CONTEXT_READER: "full" } : e);
			expect(r.status, `${name}: ${r.stderr}`).toBe(0);
			expect(controlsIn(r.stdout), `${name} stdout`).toEqual([]);
			expect(controlsIn(r.stderr), `${name} stderr`).toEqual([]);
			expect(r.stdout.length, name).toBeGreaterThan(0);
		}
	});

	it("shows each control visibly (^[ ^G ^M <U+009B>) instead of dropping it, and a newline in a one-line field as ^J", () => {
		const f = hostileSession();
		const r = arbor(["tree", f.file, "--filter", "all"], env(f.home));
		expect(r.stdout).toContain("^[]52;c;cHduZWQ=^G^[]0;PWNED^G^[[2J^MFAKE<U+009B>31m<U+009D>0;t<U+009C>^?^Jforged line");
		// The forged line never starts a line of its own.
		expect(r.stdout.split("\n").some((l) => l.startsWith("forged line"))).toBe(false);
		const info = arbor(["info", f.file], env(f.home));
		expect(info.stdout).toContain("cwd:           /work/^[]52;c;");
		expect(info.stdout).toContain(`file:          ${f.dir.replace(FILE_H, "^[]0;f^G^M<U+009B>")}`);
	});

	it("error messages on stderr that name a hostile file show its controls escaped", () => {
		const home = tempDir();
		const r = arbor(["tree", join(home, `missing${FILE_H}.jsonl`)], env(home));
		expect(r.status).toBe(2);
		expect(controlsIn(r.stderr)).toEqual([]);
		expect(r.stderr).toContain("missing^[]0;f^G^M<U+009B>.jsonl");
	});
});

describe("--json output stays exact JSON", () => {
	it("values read back equal to the file's (DEL and C1 written as \\u escapes, never raw)", () => {
		const f = hostileSession();
		const e = env(f.home);
		const json = (args: string[]): unknown => {
			const r = arbor(args, e);
			expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0);
			expect(controlsIn(r.stdout), args.join(" ")).toEqual([]);
			return JSON.parse(r.stdout);
		};
		const tree = json(["tree", f.file, "--filter", "all", "--json"]) as { roots: { children: { id: string; label?: string }[] }[] };
		expect(tree.roots[0].children.find((c) => c.id === "u1")?.label).toBe(`label ${H}`);
		const info = json(["info", f.file, "--json"]) as { cwd: string; title: string; file: string };
		expect(info.cwd).toBe(`/work/${H}`);
		expect(info.title).toBe(`title ${H}`);
		expect(info.file).toBe(f.file);
		const ctx = json(["context", f.file, "--leaf", "c2", "--json"]) as { messages: { content: unknown }[] };
		expect(ctx.messages[0].content).toBe(`needle ${H}`);
		const sessions = json(["sessions", f.dir, "--json"]) as { path: string; title?: string }[];
		expect(sessions[0].path).toBe(f.file);
		const search = json(["search", "needle", f.dir, "--json", "--index-dir", join(f.home, "idx")]) as { sessions: { path: string; title: string }[] };
		expect(search.sessions[0].path).toBe(f.file);
		// The index keeps titles on one line (whitespace runs become a space); the rest comes back exactly.
		expect(search.sessions[0].title).toBe(`title ${H}`.replace(/\s+/g, " "));
		const fam = json(["family", f.file, f.dir, "--json"]) as { members: { path: string }[] };
		expect(fam.members[0].path).toBe(f.file);
	});

	it("export --format jsonl on stdout holds the same JSON values as --out (C1 escaped, everything else byte for byte)", () => {
		const f = hostileSession();
		const e = env(f.home);
		const target = join(f.home, "copy.jsonl");
		expect(arbor(["export", f.file, "--leaf", "c2", "--format", "jsonl", "--out", target], e).status).toBe(0);
		const r = arbor(["export", f.file, "--leaf", "c2", "--format", "jsonl"], e);
		expect(controlsIn(r.stdout)).toEqual([]);
		const written = readFileSync(target, "utf8");
		expect(written).toMatch(/\u009b/); // the file itself keeps the session's bytes
		// Each export gets a new session id, timestamp and label ids: compare the rest.
		const parse = (s: string) =>
			s
				.split("\n")
				.filter(Boolean)
				.map((l) => {
					const o = JSON.parse(l) as Record<string, unknown>;
					if (o.type === "session" || o.type === "label") for (const k of ["id", "timestamp", "parentId"]) delete o[k];
					return o;
				});
		expect(parse(r.stdout)).toEqual(parse(written));
	});
});
