// `arbor context` on omp files: omp 18.3's context (buildOmpContext) by default, for files the session core's
// sessionWriter rule calls omp's (the title-slot fixture, and files whose only omp mark is an entry off the
// path, which the path-only reader cannot see from the path alone); `--as pi` gives pi's exact JSON for the
// same file; pi files are unchanged by default and with `--as pi`.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildOmpContext, SessionManager } from "../../session";
import { arbor, buildCli, copyFixture, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

const T = (s: number) => new Date(Date.UTC(2026, 5, 1) + s * 1000).toISOString();
const m = (id: string, parentId: string | null, s: number, message: Record<string, unknown>) => ({
	type: "message",
	id,
	parentId,
	timestamp: T(s),
	message: { timestamp: s, ...message },
});
const asst = (id: string, parentId: string, s: number, content: unknown[], stopReason = "stop") =>
	m(id, parentId, s, { role: "assistant", content, provider: "anthropic", model: "claude-x", stopReason });

/** An omp session without a title line or header marks: its only omp record is a model_usage off the path. */
function ompByEntryOnly(dir: string): string {
	const lines = [
		{ type: "session", version: 3, id: "s1", timestamp: T(0), cwd: "/w" },
		{ type: "model_change", id: "mc", parentId: null, timestamp: T(1), model: "anthropic/claude-x", role: "default" },
		m("u1", "mc", 2, { role: "user", content: "one" }),
		{
			type: "model_usage",
			id: "mu",
			parentId: "u1",
			timestamp: T(3),
			purpose: "title",
			api: "x",
			provider: "p",
			model: "tiny",
			usage: { totalTokens: 3 },
			stopReason: "stop",
		},
		asst(
			"a1",
			"u1",
			4,
			[
				{ type: "text", text: "partial" },
				{ type: "toolCall", id: "lost", name: "read", arguments: {} },
			],
			"toolUse",
		),
	];
	const file = join(dir, "omp-entry.jsonl");
	writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	return file;
}

function ompJson(file: string, leaf?: string): string {
	const sm = SessionManager.open(file);
	try {
		const c = buildOmpContext(sm, leaf ?? sm.getLeafId());
		return JSON.stringify({
			rules: "omp",
			messages: c.messages,
			entryIds: c.entryIds,
			thinkingLevel: c.thinkingLevel,
			configuredThinkingLevel: c.configuredThinkingLevel,
			serviceTier: c.serviceTier,
			models: c.models,
			injectedTtsrRules: c.injectedTtsrRules,
			mode: c.mode,
			modeData: c.modeData,
		});
	} finally {
		sm.close();
	}
}

function piJson(file: string, leaf?: string): string {
	const sm = SessionManager.open(file);
	try {
		return JSON.stringify(sm.buildSessionContext(leaf ?? sm.getLeafId()));
	} finally {
		sm.close();
	}
}

const dir = tempDir();
const files: Array<[string, string]> = [
	["the omp title-slot fixture", copyFixture("formic__omp-session-titleslot.jsonl", dir)],
	["an omp file marked only by an entry off the path", ompByEntryOnly(dir)],
];

describe.each(files)("arbor context on %s", (_name, file) => {
	it("defaults to omp's context (fast reader or not), --as pi gives pi's, and the file is untouched", () => {
		const before = sha256(file);
		for (const env of [{}, { ARBOR_CONTEXT_READER: "full" }] as Record<string, string>[]) {
			const r = arbor(["context", file, "--json"], env);
			expect(r.status).toBe(0);
			expect(r.stdout).toBe(`${ompJson(file)}\n`);
			expect(arbor(["context", file, "--as", "omp", "--json"], env).stdout).toBe(r.stdout);
			const pi = arbor(["context", file, "--as", "pi", "--json"], env);
			expect(pi.status).toBe(0);
			expect(pi.stdout).toBe(`${piJson(file)}\n`);
		}
		const text = arbor(["context", file]);
		expect(text.status).toBe(0);
		expect(text.stdout.split("\n")[0]).toMatch(/^leaf: \S+ {2}thinking: \S+ {2}model: .+ {2}messages: \d+ {2}\(as omp 18\.3 sends it\)$/);
		expect(text.stdout.split("\n")[1]).toMatch(/^models: .+ {2}mode: none/);
		expect(arbor(["context", file, "--as", "pi"]).stdout).not.toContain("as omp 18.3 sends it");
		expect(sha256(file)).toBe(before);
	});
});

describe("arbor context --as", () => {
	it("omp's rules differ where they should: the dangling tool call is stripped, pi keeps it", () => {
		const file = ompByEntryOnly(tempDir());
		const omp = JSON.parse(arbor(["context", file, "--json"]).stdout) as {
			rules: string;
			entryIds: string[];
			models: Record<string, string>;
			messages: { content: unknown }[];
		};
		expect(omp.rules).toBe("omp");
		expect(omp.entryIds).toEqual(["u1", "a1"]);
		expect(omp.models).toEqual({ default: "anthropic/claude-x" });
		expect(omp.messages[1].content).toEqual([{ type: "text", text: "partial" }]);
		const pi = JSON.parse(arbor(["context", file, "--as", "pi", "--json"]).stdout) as { messages: { content: unknown[] }[] };
		expect(pi.messages[1].content).toHaveLength(2);
		// --leaf with omp's rules.
		expect(arbor(["context", file, "--leaf", "u1", "--json"]).stdout).toBe(`${ompJson(file, "u1")}\n`);
	});

	it("pi files: the default and --as pi print the same bytes; --as omp prints omp's shape", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl", tempDir());
		const def = arbor(["context", file, "--json"]);
		expect(def.status).toBe(0);
		expect(arbor(["context", file, "--as", "pi", "--json"]).stdout).toBe(def.stdout);
		expect(def.stdout).toBe(`${piJson(file)}\n`);
		expect(arbor(["context", file, "--as", "omp", "--json"]).stdout).toBe(`${ompJson(file)}\n`);
		expect(readFileSync(file, "utf8")).toBe(
			readFileSync(join(import.meta.dirname, "../../../../shared/fixtures/sessions/formic__pi-v3-branch-compaction.jsonl"), "utf8"),
		);
	});

	it("a bad --as value is a usage error", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl", tempDir());
		const r = arbor(["context", file, "--as", "claude"]);
		expect(r.status).toBe(1);
		expect(r.stderr).toContain('--as must be "pi" or "omp"');
		expect(r.stdout).toBe("");
	});
});
