// The session library: finds pi / omp session files in their default folders (or given folders) and
// describes each one from its header, a bounded prefix, its size and its last conversation time (read back from its end, session-activity.ts), never the whole file, so a library of
// thousands of sessions (some of them hundreds of MB) lists in well under a second.
// Folder rules: ../shared/format/SESSION-FORMAT.md §16.

import { closeSync, fstatSync, openSync, readdirSync, readSync, realpathSync, statSync, type Dirent } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { SessionListItem } from "../../shared/api";
import { expandHome } from "./formats/pi/dirs";
import { isTitleRecord } from "./formats/omp/title-slot";
import { LIBRARY_FORMATS } from "./formats/registry";
import { contentText } from "../../shared/content-text";
import { asRecord, errorText } from "../../shared/guards";
import { lastActivityTime, sessionModifiedMs } from "./session-activity";

export type SessionSource = SessionListItem["source"];

export interface SessionRoot {
	dir: string;
	source: SessionSource;
}

export interface LibraryOptions {
	env?: Record<string, string | undefined>;
	home?: string;
	/** Temp dir omp's folder names are relative to (`-tmp-...`). */
	tmp?: string;
	/** Bytes read from the start of each file (more only to finish the first user message's line). */
	prefixBytes?: number;
	/** Upper bound on bytes read to find the first user message. */
	maxScanBytes?: number;
	/** Bytes read from the end of a large file to find its latest session name. */
	tailBytes?: number;
	/** Files up to this size get an exact entry count; larger ones an estimate from two samples. */
	exactCountBytes?: number;
}

const PREFIX_BYTES = 16 * 1024;
const MAX_SCAN_BYTES = 1024 * 1024;
const TAIL_BYTES = 16 * 1024;
/** Files up to this size get an exact entry count (their lines are counted, bytes only, no parsing). */
const EXACT_COUNT_BYTES = 8 * 1024 * 1024;
const FIRST_MESSAGE_MAX = 300;

function isDir(p: string): boolean {
	try {
		return statSync(p).isDirectory();
	} catch {
		return false;
	}
}

/** Every format's session roots that exist on this machine (formats/registry.ts LIBRARY_FORMATS: pi first), without duplicates. */
export function defaultSessionRoots(options: LibraryOptions = {}): SessionRoot[] {
	const env = options.env ?? process.env;
	const home = options.home ?? homedir();
	const candidates: SessionRoot[] = [];
	for (const f of LIBRARY_FORMATS) for (const dir of f.sessionRoots(env, home)) candidates.push({ dir, source: f.id });
	return dedupeRoots(candidates.filter((c) => isDir(c.dir)));
}

function dedupeRoots(roots: SessionRoot[]): SessionRoot[] {
	const seen = new Set<string>();
	const out: SessionRoot[] = [];
	for (const r of roots) {
		let key: string;
		try {
			key = realpathSync(r.dir);
		} catch {
			key = resolve(r.dir);
		}
		if (seen.has(key)) continue;
		seen.add(key);
		out.push(r);
	}
	return out;
}

/**
 * Project path from a session folder name. pi: `--<path with / \ : as ->--` (lossy: a "-" in the original
 * path reads back as "/"). omp: `-` = home, `-tmp[-rel]` = temp dir, `-rel` = under home. Null otherwise.
 */
export function decodeProjectDir(name: string, home: string = homedir(), tmp: string = tmpdir()): string | null {
	const win = /^--([A-Za-z])--(.*)--$/.exec(name);
	if (win) return `${win[1]}:\\${win[2].replace(/-/g, "\\")}`;
	const pi = /^--(.*)--$/.exec(name);
	if (pi) return `/${pi[1].replace(/-/g, "/")}`;
	if (name === "-") return home;
	if (name === "-tmp") return tmp;
	if (name.startsWith("-tmp-")) return join(tmp, ...name.slice(5).split("-"));
	if (name.startsWith("-") && name.length > 1) return join(home, ...name.slice(1).split("-"));
	return null;
}

type Loose = Record<string, unknown>;

function parseObject(line: string): Loose | undefined {
	try {
		const v: unknown = JSON.parse(line);
		return asRecord(v);
	} catch {
		return undefined;
	}
}

function userText(content: unknown): string {
	return contentText(content, " ", { joinAfterText: true, stopAfter: FIRST_MESSAGE_MAX * 4 });
}

