// A pruned copy: a new session file without the branches rooted at the marked entries; the source is never
// touched. Written once as steps (like opening a file): the CLI runs them in one piece, the app in slices,
// so a 1 GB session never stops the host from answering. The source is read in fixed chunks and the copy
// written through a fixed buffer (NewFileStream): memory does not grow with the file.
//
// Rules:
// - Kept lines are copied byte for byte. The header gets a new session id and timestamp and names the source
//   as parentSession; omp's title slot stays with the source. A label on a kept entry that hung inside a
//   dropped branch is kept, re-attached to the nearest kept ancestor; a label on a dropped entry goes.
// - Only the bytes up to the size seen when the copy starts are read. An unterminated last line there (torn,
//   or still being written) is left out and reported (`tornTailBytes`): closing it with a newline would
//   give the copy a line that is not JSON (issue #23).
// - Most lines begin `{"type":"…","id":"…"`: those are judged by that prefix without parsing the rest.
//   Labels, headers, title slots and any other line are parsed, as before.

import * as fs from "node:fs";
import * as path from "node:path";
import { isRecord } from "../../shared/guards";
import { type SessionManager, NewFileStream, childHeader, createSessionId, derivedFileMode, makeTargetDir, sessionFileName } from "../session";
import { ArborServiceError } from "./errors";

export interface PrunedCopy {
	file: string;
	dropped: number;
	kept: number;
	/** Bytes of an unterminated last line that were left out (0: the source ended with a newline). */
	tornTailBytes: number;
}

