// Search across sessions, part 4 of 5: indexing one session file (or its new tail) into blocks. A block is
// a run of consecutive complete lines holding up to BLOCK_TEXT characters of entry text; each of its words
// gets one posting (file id, block number) and the block table records its byte range, so a query reads
// only the matching blocks' bytes.
//
// Incremental rule: the manifest records for each file its size, mtime, the byte offset indexed up to (the
// end of its last complete line) and a hash of its first 4 KiB. A file that grew with the same first 4 KiB
// is append-only: only the bytes after the indexed offset are read. A file that shrank, or whose first
// 4 KiB changed (replaced or rewritten), is re-indexed from scratch under a new file id.

import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { BlockTable, Dict, FileState, IndexStore } from "./search-store";
import { TermTable } from "./search-terms";
import { entryText, oneLine } from "./search-text";

const HEAD_BYTES = 4096;
const CHUNK = 1 << 20;
/** Lines read between two yields. */
const LINES_PER_STEP = 50;
/** Entry text gathered into one indexed block. */
export const BLOCK_TEXT = 24 * 1024;

function headHash(fd: number, size: number): string {
	const n = Math.min(size, HEAD_BYTES);
	const buf = Buffer.alloc(n);
	readSync(fd, buf, 0, n, 0);
	return createHash("sha1").update(buf).digest("hex");
}

/** True when the byte before `at` is a newline (or `at` is 0): the indexed part still ends where it did. */
function endsLine(fd: number, at: number): boolean {
	if (at === 0) return true;
	const b = Buffer.alloc(1);
	return readSync(fd, b, 0, 1, at - 1) === 1 && b[0] === 10;
}

type Loose = Record<string, unknown>;

/** The read buffer of the last file indexed, kept for the next one (a fresh 1 MiB per file costs page faults). */
let spare: Buffer | null = null;

/** Reads one line: header facts into `state`; returns the entry's searchable text, if any. */
export function lineText(state: FileState, line: string, at: number): string | null {
	if (!line.trim()) return null;
	let o: Loose;
	try {
		o = JSON.parse(at === 0 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line) as Loose;
	} catch {
		return null;
	}
	if (typeof o !== "object" || o === null) return null;
	if (o.type === "session") {
		state.sessionId = typeof o.id === "string" ? o.id : null;
		if (typeof o.title === "string" && o.title) state.title = oneLine(o.title);
		return null;
	}
	if (o.type === "session_info" && typeof o.name === "string" && o.name.trim()) state.title = oneLine(o.name);
	state.entries++;
	return entryText(o)?.text ?? null;
}

/**
 * Indexes `path` from where it was indexed up to (or from scratch), adding its words to `terms` and its
 * blocks to its table. Yields every few lines. Closed early (a cancelled build), the file's state goes
 * back to the start of the block not finished, so the next update reads those lines again.
 */
export function* indexFile(store: IndexStore, terms: TermTable, path: string, onBytes: (n: number) => void): Generator<void, void> {
	let fd: number;
	try {
		fd = openSync(path, "r");
	} catch {
		store.drop(path);
		return;
	}
	let state: FileState | undefined;
	let held: Buffer | null = null;
	let blockAt = 0;
	let finished = false;
	try {
		const st = fstatSync(fd);
		const head = headHash(fd, st.size);
		state = store.manifest.files[path];
		let blocks;
		if (!(state && state.head === head && st.size >= state.indexedTo && endsLine(fd, state.indexedTo))) {
			// New, shrunk or replaced: from scratch, under a new file id (the old one's postings go stale).
			if (state) store.drop(path);
			const fid = store.newFid();
			state = { size: 0, mtimeMs: 0, indexedTo: 0, head, fid, blocks: 0, sessionId: null, title: null, entries: 0 };
			store.manifest.files[path] = state;
			store.byFid.set(fid, path);
			blocks = store.newTable(fid);
		} else blocks = store.tableForAppend(state.fid);
		const s = state;
		const fid = s.fid;
		s.head = head;
		const from = s.indexedTo;
		let pos = from;
		const buf = spare ?? Buffer.allocUnsafe(CHUNK);
		spare = null;
		held = buf;
		let carry: Buffer = Buffer.alloc(0);
		let carryAt = pos;
		let lines = 0;
		let texts = 0;
		let blockChars = 0;
		blockAt = pos;
		const flush = (endAt: number) => {
			if (texts) {
				const b = blocks.length;
				blocks.push([blockAt, endAt - blockAt]);
				terms.endBlock(fid, b);
				s.blocks = blocks.length;
			}
			texts = 0;
			blockChars = 0;
			blockAt = endAt;
		};
		for (;;) {
			const n = pos < st.size ? readSync(fd, buf, 0, Math.min(CHUNK, st.size - pos), pos) : 0;
			if (n <= 0) break;
			const data = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
			const dataAt = carryAt;
			pos += n;
			let start = 0;
			for (;;) {
				const nl = data.indexOf(10, start);
				if (nl < 0) break;
				const t = lineText(s, data.toString("utf8", start, nl), dataAt + start);
				start = nl + 1;
				s.indexedTo = dataAt + start;
				if (t) {
					terms.addText(t.toLowerCase());
					texts++;
					blockChars += t.length;
				}
				let full = false;
				if (blockChars >= BLOCK_TEXT) {
					flush(s.indexedTo);
					full = true;
				} else if (!texts) blockAt = s.indexedTo;
				if (++lines % LINES_PER_STEP === 0 || full) {
					onBytes(s.indexedTo - from);
					yield;
				}
			}
			carry = Buffer.from(data.subarray(start));
			carryAt = dataAt + start;
		}
		// A last line without its newline may still be being written: it is read on the next update.
		flush(s.indexedTo);
		s.size = st.size;
		s.mtimeMs = st.mtimeMs;
		onBytes(st.size - from);
		finished = true;
	} finally {
		closeSync(fd);
		if (held) spare = held;
		if (!finished) {
			terms.dropBlock();
			if (state) state.indexedTo = Math.min(state.indexedTo, blockAt);
		}
	}
}

/**
 * The postings of dictionary file `name` rebuilt from the indexed blocks of `files` (a damaged dictionary
 * file): each block is read again and its words go through the same rules as when it was indexed.
 */
export function dictFromBlocks(name: string, files: { fid: number; path: string; table: BlockTable }[]): Dict {
	const out: Dict = {};
	for (const { fid, path, table } of files) {
		let fd: number;
		try {
			fd = openSync(path, "r");
		} catch {
			continue;
		}
		const terms = new TermTable();
		const state: FileState = { size: 0, mtimeMs: 0, indexedTo: 0, head: "", fid, blocks: 0, sessionId: null, title: null, entries: 0 };
		try {
			table.forEach(([offset, length], block) => {
				const buf = Buffer.allocUnsafe(length);
				const n = readSync(fd, buf, 0, length, offset);
				// lineText strips a BOM only from the file's first line (at byte 0).
				buf
					.toString("utf8", 0, n)
					.split("\n")
					.forEach((line, i) => {
						const t = lineText(state, line, i === 0 ? offset : 1);
						if (t) terms.addText(t.toLowerCase());
					});
				terms.endBlock(fid, block);
			});
		} finally {
			closeSync(fd);
		}
		for (const id of terms.pending.get(name) ?? []) {
			const list = (out[terms.words[id]] ??= []);
			const p = terms.postings(id);
			for (let i = 0; i < p.length; i++) list.push(p[i]);
		}
	}
	return out;
}