function oneLine(s: string): string {
	const t = s.replace(/\s+/g, " ").trim();
	return t.length > FIRST_MESSAGE_MAX ? `${t.slice(0, FIRST_MESSAGE_MAX)}…` : t;
}

interface Scan {
	titleSlot?: string;
	header?: Loose;
	headerError?: string;
	firstUserMessage?: string;
	sessionName?: string;
	/** Entry lines seen (non-empty lines after the header / title slot). */
	entryLines: number;
	/** Bytes covered by complete lines. */
	bytes: number;
	complete: boolean;
}

// One scratch buffer per read kind: listing is synchronous, and thousands of files would otherwise allocate
// thousands of 16 KiB buffers.
let prefixScratch = Buffer.allocUnsafe(0);
let tailScratch = Buffer.allocUnsafe(0);

function scratch(which: "prefix" | "tail", bytes: number): Buffer {
	if (which === "prefix") {
		if (prefixScratch.length < bytes) prefixScratch = Buffer.allocUnsafe(bytes);
		return prefixScratch;
	}
	if (tailScratch.length < bytes) tailScratch = Buffer.allocUnsafe(bytes);
	return tailScratch;
}

const USER_BYTES = Buffer.from('"user"');
const SESSION_INFO_BYTES = Buffer.from('"session_info"');

/** Read complete lines from the start of the file until the first user message is known (bounded). */
function scanPrefix(fd: number, size: number, opts: Required<Pick<LibraryOptions, "prefixBytes" | "maxScanBytes">>): Scan {
	const scan: Scan = { entryLines: 0, bytes: 0, complete: false };
	let pending = Buffer.alloc(0);
	let offset = 0;
	let lineNo = 0;
	while (offset < size) {
		const want = offset === 0 ? opts.prefixBytes : Math.min(opts.prefixBytes, opts.maxScanBytes - offset);
		if (want <= 0) break;
		const chunk = scratch("prefix", want);
		const got = readSync(fd, chunk, 0, Math.min(want, size - offset), offset);
		if (got <= 0) break;
		offset += got;
		const buf = pending.length ? Buffer.concat([pending, chunk.subarray(0, got)]) : chunk.subarray(0, got);
		// The two markers are looked up once per chunk, not once per line: most lines carry neither.
		let nextUser = scan.firstUserMessage === undefined ? buf.indexOf(USER_BYTES) : -1;
		let nextInfo = buf.indexOf(SESSION_INFO_BYTES);
		let start = 0;
		for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
			const line = buf.subarray(start, nl);
			scan.bytes += nl + 1 - start;
			start = nl + 1;
			if (isBlank(line)) continue;
			lineNo++;
			const hasUser = nextUser >= 0 && nextUser < nl;
			const hasInfo = nextInfo >= 0 && nextInfo < nl;
			handleLine(scan, line, lineNo, hasUser, hasInfo);
			if (hasUser) nextUser = scan.firstUserMessage === undefined ? buf.indexOf(USER_BYTES, start) : -1;
			if (hasInfo) nextInfo = buf.indexOf(SESSION_INFO_BYTES, start);
		}
		// Copied: the chunk is the scratch buffer the next read overwrites.
		pending = Buffer.from(buf.subarray(start));
		if (scan.headerError !== undefined || (scan.header !== undefined && scan.firstUserMessage !== undefined)) break;
	}
	if (offset >= size) {
		// The last line may lack its "\n" (pi does not fsync mid-line, crashes cut lines).
		if (pending.length > 0) {
			scan.bytes += pending.length;
			if (!isBlank(pending)) handleLine(scan, pending, ++lineNo, pending.indexOf(USER_BYTES) >= 0, pending.indexOf(SESSION_INFO_BYTES) >= 0);
		}
		scan.complete = true;
	}
	return scan;
}

function isBlank(line: Buffer): boolean {
	for (let i = 0; i < line.length; i++) {
		const c = line[i];
		if (c !== 32 && c !== 9 && c !== 13) return false;
	}
	return true;
}

