// Path-only reader for `arbor context`: the model context at a leaf without indexing the whole file.
//
// SessionManager.open walks the JSON structure of every line (scan-line.ts) and keeps an id string and a map
// entry per line; the context needs only the entries on one path. This reader:
// - scans the file in chunks for newlines and reads each line's top-level type / id / parentId from its
//   opening keys with a byte-level fast path (the keys before the first nested value are top-level); a line
//   whose opening keys it cannot read exactly goes through skimLine;
// - keeps ids as bytes in one pool and hashes them into typed arrays (open addressing, bytes compared on a
//   hash match): no string and no Map entry per line;
// - JSON.parses only the lines on the path from the leaf (the last entry line, where pi resumes) to its root,
//   checks that each parses to the id / parent link the scan read, and builds entry objects only for the
//   entries the context reads.
// Anything that would make SessionManager warn or read differently (a BOM, a first record that is not a v3
// session header, invalid UTF-8, a duplicate id, a missing parent, a loop, an extra header, a line neither
// the skim nor JSON.parse reads, a path line that does not parse) returns a fallback reason instead: the
// caller then opens the file with SessionManager, which is exact for every file. What the reader does not
// check is the JSON syntax of lines off the path: such a line changes no message of the context, only
// SessionManager's warnings (docs/session-core.md "Path-only reader").

import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync, constants as fsConstants } from "node:fs";
import type { SessionContext, SessionEntry } from "../../../../shared/entries";
import { kindOf } from "../../../../shared/skeleton";
import { buildContextFromPath, type PathSource } from "../../context";
import { isRecord } from "../../../../shared/guards";
import { headerVersion } from "./migrate";
import { forEachParentLoop } from "../../parent-loops";
import { fallback, Fallback, hashBytes, Rows, sameBytes } from "../../path-rows";
import { skimLine } from "./scan-line";
import { ompByHeader, OMP_ONLY_TYPES } from "../omp/context";
import { hasSlotShape } from "../omp/title-slot";

export type PathContextResult = { ok: true; context: SessionContext; leafId: string; entries: number; pathLength: number } | { ok: false; reason: string };

const CHUNK = 8 * 1024 * 1024;
const Q = 0x22;
const BS = 0x5c;

type Loose = Record<string, unknown>;

/** Scanner state for one line's opening keys. */
let fType = -1,
	fTypeEnd = -1,
	fId = -1,
	fIdEnd = -1,
	fPar = -1,
	fParEnd = -1,
	fParNull = false;

/** End (exclusive, just past the closing quote) of a string starting at b[p] === '"' with no escape and no control byte; -1 otherwise. */
function plainString(b: Uint8Array, p: number, e: number): number {
	for (let k = p + 1; k < e; k++) {
		const c = b[k];
		if (c === Q) return k + 1;
		if (c === BS || c < 0x20) return -1;
	}
	return -1;
}

/**
 * Reads type / id / parentId from the line's opening keys (compact JSON as pi and omp write it). True when
 * all three were read before the first value that is not a plain string or null; false when unsure.
 */