const CHUNK_BYTES = 1 << 20;
const PREFIX_BYTES = 256;
/** `{"type":"T","id":"I"` with no escapes in either (an escaped id is parsed the slow way). */
const PREFIX = /^\{"type":"([^"\\]*)","id":"([^"\\]*)"/;
const PARSED_TYPES = new Set(["session", "title", "label"]);

/** Marks every entry under (and including) the drop roots: 2 = dropped, 1 = kept. Iterative, any depth. */
function* markDropped(parent: Int32Array, count: number, roots: number[]): Generator<void, Uint8Array> {
	const state = new Uint8Array(count);
	for (const r of roots) state[r] = 2;
	const chain: number[] = [];
	for (let i = 0; i < count; i++) {
		if ((i & 0xffff) === 0) yield;
		let j = i;
		while (state[j] === 0 && parent[j] >= 0) {
			chain.push(j);
			j = parent[j];
		}
		const s = state[j] === 0 ? 1 : state[j];
		if (state[j] === 0) state[j] = s;
		for (const k of chain) state[k] = s;
		chain.length = 0;
	}
	return state;
}

export function* prunedCopySteps(
	sm: SessionManager,
	dropIds: readonly string[],
	dir?: string,
	onProgress?: (doneBytes: number, totalBytes: number) => void,
): Generator<void, PrunedCopy> {
	const source = sm.getSessionFile();
	if (!source) throw new ArborServiceError("unsupported", "an in-memory session has no file to copy");
	if (dropIds.length === 0) throw new ArborServiceError("bad_request", "mark at least one branch to leave out");
	sm.catchUp();
	const generation = sm.getGeneration();
	const sk = sm.getSkeleton();
	const roots: number[] = [];
	for (const id of dropIds) {
		const root = sm.indexOf(id);
		if (root < 0) throw new ArborServiceError("not_found", `no entry "${id}" in this session`);
		roots.push(root);
	}
	const state = yield* markDropped(sk.parent, sk.count, roots);
	const droppedIds = new Set<string>();
	for (let i = 0; i < sk.count; i++) {
		if ((i & 0xffff) === 0) yield;
		if (state[i] === 2) droppedIds.add(sk.ids[i]);
	}
	let kept = 0;
	for (let i = 0; i < sk.count; i++) {
		if ((i & 0xffff) === 0) yield;
		if (state[i] === 2) continue;
		kept++;
		if (droppedIds.has(sk.ids[i]))
			throw new ArborServiceError("unsupported", `id ${sk.ids[i]} is used by a kept and a dropped entry; cannot tell its lines apart`);
	}
	const keptId = (id: string): boolean => !droppedIds.has(id) && sm.indexOf(id) >= 0;
	const nearestKept = (id: unknown): string | null => {
		let j = typeof id === "string" ? sm.indexOf(id) : -1;
		while (j >= 0 && state[j] === 2) j = sk.parent[j];
		return j >= 0 ? sk.ids[j] : null;
	};

	let fd: number;
	try {
		fd = fs.openSync(source, "r");
	} catch (err) {
		throw new ArborServiceError("bad_file", `cannot read the session file: ${err instanceof Error ? err.message : String(err)}`, source);
	}
	const timestamp = new Date().toISOString();
	const sessionId = createSessionId();
	const targetDir = dir ?? path.dirname(source);
	// Like branch-to-file: a folder given for the copy is created when missing.
	if (dir !== undefined) makeTargetDir(dir);
	const out = new NewFileStream(path.join(targetDir, sessionFileName(timestamp, sessionId)), derivedFileMode(source));
	let committed = false;
	try {
		const total = fs.fstatSync(fd).size;
		let sawHeader = false;
		const newline = Buffer.from("\n");
		const onLine = (line: Buffer): void => {
			if (line.length === 0) return;
			const m = PREFIX.exec(line.toString("latin1", 0, Math.min(line.length, PREFIX_BYTES)));
			if (m && !PARSED_TYPES.has(m[1]) && !/[^\x20-\x7e]/.test(m[2])) {
				if (droppedIds.has(m[2])) return;
				out.write(line);
				out.write(newline);
				return;
			}
			let obj: Record<string, unknown> | undefined;
			try {
				const v: unknown = JSON.parse(line.toString("utf8"));
				if (isRecord(v)) obj = v;
			} catch {
				obj = undefined;
			}
			if (obj && !sawHeader && obj.type === "session") {
				sawHeader = true;
				out.write(Buffer.from(`${JSON.stringify(childHeader(obj, sessionId, timestamp, source))}\n`, "utf8"));
				return;
			}
			if (obj && obj.type === "title") return; // omp's title slot belongs to the source's own header
			if (obj && typeof obj.id === "string" && droppedIds.has(obj.id)) {
				if (obj.type === "label" && typeof obj.targetId === "string" && keptId(obj.targetId)) {
					out.write(Buffer.from(`${JSON.stringify({ ...obj, parentId: nearestKept(obj.parentId) })}\n`, "utf8"));
				}
				return;
			}
			if (obj && obj.type === "label" && typeof obj.targetId === "string" && droppedIds.has(obj.targetId)) return;
			out.write(line);
			out.write(newline);
		};
		const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
		// The start of a line that continues into the next chunk(s): kept as copies, joined once complete.
		let pending: Buffer[] = [];
		let pendingBytes = 0;
		let pos = 0;
		while (pos < total) {
			const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, total - pos), pos);
			if (n <= 0) break;
			pos += n;
			let start = 0;
			for (;;) {
				const nl = chunk.indexOf(10, start);
				if (nl < 0 || nl >= n) break;
				if (pendingBytes > 0) {
					onLine(Buffer.concat([...pending, chunk.subarray(start, nl)]));
					pending = [];
					pendingBytes = 0;
				} else onLine(chunk.subarray(start, nl));
				start = nl + 1;
			}
			if (start < n) {
				pending.push(Buffer.from(chunk.subarray(start, n)));
				pendingBytes += n - start;
			}
			onProgress?.(pos, total);
			yield;
			if (sm.getGeneration() !== generation) {
				throw new ArborServiceError("conflict", "the session file was rewritten while the copy was being made; nothing was saved (try again)", source);
			}
		}
		if (!sawHeader) throw new ArborServiceError("bad_file", "the file has no session header", source);
		out.commit();
		committed = true;
		return { file: out.path, dropped: droppedIds.size, kept, tornTailBytes: pendingBytes };
	} finally {
		if (!committed) out.abort();
		fs.closeSync(fd);
	}
}