// Lines stay bytes unless they may matter: most lines are assistant turns and tool results that only count.
// `hasUser` / `hasInfo`: the line contains the `"user"` / `"session_info"` marker.
function handleLine(scan: Scan, line: Buffer, lineNo: number, hasUser: boolean, hasInfo: boolean): void {
	if (scan.header === undefined && scan.headerError === undefined) {
		const obj = parseObject(line.toString("utf8"));
		if (lineNo === 1 && obj && isTitleRecord(obj)) {
			scan.titleSlot = typeof obj.title === "string" ? obj.title : "";
			return;
		}
		if (obj?.type === "session" && typeof obj.id === "string") scan.header = obj;
		else scan.headerError = `line ${lineNo}: not a session header`;
		return;
	}
	scan.entryLines++;
	if (scan.firstUserMessage === undefined && hasUser) {
		const obj = parseObject(line.toString("utf8"));
		const msg = obj?.type === "message" && typeof obj.message === "object" && obj.message !== null ? (obj.message as Loose) : undefined;
		if (msg?.role === "user") scan.firstUserMessage = oneLine(userText(msg.content));
	}
	if (hasInfo) {
		const obj = parseObject(line.toString("utf8"));
		if (obj?.type === "session_info") scan.sessionName = typeof obj.name === "string" ? obj.name.trim() : "";
	}
}

interface TailScan {
	/** Latest session_info name in the tail (pi's session name), if one is there. */
	name?: string;
	/** Complete lines in the tail and the bytes they span: a second sample for the entry-count estimate. */
	lines: number;
	bytes: number;
}

function scanTail(fd: number, size: number, tailBytes: number): TailScan {
	const len = Math.min(tailBytes, size);
	const buf = scratch("tail", len);
	const got = readSync(fd, buf, 0, len, size - len);
	const tail = buf.subarray(0, got);
	const first = tail.indexOf(10);
	const out: TailScan = { lines: 0, bytes: 0 };
	if (first >= 0) {
		for (let nl = tail.indexOf(10, first + 1); nl >= 0; nl = tail.indexOf(10, nl + 1)) out.lines++;
		out.bytes = tail.length - first - 1;
		if (tail[tail.length - 1] !== 10 && out.bytes > 0) out.lines++;
	}
	// Only the lines that name "session_info" are decoded: the rest of the tail stays bytes.
	for (let at = tail.indexOf(SESSION_INFO_BYTES); at >= 0; at = tail.indexOf(SESSION_INFO_BYTES, at + 1)) {
		const lineStart = at === 0 ? 0 : tail.lastIndexOf(10, at - 1) + 1;
		if (lineStart === 0 && size > len) continue; // cut line
		const lineEnd = tail.indexOf(10, at);
		const obj = parseObject(tail.toString("utf8", lineStart, lineEnd < 0 ? tail.length : lineEnd));
		if (obj?.type === "session_info") out.name = typeof obj.name === "string" ? obj.name.trim() : "";
	}
	return out;
}

function readErrorText(err: unknown): string {
	const code = typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
	if (code === "EACCES" || code === "EPERM") return "permission denied";
	if (code === "ENOENT") return "file disappeared";
	return errorText(err);
}

/**
 * A file's session header read by the listing's own rule (omp's title slot on the first line is skipped;
 * a BOM or any other first line is no header), from at most `maxBytes` of its start. null when there is none.
 */
export function readSessionHeader(file: string, maxBytes = 64 * 1024): Record<string, unknown> | null {
	let fd: number;
	try {
		fd = openSync(file, "r");
	} catch {
		return null;
	}
	try {
		const scan = scanPrefix(fd, fstatSync(fd).size, { prefixBytes: maxBytes, maxScanBytes: maxBytes });
		return scan.header ?? null;
	} catch {
		return null;
	} finally {
		closeSync(fd);
	}
}

