// Shared checks of the reliability workers: hashing, error classification, and the "never lose a byte"
// rule for a file Arbor wrote to (the old bytes are a prefix; only whole JSON lines follow).

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

export function sha256(bytes: Uint8Array): string {
	return createHash("sha256").update(bytes).digest("hex");
}

export function sha256File(path: string): string {
	return sha256(readFileSync(path));
}

/** Codes the core and the services use for expected, user-facing failures. */
const TYPED_NAMES = new Set(["SessionFileError", "ArborServiceError", "ArborRequestError"]);

/** A typed error is one the app shows the user as a message; anything else (TypeError, RangeError...) is a crash. */
export function isTypedError(err: unknown): boolean {
	if (!(err instanceof Error)) return false;
	const rec = err as Error & { code?: unknown };
	return TYPED_NAMES.has(err.name) && typeof rec.code === "string";
}

export function describeError(err: unknown): string {
	if (!(err instanceof Error)) return `non-Error thrown: ${String(err).slice(0, 200)}`;
	const where = (err.stack ?? "")
		.split("\n")
		.slice(1, 4)
		.map((s) => s.trim())
		.join(" | ");
	return `${err.name}: ${err.message.slice(0, 300)} @ ${where}`;
}

/**
 * Checks a file Arbor appended to: `before` must be an exact prefix; then optionally one "\n" (when
 * `before` did not end in one) and only whole lines, each a JSON object ending in "\n". Returns the number
 * of appended lines, or a violation string.
 */
export function checkAppendOnly(before: Uint8Array, after: Uint8Array): { lines: number } | { violation: string } {
	if (after.length < before.length) return { violation: `file shrank from ${before.length} to ${after.length} bytes` };
	if (Buffer.compare(Buffer.from(before), Buffer.from(after.subarray(0, before.length))) !== 0) {
		let i = 0;
		while (i < before.length && before[i] === after[i]) i++;
		return { violation: `existing bytes changed (first difference at byte ${i})` };
	}
	let rest = Buffer.from(after.subarray(before.length));
	if (rest.length === 0) return { lines: 0 };
	if (before.length > 0 && before[before.length - 1] !== 0x0a) {
		if (rest[0] !== 0x0a) return { violation: "appended a line without first ending the unterminated last line (glued line)" };
		rest = rest.subarray(1);
	}
	if (rest.length && rest[rest.length - 1] !== 0x0a) return { violation: "appended data does not end with a newline (partial line)" };
	const text = rest.toString("utf8");
	const lines = text.length ? text.slice(0, -1).split("\n") : [];
	for (const [i, line] of lines.entries()) {
		try {
			const v: unknown = JSON.parse(line);
			if (v === null || typeof v !== "object" || Array.isArray(v)) return { violation: `appended line ${i + 1} is not a JSON object` };
		} catch {
			return { violation: `appended line ${i + 1} is not valid JSON: ${line.slice(0, 120)}` };
		}
	}
	return { lines: lines.length };
}

/** Deterministic JSON for comparing entries across loads (key order kept: it is part of the bytes). */
export function entryKey(entry: unknown): string {
	try {
		return JSON.stringify(entry) ?? "undefined";
	} catch (err) {
		// 10k-deep nesting cannot be stringified; compare by a bounded walk instead.
		return `unstringifiable:${err instanceof Error ? err.name : "?"}:${shallowKey(entry)}`;
	}
}

function shallowKey(v: unknown): string {
	if (v === null || typeof v !== "object") return String(v);
	return Object.keys(v).join(",");
}

/** A tiny seeded PRNG for choosing ids and arguments inside workers. */
export function rng(seed: string): { rnd(): number; int(lo: number, hi: number): number; pick<T>(a: readonly T[]): T } {
	let h = 2166136261;
	for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
	let s = h >>> 0 || 1;
	const rnd = () => {
		s ^= s << 13;
		s >>>= 0;
		s ^= s >>> 17;
		s ^= s << 5;
		s >>>= 0;
		return s / 4294967296;
	};
	const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
	return { rnd, int, pick: <T>(a: readonly T[]) => a[Math.floor(rnd() * a.length)] as T };
}

interface TreeNodeLike {
	entry: { id?: unknown; parentId?: unknown };
	children: TreeNodeLike[];
	label?: unknown;
}

/**
 * One string per tree (pre-order; each node: id, parentId, label, child ids in order), iterative so a
 * 10^6-deep chain does not overflow. pi's getTree and Arbor's produce the same string for the same file.
 */
export function canonicalTree(roots: TreeNodeLike[]): { hash: string; nodes: number } {
	const h = createHash("sha256");
	let nodes = 0;
	const stack: TreeNodeLike[] = [...roots].reverse();
	h.update(`roots:${roots.map((n) => String(n.entry.id)).join(",")}\n`);
	while (stack.length) {
		const n = stack.pop()!;
		nodes++;
		h.update(
			`${String(n.entry.id)}|${String(n.entry.parentId)}|${n.label === undefined ? "" : String(n.label)}|${n.children.map((c) => String(c.entry.id)).join(",")}\n`,
		);
		for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
	}
	return { hash: h.digest("hex"), nodes };
}