function openingKeys(b: Uint8Array, s: number, e: number): boolean {
	fType = fId = fPar = -1;
	fParNull = false;
	if (b[s] !== 0x7b) return false;
	// pi's and omp's layout first: {"type":"…","id":"…","parentId":"…" or null
	if (
		b[s + 1] === Q &&
		b[s + 2] === 0x74 &&
		b[s + 3] === 0x79 &&
		b[s + 4] === 0x70 &&
		b[s + 5] === 0x65 &&
		b[s + 6] === Q &&
		b[s + 7] === 0x3a &&
		b[s + 8] === Q
	) {
		const te = plainString(b, s + 8, e);
		if (te > 0 && b[te] === 0x2c && b[te + 1] === Q && b[te + 2] === 0x69 && b[te + 3] === 0x64 && b[te + 4] === Q && b[te + 5] === 0x3a && b[te + 6] === Q) {
			const ie = plainString(b, te + 6, e);
			const p = ie + 12;
			if (
				ie > 0 &&
				b[ie] === 0x2c &&
				b[ie + 1] === Q &&
				b[ie + 2] === 0x70 &&
				b[ie + 3] === 0x61 &&
				b[ie + 4] === 0x72 &&
				b[ie + 5] === 0x65 &&
				b[ie + 6] === 0x6e &&
				b[ie + 7] === 0x74 &&
				b[ie + 8] === 0x49 &&
				b[ie + 9] === 0x64 &&
				b[ie + 10] === Q &&
				b[ie + 11] === 0x3a
			) {
				if (b[p] === Q) {
					const pe = plainString(b, p, e);
					if (pe > 0) {
						fType = s + 9;
						fTypeEnd = te - 1;
						fId = te + 7;
						fIdEnd = ie - 1;
						fPar = p + 1;
						fParEnd = pe - 1;
						return true;
					}
				} else if (b[p] === 0x6e && b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c) {
					fType = s + 9;
					fTypeEnd = te - 1;
					fId = te + 7;
					fIdEnd = ie - 1;
					fPar = p;
					fParEnd = p;
					fParNull = true;
					return true;
				}
			}
		}
	}
	let p = s + 1;
	for (;;) {
		if (b[p] !== Q) return false;
		const ke = plainString(b, p, e);
		if (ke < 0 || b[ke] !== 0x3a) return false;
		const klen = ke - p - 2;
		let which = 0;
		if (klen === 4 && b[p + 1] === 0x74 && b[p + 2] === 0x79 && b[p + 3] === 0x70 && b[p + 4] === 0x65)
			which = 1; // type
		else if (klen === 2 && b[p + 1] === 0x69 && b[p + 2] === 0x64)
			which = 2; // id
		else if (
			klen === 8 &&
			b[p + 1] === 0x70 &&
			b[p + 2] === 0x61 &&
			b[p + 3] === 0x72 &&
			b[p + 4] === 0x65 &&
			b[p + 5] === 0x6e &&
			b[p + 6] === 0x74 &&
			b[p + 7] === 0x49 &&
			b[p + 8] === 0x64
		)
			which = 3; // parentId
		p = ke + 1;
		const c = b[p];
		let ve: number;
		if (c === Q) {
			ve = plainString(b, p, e);
			if (ve < 0) return false;
			if (which === 1) {
				fType = p + 1;
				fTypeEnd = ve - 1;
			} else if (which === 2) {
				fId = p + 1;
				fIdEnd = ve - 1;
			} else if (which === 3) {
				fPar = p + 1;
				fParEnd = ve - 1;
				fParNull = false;
			}
		} else if (c === 0x6e && b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c) {
			ve = p + 4;
			if (which === 3) {
				fPar = p;
				fParEnd = p;
				fParNull = true;
			} else if (which !== 0) return false;
		} else return false;
		if (fType >= 0 && fId >= 0 && fPar >= 0) return true;
		if (b[ve] !== 0x2c) return false;
		p = ve + 1;
	}
}

/** Last byte of the line that is not JSON whitespace, or -1. */
function lastNonSpace(b: Uint8Array, s: number, e: number): number {
	for (let k = e - 1; k >= s; k--) {
		const c = b[k];
		if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return k;
	}
	return -1;
}

/**
 * The model context at the file's leaf (or at `leafId`), read from the path alone; `{ ok: false }` when the
 * file needs SessionManager (see the file comment). Never writes to the file.
 */
export function readPathContext(file: string, leafId?: string, opts: { piOnly?: boolean } = {}): PathContextResult {
	let fd: number;
	try {
		fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
	} catch {
		return { ok: false, reason: "cannot open" };
	}
	try {
		return readOpen(fd, leafId, opts.piOnly === true);
	} catch (err) {
		if (err instanceof Fallback) return { ok: false, reason: err.message };
		throw err;
	} finally {
		closeSync(fd);
	}
}