/** Describe one session file from its header, a bounded prefix, its tail and its size. */
export function describeSessionFile(file: string, source: SessionSource, options: LibraryOptions = {}): SessionListItem {
	const home = options.home ?? homedir();
	const tmp = options.tmp ?? tmpdir();
	const folderProject = decodeProjectDir(basename(dirname(file)), home, tmp);
	const item: SessionListItem = {
		path: file,
		project: folderProject ?? dirname(file),
		source,
		sessionId: null,
		title: null,
		firstUserMessage: null,
		mtimeMs: 0,
		modifiedMs: 0,
		size: 0,
		entryCount: 0,
		entryCountExact: false,
	};
	let fd: number;
	try {
		fd = openSync(file, "r");
	} catch (err) {
		item.error = readErrorText(err);
		return item;
	}
	try {
		const st = fstatSync(fd);
		item.mtimeMs = st.mtimeMs;
		item.modifiedMs = st.mtimeMs;
		item.size = st.size;
		if (st.size === 0) {
			item.error = "empty file";
			item.entryCountExact = true;
			return item;
		}
		const scan = scanPrefix(fd, st.size, {
			prefixBytes: options.prefixBytes ?? PREFIX_BYTES,
			maxScanBytes: Math.max(options.maxScanBytes ?? MAX_SCAN_BYTES, options.prefixBytes ?? PREFIX_BYTES),
		});
		if (!scan.header) {
			item.error = scan.headerError ?? "no session header in the first bytes";
			return item;
		}
		const h = scan.header;
		item.sessionId = h.id as string;
		if (typeof h.cwd === "string" && h.cwd) item.project = h.cwd;
		item.firstUserMessage = scan.firstUserMessage ?? null;
		item.modifiedMs = sessionModifiedMs(lastActivityTime(fd, st.size), h, st.mtimeMs);
		const tail = scan.complete ? undefined : scanTail(fd, st.size, options.tailBytes ?? TAIL_BYTES);
		const name = tail?.name ?? scan.sessionName;
		// omp's title slot overrides its header title; pi's session_info name is the fallback.
		const title = scan.titleSlot || (typeof h.title === "string" ? h.title : "") || name || "";
		item.title = title ? oneLine(title) : null;
		const headerLines = scan.titleSlot !== undefined ? 2 : 1;
		if (scan.complete) {
			item.entryCount = scan.entryLines;
			item.entryCountExact = true;
		} else if (st.size <= (options.exactCountBytes ?? EXACT_COUNT_BYTES)) {
			item.entryCount = Math.max(0, countLines(fd, st.size) - headerLines);
			item.entryCountExact = true;
		} else {
			// Average line size from two samples, the start and the end of the file: early lines (header,
			// prompts) run short and late ones carry the tool output, so either alone is biased.
			const headerShare = scan.titleSlot !== undefined ? 2 : 1;
			const lines = scan.entryLines + headerShare + (tail?.lines ?? 0);
			const bytes = scan.bytes + (tail?.bytes ?? 0);
			item.entryCount = Math.max(scan.entryLines + (tail?.lines ?? 0), Math.round((lines / Math.max(bytes, 1)) * st.size) - headerShare);
		}
		return item;
	} catch (err) {
		item.error = readErrorText(err);
		return item;
	} finally {
		closeSync(fd);
	}
}

export interface ExactCount {
	path: string;
	entryCount: number;
	/** Size and mtime the count is for (the file as it was when counting began). */
	size: number;
	mtimeMs: number;
}

/**
 * The exact entry count of a (large) session file, as cooperative steps: one `yield` per 1 MB read, so
 * the app refines the library's "≈" counts in the background without holding up other requests. Counts
 * the bytes the file had when it started; null when the file cannot be read or has no header.
 */
export function* exactEntryCountSteps(file: string, options: Pick<LibraryOptions, "prefixBytes" | "maxScanBytes"> = {}): Generator<void, ExactCount | null> {
	let fd: number;
	try {
		fd = openSync(file, "r");
	} catch {
		return null;
	}
	try {
		const st = fstatSync(fd);
		const scan = scanPrefix(fd, st.size, {
			prefixBytes: options.prefixBytes ?? PREFIX_BYTES,
			maxScanBytes: Math.max(options.maxScanBytes ?? MAX_SCAN_BYTES, options.prefixBytes ?? PREFIX_BYTES),
		});
		if (!scan.header) return null;
		const headerLines = scan.titleSlot !== undefined ? 2 : 1;
		// Its own buffer: other library calls run between the steps and reuse the scratch buffers.
		const buf = Buffer.allocUnsafe(Math.min(Math.max(st.size, 1), 1024 * 1024));
		const state = { lines: 0, inLine: false };
		for (let at = 0; at < st.size;) {
			const n = readSync(fd, buf, 0, Math.min(buf.length, st.size - at), at);
			if (n <= 0) break;
			countInto(buf, n, state);
			at += n;
			yield;
		}
		if (state.inLine) state.lines++;
		return { path: file, entryCount: Math.max(0, state.lines - headerLines), size: st.size, mtimeMs: st.mtimeMs };
	} catch {
		return null;
	} finally {
		closeSync(fd);
	}
}

/**
 * Counts non-empty lines in `buf[0, n)` into `state` (a line may continue from the previous read).
 * Newlines are found with the native `indexOf`; only the first bytes of each line are looked at to tell a
 * blank line (spaces, tabs, CRs) from an entry, which almost always starts with `{` at once.
 */
