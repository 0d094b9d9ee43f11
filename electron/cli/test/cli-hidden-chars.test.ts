// Issue 39 item 4: bidi controls and invisible characters from a session (a right-to-left override makes
// "\u202Eevil" read as "live"; tag characters hide whole sentences) are shown escaped in every human-readable
// output (<U+202E>, as C1 controls are), written as \u escapes in JSON (the same values read back), and kept
// byte for byte in the files Arbor writes (label, branch, export --format jsonl --out).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hiddenCharName, isHiddenChar } from "../../../shared/visible-text";
import { arbor, buildCli, tempDir } from "./helpers";

beforeAll(buildCli);

/** A right-to-left override, isolates, a zero-width space, a BOM, a soft hyphen and two tags hiding "hi". */
const H = "\u202Eevil\u202C \u2067x\u2069 a\u200Bb\uFEFF\u00AD \u{E0068}\u{E0069}";
const H_SHOWN = "<U+202E>evil<U+202C> <U+2067>x<U+2069> a<U+200B>b<U+FEFF><U+00AD> <U+E0068><U+E0069>";

function session(): { home: string; dir: string; file: string } {
	const home = tempDir();
	const dir = join(home, "proj");
	mkdirSync(dir);
	const file = join(dir, "s.jsonl");
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
				provider: "p",
				model: "m",
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
		{ type: "label", id: "l1", parentId: "r1", timestamp: t(5), targetId: "u1", label: `label ${H}` },
		{ type: "message", id: "u2", parentId: "u1", timestamp: t(6), message: { role: "user", content: `other needle ${H}` } },
	];
	writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
	return { home, dir, file };
}

function env(home: string): Record<string, string> {
	return { HOME: home, PI_CODING_AGENT_DIR: join(home, "nopi"), XDG_DATA_HOME: join(home, "xdg") };
}

/** The hidden characters in a text, named, for a readable failure. */
function hiddenIn(s: string): string[] {
	return Array.from(s)
		.filter((c) => isHiddenChar(c.codePointAt(0) ?? 0))
		.slice(0, 3)
		.map((c) => hiddenCharName(c.codePointAt(0) ?? 0));
}

describe("human-readable CLI output shows bidi and invisible characters escaped", () => {
	it("tree, context, info, sessions, search, export md/html/jsonl, label: none reaches the terminal raw", () => {
		const f = session();
		const e = env(f.home);
		const runs: [string, string[]][] = [
			["tree", ["tree", f.file, "--filter", "all"]],
			["tree --search", ["tree", f.file, "--search", "needle"]],
			["context", ["context", f.file, "--leaf", "r1"]],
			["info", ["info", f.file]],
			["sessions", ["sessions", f.dir]],
			["search", ["search", "needle", f.dir, "--index-dir", join(f.home, "idx")]],
			["export md", ["export", f.file, "--leaf", "r1"]],
			["export html", ["export", f.file, "--leaf", "r1", "--format", "html"]],
			["export jsonl", ["export", f.file, "--leaf", "r1", "--format", "jsonl"]],
			["label", ["label", f.file, "u2", `new ${H}`]],
		];
		for (const [name, args] of runs) {
			const r = arbor(args, e);
			expect(r.status, `${name}: ${r.stderr}`).toBe(0);
			expect(hiddenIn(r.stdout), `${name} stdout`).toEqual([]);
			expect(hiddenIn(r.stderr), `${name} stderr`).toEqual([]);
			expect(r.stdout.length, name).toBeGreaterThan(0);
		}
	});

	it('each one is shown where it was ("<U+202E>evil", never "live" reordered), in tree, search, sessions and context', () => {
		const f = session();
		const e = env(f.home);
		expect(arbor(["tree", f.file, "--filter", "all"], e).stdout).toContain(`needle ${H_SHOWN}`);
		expect(arbor(["search", "needle", f.dir, "--index-dir", join(f.home, "idx")], e).stdout).toContain("<U+202E>evil");
		// The listing puts a title on one line (whitespace runs, U+FEFF among them for JavaScript, become a space).
		expect(arbor(["sessions", f.dir], e).stdout).toContain("title <U+202E>evil<U+202C> <U+2067>x<U+2069> a<U+200B>b <U+00AD> <U+E0068><U+E0069>");
		expect(arbor(["context", f.file, "--leaf", "r1"], e).stdout).toContain(`needle ${H_SHOWN}`);
		expect(arbor(["info", f.file], e).stdout).toContain(`/work/${H_SHOWN}`);
	});

	it("--json reads back the file's exact values; the files Arbor writes keep every character", () => {
		const f = session();
		const e = env(f.home);
		const r = arbor(["info", f.file, "--json"], e);
		expect(hiddenIn(r.stdout)).toEqual([]);
		expect(r.stdout).toContain("\\u202e");
		expect((JSON.parse(r.stdout) as { cwd: string; title: string }).cwd).toBe(`/work/${H}`);
		const tree = arbor(["tree", f.file, "--filter", "all", "--json"], e);
		expect(hiddenIn(tree.stdout)).toEqual([]);
		expect(JSON.stringify(JSON.parse(tree.stdout))).toContain(`label ${H}`);
		// A label written by the CLI keeps its characters in the file.
		expect(arbor(["label", f.file, "u2", `new ${H}`], e).status).toBe(0);
		const last = JSON.parse(readFileSync(f.file, "utf8").trim().split("\n").at(-1) ?? "{}") as { label?: string };
		expect(last.label).toBe(`new ${H}`);
		// export --format jsonl: on stdout escaped (the same JSON values), into a file byte for byte.
		const target = join(f.home, "copy.jsonl");
		expect(arbor(["export", f.file, "--leaf", "r1", "--format", "jsonl", "--out", target], e).status).toBe(0);
		const written = readFileSync(target, "utf8");
		expect(written).toContain(H);
		const shown = arbor(["export", f.file, "--leaf", "r1", "--format", "jsonl"], e).stdout;
		expect(hiddenIn(shown)).toEqual([]);
		const parse = (s: string) =>
			s
				.split("\n")
				.filter(Boolean)
				.map((l) => {
					const o = JSON.parse(l) as Record<string, unknown>;
					if (o.type === "session" || o.type === "label") for (const k of ["id", "timestamp", "parentId"]) delete o[k];
					return o;
				});
		expect(parse(shown)).toEqual(parse(written));
	});
});