/** `piOnly`: an omp file (sessionWriter's rule, ../omp/context.ts) is a fallback too ("omp file"). */
function readOpen(fd: number, leafId: string | undefined, piOnly: boolean): PathContextResult {
	const st = fstatSync(fd);
	if (!st.isFile()) fallback("not a regular file");
	const size = st.size;
	if (size === 0) fallback("empty file");
	const rows = scanLines(fd, size, piOnly);
	const n = rows.n;
	// Each pass is its own function: a hot loop compiles (on-stack replacement) the function holding it, and
	// one function holding every pass was compiled anew for each of them.
	const table = idTable(rows);
	const parent = parentLinks(rows, table);
	const mask = table.length - 1;
	const { idAt, idLen, idHash, pool } = rows;
	// Loops anywhere (SessionManager warns about each).
	forEachParentLoop(parent, n, () => fallback("parent loop"));

	let leaf = n - 1;
	if (leafId !== undefined) {
		const b = Buffer.from(leafId, "utf8");
		const h = hashBytes(b, 0, b.length);
		leaf = -1;
		for (let slot = h & mask; table[slot] >= 0; slot = (slot + 1) & mask) {
			const j = table[slot];
			if (idHash[j] === h && idLen[j] === b.length && b.equals(pool.subarray(idAt[j], idAt[j] + idLen[j]))) {
				leaf = j;
				break;
			}
		}
		if (leaf < 0) fallback("leaf not in the file");
	}
	let depth = 0;
	for (let j = leaf; j >= 0; j = parent[j]) depth++;
	const path = new Int32Array(depth);
	for (let j = leaf, k = depth; j >= 0; j = parent[j]) path[--k] = j;

	const src = checkPath(fd, rows, path, size);
	const local = new Int32Array(depth);
	for (let k = 0; k < depth; k++) local[k] = k;
	const context = buildContextFromPath(src, local);
	return { ok: true, context, leafId: src.ids[depth - 1], entries: n, pathLength: depth };
}

/** Scans the file's lines into rows (type / id / parentId from each line's opening keys); see readOpen. */
function scanLines(fd: number, size: number, piOnly: boolean): Rows {
	const rows = new Rows(Math.max(1024, Math.min(1 << 20, Math.ceil(size / 1024))));
	let buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(64, size)));
	let filled = 0;
	let bufOffset = 0;
	let readPos = 0;
	let headerSeen = false;
	let atStart = true;

	const line = (s: number, e: number, off: number, hasEol: boolean): void => {
		if (atStart && off === 0 && e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) fallback("byte-order mark");
		let a = s;
		while (a < e && (buf[a] === 32 || buf[a] === 9 || buf[a] === 13)) a++;
		if (a === e) return;
		if (!headerSeen) {
			let obj: unknown;
			try {
				obj = JSON.parse(buf.toString("utf8", s, e));
			} catch {
				fallback("first line is not JSON");
			}
			if (!isRecord(obj)) fallback("first line is not an object");
			const o = obj as Loose;
			if (atStart && o.type === "title") {
				atStart = false;
				// omp's fixed-width title slot; any other title line makes SessionManager warn.
				if (!hasSlotShape(o, e - s) || !hasEol) fallback("title line not in omp's slot shape");
				if (piOnly) fallback("omp file");
				return;
			}
			atStart = false;
			if (o.type !== "session" || typeof o.id !== "string") fallback("no session header");
			if (headerVersion(o) < 3) fallback("legacy version");
			if (piOnly && ompByHeader(o, false)) fallback("omp file");
			headerSeen = true;
			return;
		}
		if (!hasEol) {
			// SessionManager JSON.parses an unterminated last line (a torn one is a warning, not an entry).
			try {
				JSON.parse(buf.toString("utf8", s, e));
			} catch {
				fallback("unterminated last line is not JSON");
			}
		}
		const last = lastNonSpace(buf, s, e);
		if (buf[last] !== 0x7d) fallback("line does not end with }");
		if (rows.n === rows.offset.length) rows.grow();
		const r = rows.n;
		if (openingKeys(buf, s, e)) {
			// "session": an extra header line (SessionManager warns and skips it).
			if (fTypeEnd - fType === 7 && buf[fType] === 0x73 && buf.toString("latin1", fType, fTypeEnd) === "session") fallback("extra header line");
			if (piOnly) {
				const tl = fTypeEnd - fType;
				if ((tl === 11 || tl === 12 || tl === 14 || tl === 19) && OMP_ONLY_TYPES.has(buf.toString("latin1", fType, fTypeEnd))) fallback("omp file");
			}
			rows.idAt[r] = rows.keep(buf, fId, fIdEnd);
			rows.idLen[r] = fIdEnd - fId;
			rows.idHash[r] = hashBytes(buf, fId, fIdEnd);
			if (fParNull) rows.par[r] = -1;
			else {
				rows.par[r] = 1;
				rows.parAt[r] = rows.keep(buf, fPar, fParEnd);
				rows.parLen[r] = fParEnd - fPar;
				rows.parHash[r] = hashBytes(buf, fPar, fParEnd);
			}
		} else {
			// An unterminated last line is JSON.parsed by SessionManager, never skimmed.
			const sk = hasEol ? skimLine(buf, s, e) : undefined;
			let type: unknown, id: unknown, parentId: unknown;
			if (sk) ({ type, id, parentId } = sk);
			else {
				let obj: unknown;
				try {
					obj = JSON.parse(buf.toString("utf8", s, e));
				} catch {
					fallback("line is not JSON");
				}
				if (!isRecord(obj)) fallback("line is not an object");
				({ type, id, parentId } = obj as Loose);
			}
			if (type === "session") fallback("extra header line");
			if (piOnly && typeof type === "string" && OMP_ONLY_TYPES.has(type)) fallback("omp file");
			if (typeof id !== "string") fallback("entry without id");
			const ib = Buffer.from(id as string, "utf8");
			rows.idAt[r] = rows.keep(ib, 0, ib.length);
			rows.idLen[r] = ib.length;
			rows.idHash[r] = hashBytes(ib, 0, ib.length);
			if (parentId === null) rows.par[r] = -1;
			else if (typeof parentId !== "string") rows.par[r] = -2;
			else {
				const pb = Buffer.from(parentId, "utf8");
				rows.par[r] = 1;
				rows.parAt[r] = rows.keep(pb, 0, pb.length);
				rows.parLen[r] = pb.length;
				rows.parHash[r] = hashBytes(pb, 0, pb.length);
			}
		}
		rows.offset[r] = off;
		rows.length[r] = e - s;
		rows.n = r + 1;
	};

	while (readPos < size) {
		if (filled === buf.length) {
			const bigger = Buffer.allocUnsafe(buf.length * 2);
			buf.copy(bigger, 0, 0, filled);
			buf = bigger;
		}
		const n = readSync(fd, buf, filled, Math.min(buf.length - filled, size - readPos), readPos);
		if (n <= 0) break;
		readPos += n;
		filled += n;
		const view = buf.subarray(0, filled);
		const lastNl = view.lastIndexOf(10);
		if (lastNl >= 0) {
			const whole = buf.subarray(0, lastNl + 1);
			// One UTF-8 check per chunk of whole lines.
			if (!isUtf8(whole)) fallback("bytes that are not UTF-8");
		}
		let pos = 0;
		for (;;) {
			const nl = view.indexOf(10, pos);
			if (nl < 0) break;
			line(pos, nl, bufOffset + pos, true);
			pos = nl + 1;
		}
		if (pos > 0) {
			buf.copyWithin(0, pos, filled);
			filled -= pos;
			bufOffset += pos;
		}
	}
	if (filled > 0) {
		const tail = buf.subarray(0, filled);
		if (!isUtf8(tail)) fallback("bytes that are not UTF-8");
		line(0, filled, bufOffset, false);
	}
	if (!headerSeen) fallback("no session header");
	if (rows.n === 0) fallback("no entries");
	if (readPos !== size) fallback("file changed while reading");
	return rows;
}

