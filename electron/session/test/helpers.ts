// Test helpers: temp dirs, fixture copies (fixtures are read-only and never written), small file builders.

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const FIXTURES = resolve(import.meta.dirname, "../../../../shared/fixtures/sessions");
export const GEN_SESSION = resolve(import.meta.dirname, "../../../../shared/tools/gen-session.mjs");

export function fixtureNames(): string[] {
	return readdirSync(FIXTURES)
		.filter((f) => f.endsWith(".jsonl"))
		.sort();
}

/** A generated pi v3 session (../shared/tools/gen-session.mjs) in a fresh temp dir. */
export function generated(n: number, seed: string, extra: string[] = []): string {
	const out = join(tempDir(), `gen-${n}-${seed}.jsonl`);
	execFileSync(process.execPath, [GEN_SESSION, "--n", String(n), "--seed", seed, "--out", out, ...extra]);
	return out;
}

export function tempDir(): string {
	return mkdtempSync(join(tmpdir(), "arbor-session-"));
}

/** Copies a fixture into a fresh temp dir and returns the copy's path. */
export function fixtureCopy(name: string): string {
	const dir = tempDir();
	const dest = join(dir, name);
	copyFileSync(join(FIXTURES, name), dest);
	return dest;
}

export const HEADER = { type: "session", version: 3, id: "sess-1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/p" };

let clock = Date.parse("2026-01-01T00:00:00.000Z");
export function ts(): string {
	clock += 1000;
	return new Date(clock).toISOString();
}

export function msg(
	id: string,
	parentId: string | null,
	role: "user" | "assistant",
	text: string,
	extra: Record<string, unknown> = {},
): Record<string, unknown> {
	const message =
		role === "user"
			? { role, content: text, timestamp: 1 }
			: { role, content: [{ type: "text", text }], api: "x", provider: "prov", model: "m1", stopReason: "stop", timestamp: 1, ...extra };
	return { type: "message", id, parentId, timestamp: ts(), message };
}

/** Writes a session file from records (header first unless `header: null`); returns its path. */
export function writeSession(records: unknown[], opts: { header?: unknown | null; dir?: string; name?: string; raw?: string } = {}): string {
	const dir = opts.dir ?? tempDir();
	const file = join(dir, opts.name ?? "s.jsonl");
	const lines = [] as string[];
	if (opts.header !== null) lines.push(JSON.stringify(opts.header ?? HEADER));
	for (const r of records) lines.push(typeof r === "string" ? r : JSON.stringify(r));
	writeFileSync(file, opts.raw ?? `${lines.join("\n")}\n`);
	return file;
}
