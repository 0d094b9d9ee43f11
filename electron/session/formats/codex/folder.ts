// What a Codex thread is beyond its own lines: compressed rollouts (`.jsonl.zst`), the names `session_index.jsonl`
// gives threads, the file of a thread id, and where a fork joins its parent. These read files; the rest of the
// format is pure. docs/formats-codex.md "Lineage".

import * as fs from "node:fs";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { isRecord } from "../../../../shared/guards";
import { CodexReader } from "./reader";

type Raw = Record<string, unknown>;

export class CodexFileError extends Error {}

/** A rollout's text: `.jsonl` as is, `.jsonl.zst` decompressed with Node's zlib zstd (Node >= 22.15 / 23.8). */
export function readRollout(
	file: string,
	zstd: ((b: Buffer) => Buffer) | null = (zlib as { zstdDecompressSync?: (b: Buffer) => Buffer }).zstdDecompressSync ?? null,
): string {
	const bytes = fs.readFileSync(file);
	if (!file.endsWith(".zst")) return bytes.toString("utf8");
	if (!zstd) throw new CodexFileError(`${file}: a compressed Codex rollout needs a Node with zstd in zlib (22.15 or newer); this is ${process.version}`);
	try {
		return zstd(bytes).toString("utf8");
	} catch (e) {
		throw new CodexFileError(`${file}: not a valid zstd stream (${(e as Error).message})`);
	}
}

/** The JSON objects of a rollout (unreadable lines skipped). */
export function rolloutRecords(file: string): Raw[] {
	const out: Raw[] = [];
	for (const line of readRollout(file).split("\n")) {
		if (!line.trim()) continue;
		try {
			const v: unknown = JSON.parse(line);
			if (isRecord(v)) out.push(v);
		} catch {}
	}
	return out;
}

/** Thread names from `<codexHome>/session_index.jsonl` ({id, thread_name}): the last line per id wins. */
export function codexThreadNames(codexHome: string): Map<string, string> {
	const names = new Map<string, string>();
	let text: string;
	try {
		text = fs.readFileSync(path.join(codexHome, "session_index.jsonl"), "utf8");
	} catch {
		return names;
	}
	for (const line of text.split("\n")) {
		try {
			const v: unknown = JSON.parse(line);
			if (isRecord(v) && typeof v.id === "string" && typeof v.thread_name === "string") names.set(v.id, v.thread_name);
		} catch {}
	}
	return names;
}

/** A rollout's thread id, from its name (`rollout-<time>-<id>.jsonl[.zst]`). */
export function threadIdOf(file: string): string | undefined {
	return /-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl(\.zst)?$/i.exec(path.basename(file))?.[1];
}

/** The rollout of a thread id under a sessions root (`YYYY/MM/DD/rollout-…-<id>.jsonl[.zst]`), or undefined. */
export function findThreadFile(sessionsRoot: string, id: string): string | undefined {
	let all: string[];
	try {
		all = fs.readdirSync(sessionsRoot, { recursive: true }).map(String);
	} catch {
		return undefined;
	}
	const hit = all.filter((f) => threadIdOf(f) === id).sort();
	// A plain rollout is the one still written to; a compressed one is closed.
	const plain = hit.find((f) => f.endsWith(".jsonl"));
	const chosen = plain ?? hit[0];
	return chosen ? path.join(sessionsRoot, chosen) : undefined;
}

/**
 * Where a fork joins its parent: the parent's chain tail after every line with an ordinal below the fork's
 * `forked_from_ordinal_exclusive` (lines without ordinals: the first `ordinalExclusive` lines).
 */
export function codexForkPoint(parentFile: string, ordinalExclusive: number): string | null {
	const reader = new CodexReader();
	const lines = readRollout(parentFile).split("\n");
	for (let i = 0; i < lines.length; i++) {
		let raw: unknown;
		try {
			raw = JSON.parse(lines[i]!);
		} catch {
			continue;
		}
		if (!isRecord(raw)) continue;
		const ordinal = typeof raw.ordinal === "number" ? raw.ordinal : i;
		if (ordinal >= ordinalExclusive) break;
		reader.read(raw, { lineNo: i + 1, offset: 0, length: 0 });
	}
	return reader.tail();
}