/** The rows' ids in an open-addressing table (row numbers, -1 empty); a repeated id falls back. */
function idTable(rows: Rows): Int32Array {
	const n = rows.n;
	const pool = rows.pool;
	// ids into an open-addressing table; a repeated id makes SessionManager warn.
	let cap = 1024;
	while (cap < n * 2) cap *= 2;
	const mask = cap - 1;
	const table = new Int32Array(cap).fill(-1);
	const { idAt, idLen, idHash } = rows;
	for (let i = 0; i < n; i++) {
		let slot = idHash[i] & mask;
		for (;;) {
			const j = table[slot];
			if (j < 0) {
				table[slot] = i;
				break;
			}
			if (idHash[j] === idHash[i] && sameBytes(pool, idAt[j], idLen[j], idAt[i], idLen[i])) fallback("duplicate id");
			slot = (slot + 1) & mask;
		}
	}
	return table;
}

/** Each row's parent row (-1: a root), resolved through the id table. */
function parentLinks(rows: Rows, table: Int32Array): Int32Array {
	const n = rows.n;
	const mask = table.length - 1;
	const { pool, idAt, idLen, idHash, par, parAt, parLen, parHash } = rows;
	// Parent links (bytes compared, as for ids); a dangling parent (SessionManager: "orphan" warning) or a
	// self-parent falls back.
	const parent = new Int32Array(n);
	for (let i = 0; i < n; i++) {
		if (par[i] < 0) {
			parent[i] = -1;
			continue;
		}
		const h = parHash[i];
		const pa = parAt[i];
		const pl = parLen[i];
		let j = -1;
		if (i > 0 && idHash[i - 1] === h && sameBytes(pool, idAt[i - 1], idLen[i - 1], pa, pl)) j = i - 1;
		else {
			for (let slot = h & mask; table[slot] >= 0; slot = (slot + 1) & mask) {
				const c = table[slot];
				if (idHash[c] === h && sameBytes(pool, idAt[c], idLen[c], pa, pl)) {
					j = c;
					break;
				}
			}
		}
		if (j < 0) fallback("parent not in the file");
		if (j === i) fallback("entry is its own parent");
		parent[i] = j;
	}
	return parent;
}