function countInto(buf: Buffer, n: number, state: { lines: number; inLine: boolean }): void {
	const view = n === buf.length ? buf : buf.subarray(0, n);
	let { lines, inLine } = state;
	let i = 0;
	while (i < n) {
		if (!inLine) {
			const b = view[i];
			if (b !== 10 && b !== 13 && b !== 32 && b !== 9) inLine = true;
			else {
				i++;
				continue;
			}
		}
		const nl = view.indexOf(10, i);
		if (nl < 0) break;
		lines++;
		inLine = false;
		i = nl + 1;
	}
	state.lines = lines;
	state.inLine = inLine;
}

/** Non-empty lines of a file, counted on bytes in 1 MB reads (no decoding, no parsing). */
function countLines(fd: number, size: number): number {
	const buf = scratch("tail", Math.min(size, 1024 * 1024));
	const state = { lines: 0, inLine: false };
	for (let at = 0; at < size;) {
		const n = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
		if (n <= 0) break;
		countInto(buf, n, state);
		at += n;
	}
	return state.inLine ? state.lines + 1 : state.lines;
}

function jsonlIn(dir: string, realRoot: string): string[] {
	let list: Dirent[];
	try {
		list = readdirSync(dir, { withFileTypes: true });
	} catch {
		return [];
	}
	return list
		.filter((d) => d.name.endsWith(".jsonl") && (d.isFile() || (d.isSymbolicLink() && linksInside(join(dir, d.name), realRoot))))
		.map((d) => join(dir, d.name));
}

/**
 * A symlinked session file is listed only when it points inside the folder being listed: listing a
 * folder must not read (and show the first message of) a file elsewhere that a link happens to name.
 */
function linksInside(link: string, realRoot: string): boolean {
	try {
		const target = realpathSync(link);
		return target.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
	} catch {
		return false;
	}
}

/** Session files in a root: `*.jsonl` directly in it and one folder level down (pi/omp project folders). */
export function sessionFilesIn(root: string): string[] {
	let realRoot = root;
	try {
		realRoot = realpathSync(root);
	} catch {
		return [];
	}
	const files = jsonlIn(root, realRoot);
	let list: Dirent[];
	try {
		list = readdirSync(root, { withFileTypes: true });
	} catch {
		return files;
	}
	for (const d of list) if (d.isDirectory()) files.push(...jsonlIn(join(root, d.name), realRoot));
	return files;
}

/**
 * All sessions under the given folders (source "dir") or pi's and omp's default roots, newest first.
 * Unreadable files are listed with `error`.
 */
export function listSessions(dirs?: string[], options: LibraryOptions = {}): SessionListItem[] {
	const roots: SessionRoot[] =
		dirs && dirs.length > 0
			? dedupeRoots(dirs.map((d) => ({ dir: resolve(expandHome(d, options.home ?? homedir())), source: "dir" as const })))
			: defaultSessionRoots(options);
	const seen = new Set<string>();
	const items: SessionListItem[] = [];
	// Resolved once: os.homedir()/tmpdir() read the environment on every call.
	const opts: LibraryOptions = { ...options, home: options.home ?? homedir(), tmp: options.tmp ?? tmpdir() };
	for (const root of roots) {
		for (const file of sessionFilesIn(root.dir)) {
			if (seen.has(file)) continue;
			seen.add(file);
			items.push(describeSessionFile(file, root.source, opts));
		}
	}
	items.sort((a, b) => b.modifiedMs - a.modifiedMs || a.path.localeCompare(b.path));
	return items;
}

export interface ProjectGroup {
	project: string;
	/** Newest first. */
	sessions: SessionListItem[];
}

/** Sessions grouped by project; groups ordered by their newest session. */
export function groupByProject(items: SessionListItem[]): ProjectGroup[] {
	const groups = new Map<string, SessionListItem[]>();
	for (const item of items) {
		const list = groups.get(item.project);
		if (list) list.push(item);
		else groups.set(item.project, [item]);
	}
	const out = [...groups].map(([project, sessions]) => ({ project, sessions: sessions.sort((a, b) => b.modifiedMs - a.modifiedMs) }));
	out.sort((a, b) => b.sessions[0].modifiedMs - a.sessions[0].modifiedMs || a.project.localeCompare(b.project));
	return out;
}
