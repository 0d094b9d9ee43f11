// Shared test utilities for the session core: temp dirs, fixture copies, byte hashes.
// Fixtures are read-only inputs (../shared/fixtures/sessions); every test works on its own copy so that
// neither pi (which may rewrite a file on open) nor Arbor can touch the originals or each other's bytes.
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dirname, "../../../..");
export const SHARED_DIR = resolve(REPO_ROOT, "../shared");
export const FIXTURES_DIR = join(SHARED_DIR, "fixtures/sessions");
export const GEN_SESSION = join(SHARED_DIR, "tools/gen-session.mjs");

const made: string[] = [];

/** A fresh temp dir, removed by `cleanupTempDirs()` (call it in afterAll). */
export function tempDir(tag = "arbor-test"): string {
	const dir = mkdtempSync(join(tmpdir(), `${tag}-`));
	made.push(dir);
	return dir;
}

export function cleanupTempDirs(): void {
	for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function fixtureNames(): string[] {
	return readdirSync(FIXTURES_DIR)
		.filter((f) => f.endsWith(".jsonl"))
		.sort();
}

export function fixturePath(name: string): string {
	return join(FIXTURES_DIR, name);
}

/** Copy a file into its own fresh temp dir (one dir per copy: pi derives its session dir from it). */
export function copyToTemp(source: string, tag = "copy"): string {
	const dir = tempDir(`arbor-${tag}`);
	const target = join(dir, source.split("/").pop() ?? "session.jsonl");
	copyFileSync(source, target);
	return target;
}

export function copyFixture(name: string, tag = "fixture"): string {
	return copyToTemp(fixturePath(name), tag);
}

/** Write raw bytes (string lines or Buffer) as a session file in a fresh temp dir. */
export function writeTempFile(content: string | Buffer, name = "session.jsonl", tag = "raw"): string {
	const dir = tempDir(`arbor-${tag}`);
	const file = join(dir, name);
	writeFileSync(file, content);
	return file;
}

export function sha256(file: string): string {
	return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/** JSON lines joined with "\n" and a trailing "\n", as pi writes them. */
export function jsonl(records: unknown[], trailingNewline = true): string {
	const body = records.map((r) => JSON.stringify(r)).join("\n");
	return trailingNewline ? `${body}\n` : body;
}