/**
 * Reads the path's lines (neighbouring lines in one read) and checks each the way SessionManager reads it:
 * skimLine, or JSON.parse when the skim is unsure (and always for an unterminated last line). Each must give
 * the type / id / parentId the scan read from its opening keys (a repeated key later in a line would not).
 * Entry objects are parsed only when the context asks for them (entries before the latest compaction that
 * it does not keep never are).
 */
function checkPath(fd: number, rows: Rows, path: Int32Array, size: number): PathSource {
	const depth = path.length;
	const kind = new Uint8Array(depth);
	const ids: string[] = new Array(depth);
	const parsed: (SessionEntry | undefined)[] = new Array(depth);
	const order = Array.from(path.keys()).sort((a, b) => rows.offset[path[a]] - rows.offset[path[b]]);
	let scratch = Buffer.allocUnsafe(1 << 20);
	for (let q = 0; q < order.length;) {
		const first = rows.offset[path[order[q]]];
		let end = first + rows.length[path[order[q]]];
		let m = q + 1;
		// Join the next line when the gap to it is small (reading a little more beats another read).
		while (m < order.length) {
			const o = rows.offset[path[order[m]]];
			if (o - end > 4096 || o + rows.length[path[order[m]]] - first > 2 * CHUNK) break;
			end = Math.max(end, o + rows.length[path[order[m]]]);
			m++;
		}
		const len = end - first;
		if (end > size) fallback("file changed while reading");
		if (scratch.length < len) scratch = Buffer.allocUnsafe(len);
		readFully(fd, scratch, len, first);
		for (let r = q; r < m; r++) {
			const k = order[r];
			const i = path[k];
			const s = rows.offset[i] - first;
			const e = s + rows.length[i];
			// Validity only: SessionManager's skim accepts a subset of what JSON.parse does, so a line is an
			// entry there exactly when it parses. Decoded as Latin-1 (valid UTF-8 was checked per chunk, and
			// JSON's grammar is ASCII, so it parses exactly when the UTF-8 text does); compared in Latin-1 too.
			const o = parseText(scratch.toString("latin1", s, e));
			if (o.id !== rows.idLatin1(i)) fallback("path line id differs from its opening keys");
			if (o.type === "session") fallback("path line is a session header");
			const rp = o.parentId;
			const pk = rows.par[i];
			if (k > 0 ? rp !== rows.idLatin1(path[k - 1]) : pk === -1 ? rp !== null : typeof rp === "string" || rp === null) {
				fallback("path line parentId differs");
			}
			kind[k] = kindOf(o);
			ids[k] = rows.idText(i);
		}
		q = m;
	}
	const entryAt = (k: number): SessionEntry => {
		const hit = parsed[k];
		if (hit) return hit;
		const i = path[k];
		const len = rows.length[i];
		if (scratch.length < len) scratch = Buffer.allocUnsafe(len);
		readFully(fd, scratch, len, rows.offset[i]);
		const o = parseLine(scratch, 0, len);
		if (o.id !== ids[k]) fallback("file changed while reading");
		parsed[k] = o as SessionEntry;
		return o as SessionEntry;
	};
	return { kind, ids, entryAt };
}

function readFully(fd: number, into: Buffer, len: number, at: number): void {
	let got = 0;
	while (got < len) {
		const r = readSync(fd, into, got, len - got, at + got);
		if (r <= 0) fallback("file changed while reading");
		got += r;
	}
}

function parseLine(b: Buffer, s: number, e: number): Loose {
	return parseText(b.toString("utf8", s, e));
}

function parseText(text: string): Loose {
	let obj: unknown;
	try {
		obj = JSON.parse(text);
	} catch {
		fallback("a path line is not JSON");
	}
	if (!isRecord(obj)) fallback("a path line is not an object");
	return obj as Loose;
}
