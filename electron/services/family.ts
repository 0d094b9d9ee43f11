// The session family: files linked by their headers' `parentSession` — pi's /fork and /clone and its
// createBranchedSession, Arbor's branch-to-file, omp's /fork and /branch — drawn as one tree of files.
//
// Link rules (read from pi 1.6 and omp 18.3, docs/cli.md "arbor family"):
// - `parentSession` holds the parent's file path (pi; omp's createBranchedSession; Arbor) or the parent's
//   session id (omp's fork() and forkFrom()). Both are resolved: a path first, then an id.
// - omp's `previousSessionFiles` lists the paths a session's file had before omp moved it: a child whose
//   `parentSession` names one of them belongs to the moved file. Older Arbor/pi builds wrote `branchedFrom`.
// - branchedAtEntryId: a branched file copies the parent's path root -> branch entry with the same ids, so
//   the branch point is the last entry, in the child's file order, of the leading run of the child's ids
//   that also exist in the parent. A child with no shared ids (pi's /fork from the first prompt writes an
//   empty file that only names its parent) has branchedAtEntryId null.
//
// Cost: every candidate file is read only up to its first line (the header). Only the family's own members
// are scanned further, and that scan reads line starts for their `id` (no JSON parse of entries unless a
// line does not begin with its id), never building the tree.

import { closeSync, existsSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { FamilyMember, SessionFamily } from "../../shared/api";
import { contentText } from "../../shared/content-text";
import { lineageOf } from "../session";
import { type LibraryOptions, defaultSessionRoots, describeSessionFile, readSessionHeader, sessionFilesIn } from "../session/library";

/** The shapes are the API's (`arbor family --json`, docs/cli.md). */
export type { FamilyMember };
export type Family = SessionFamily;

interface HeaderFacts {
	path: string;
	id: string | null;
	parent: string | null;
	previous: string[];
	timestamp: string | null;
}

const HEADER_MAX = 64 * 1024;

function realOrResolved(p: string): string {
	try {
		return realpathSync(p);
	} catch {
		return resolve(p);
	}
}

/** The header facts of a file (the listing's header rule: omp's title slot skipped), or null. */
export function readHeaderFacts(file: string): HeaderFacts | null {
	const h = readSessionHeader(file, HEADER_MAX);
	if (!h) return null;
	const lineage = lineageOf(h);
	const parent = lineage?.file ?? lineage?.sessionId ?? null;
	return {
		path: file,
		id: typeof h.id === "string" ? h.id : null,
		parent,
		previous: lineage?.previousFiles ?? [],
		timestamp: typeof h.timestamp === "string" ? h.timestamp : null,
	};
}

const ID_PREFIX_BYTES = 256;

function headerOrTitleSlot(line: Buffer): boolean {
	try {
		const t = (JSON.parse(line.toString("utf8")) as { type?: unknown }).type;
		return t === "session" || t === "title";
	} catch {
		return false;
	}
}

/**
 * The `id` of every entry line after the header, in file order. `visit` sees each entry line with its id
 * and may end the scan early by returning true.
 */
export function entryIdsInOrder(file: string, visit?: (id: string, line: Buffer) => boolean): string[] {
	const ids: string[] = [];
	let stop = false;
	const push = (id: string, line: Buffer): void => {
		ids.push(id);
		if (visit?.(id, line)) stop = true;
	};
	let fd: number;
	try {
		fd = openSync(file, "r");
	} catch {
		return ids;
	}
	try {
		const chunk = Buffer.alloc(1 << 20);
		let carry: Buffer<ArrayBufferLike> = Buffer.alloc(0);
		let pos = 0;
		let lineNo = 0;
		const onLine = (line: Buffer) => {
			if (line.length === 0) return;
			lineNo++;
			// The header, and omp's title slot before it, carry ids that are not entries.
			if (lineNo <= 2 && headerOrTitleSlot(line)) return;
			const head = line.toString("utf8", 0, Math.min(line.length, ID_PREFIX_BYTES));
			const m = /^\{\s*"type"\s*:\s*"[^"]*"\s*,\s*"id"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(head) ?? /^\{\s*"id"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(head);
			if (m) {
				push(m[1], line);
				return;
			}
			try {
				const o = JSON.parse(line.toString("utf8")) as { id?: unknown };
				if (typeof o.id === "string") push(o.id, line);
			} catch {
				// A torn or foreign line carries no id.
			}
		};
		while (!stop) {
			const n = readSync(fd, chunk, 0, chunk.length, pos);
			if (n <= 0) break;
			pos += n;
			let data: Buffer<ArrayBufferLike> = carry.length ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
			let start = 0;
			while (!stop) {
				const nl = data.indexOf(10, start);
				if (nl < 0) break;
				onLine(data.subarray(start, nl));
				start = nl + 1;
			}
			carry = Buffer.from(data.subarray(start));
			data = carry;
		}
		if (carry.length && !stop) onLine(carry);
	} finally {
		closeSync(fd);
	}
	return ids;
}

/** "role: first words" of an entry line (its type when it is not a message). */
function lineText(e: { type?: unknown; message?: { role?: unknown; content?: unknown } }): string {
	if (e.type !== "message") return `[${String(e.type)}]`;
	const text = contentText(e.message?.content, " ").replace(/\s+/g, " ").trim().slice(0, 200);
	return `${String(e.message?.role)}: ${text}`;
}

/**
 * What tells a fork apart, read from the fork's own file in one scan: the text of the entry it branched at
 * (the last one it shares with its parent) and of its first user message after that.
 */
export function forkFacts(
	file: string,
	parentIds: ReadonlySet<string>,
	branchedAt: string | null,
): { firstPrompt: string | null; branchedAtText: string | null } {
	let firstPrompt: string | null = null;
	let branchedAtText: string | null = null;
	entryIdsInOrder(file, (id, line) => {
		const atFork = id === branchedAt;
		if (!atFork && (parentIds.has(id) || !line.includes('"user"'))) return false;
		try {
			const e = JSON.parse(line.toString("utf8")) as { type?: unknown; message?: { role?: unknown; content?: unknown } };
			if (atFork) branchedAtText = lineText(e);
			else if (e.type === "message" && e.message?.role === "user") firstPrompt = lineText(e).replace(/^user: /, "");
		} catch {
			// A torn line says nothing.
		}
		return firstPrompt !== null;
	});
	return { firstPrompt, branchedAtText };
}

/** The branch point rule above: last id of the child's leading run of ids the parent also has. */
export function branchPoint(childIds: string[], parentIds: Set<string>): string | null {
	let last: string | null = null;
	for (const id of childIds) {
		if (!parentIds.has(id)) break;
		last = id;
	}
	return last;
}

function jsonlDirect(dir: string): string[] {
	try {
		return readdirSync(dir, { withFileTypes: true })
			.filter((d) => d.isFile() && d.name.endsWith(".jsonl"))
			.map((d) => join(dir, d.name));
	} catch {
		return [];
	}
}

export interface FamilyScope {
	/**
	 * May this file (a realpath) be read: its header, title and entries? A file it refuses is never read: it
	 * can appear only as the `outside` parent an allowed file's header names, with nothing but its path.
	 */
	mayRead(path: string): Promise<boolean>;
	/**
	 * Also look in pi's and omp's session folders. Their files count as readable too (the host's library
	 * offers them without asking: the Electron app); the caller must treat them as listed by the library.
	 */
	library: boolean;
}

export interface FamilyOptions extends LibraryOptions {
	/** Extra folders to search (besides the file's own folder and pi's / omp's session folders). */
	dirs?: string[];
	/** What a request through the API may see (the path policy). Without it (the CLI), every file is readable. */
	scope?: FamilyScope;
}

function insideAny(p: string, dirs: readonly string[]): boolean {
	return dirs.some((d) => p.startsWith(d.endsWith(sep) ? d : d + sep));
}

/** The family of `file`: its root ancestor and every file descending from it, root first. */
export async function sessionFamily(file: string, options: FamilyOptions = {}): Promise<Family> {
	const start = realOrResolved(file);
	if (!existsSync(start) || !statSync(start).isFile()) throw new Error(`no such file: ${file}`);
	const scope = options.scope;
	const searchLibrary = !scope || scope.library;
	const libraryDirs = searchLibrary ? defaultSessionRoots(options).map((r) => realOrResolved(r.dir)) : [];
	// The rule of the whole walk: a file is read only when the scope allows it. A header naming another file
	// never makes that file readable (issue #23: the family must not widen the path policy).
	const readable = new Map<string, boolean>();
	const mayRead = async (p: string): Promise<boolean> => {
		if (!scope) return true;
		let ok = readable.get(p);
		if (ok === undefined) {
			ok = (scope.library && insideAny(p, libraryDirs)) || (await scope.mayRead(p));
			readable.set(p, ok);
		}
		return ok;
	};
	if (!(await mayRead(start))) throw new Error(`not allowed to read ${file}`);
	const startFacts = readHeaderFacts(start);
	if (!startFacts) throw new Error(`${file}: line 1 is not a session header`);

	const candidates = new Set<string>([start]);
	for (const f of jsonlDirect(dirname(start))) candidates.add(realOrResolved(f));
	for (const d of options.dirs ?? []) for (const f of sessionFilesIn(d)) candidates.add(realOrResolved(f));
	for (const d of libraryDirs) for (const f of sessionFilesIn(d)) candidates.add(realOrResolved(f));

	const facts = new Map<string, HeaderFacts>();
	const outside = new Set<string>();
	const byId = new Map<string, string>();
	const byAlias = new Map<string, string>();
	const add = (p: string, f: HeaderFacts) => {
		facts.set(p, f);
		if (f.id && !byId.has(f.id)) byId.set(f.id, p);
		for (const prev of f.previous) byAlias.set(resolve(prev), p);
	};
	add(start, startFacts);
	for (const p of candidates) {
		if (facts.has(p) || !(await mayRead(p))) continue;
		const f = readHeaderFacts(p);
		if (f) add(p, f);
	}

	// The parent of one file, by path (its own, an alias from a move) or by session id. A parent outside the
	// searched folders is still followed when the path exists and may be read; one that may not be read is
	// named (it exists) and nothing more: no header, no title, no entries, no parent of its own.
	const parentOf = async (f: HeaderFacts): Promise<string | null> => {
		if (!f.parent) return null;
		const ref = f.parent;
		const asPath = isAbsolute(ref) ? ref : resolve(dirname(f.path), ref);
		const real = realOrResolved(asPath);
		if (facts.has(real) || outside.has(real)) return real;
		const alias = byAlias.get(resolve(asPath));
		if (alias) return alias;
		const byIdHit = byId.get(ref);
		if (byIdHit) return byIdHit;
		if (ref.endsWith(".jsonl") && existsSync(real)) {
			if (!(await mayRead(real))) {
				if (!statSync(real).isFile()) return null;
				outside.add(real);
				return real;
			}
			const pf = readHeaderFacts(real);
			if (pf) {
				add(real, pf);
				return real;
			}
		}
		return null;
	};

	const parents = new Map<string, string | null>();
	for (const [p, f] of [...facts]) parents.set(p, await parentOf(f));
	// Live iteration: a parent found above joins `facts` and is walked in turn (up to the root).
	for (const [p, f] of facts) if (!parents.has(p)) parents.set(p, await parentOf(f));
	for (const p of outside) parents.set(p, null);

	// Up to the root (guarding against a cycle), then every descendant.
	let root = start;
	const seenUp = new Set<string>([start]);
	for (;;) {
		const up = parents.get(root) ?? null;
		if (!up || seenUp.has(up)) break;
		seenUp.add(up);
		root = up;
	}
	const children = new Map<string, string[]>();
	for (const [p, parent] of parents) {
		if (!parent || parent === p) continue;
		const list = children.get(parent);
		if (list) list.push(p);
		else children.set(parent, [p]);
	}
	const order: string[] = [];
	const seen = new Set<string>();
	const stack = [root];
	while (stack.length) {
		const p = stack.pop() as string;
		if (seen.has(p)) continue;
		seen.add(p);
		order.push(p);
		const kids = (children.get(p) ?? [])
			.slice()
			.sort((a, b) => (facts.get(a)?.timestamp ?? "").localeCompare(facts.get(b)?.timestamp ?? "") || a.localeCompare(b));
		for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
	}

	const idCache = new Map<string, string[]>();
	const idsOf = (p: string) => {
		let ids = idCache.get(p);
		if (!ids) {
			ids = entryIdsInOrder(p);
			idCache.set(p, ids);
		}
		return ids;
	};
	const members = order.map((p): FamilyMember => {
		const parentPath = p === root ? null : (parents.get(p) ?? null);
		if (outside.has(p)) {
			return {
				path: p,
				parentPath,
				branchedAtEntryId: null,
				sessionId: null,
				title: null,
				firstPrompt: null,
				branchedAtText: null,
				entries: null,
				createdAt: null,
				outside: true,
			};
		}
		const f = facts.get(p) as HeaderFacts;
		const item = describeSessionFile(p, "dir", options);
		let branchedAtEntryId: string | null = null;
		let firstPrompt: string | null = item.firstUserMessage ?? null;
		let branchedAtText: string | null = null;
		let entries = item.entryCount;
		if (parentPath) {
			const childIds = idsOf(p);
			entries = childIds.length;
			// The branch point compares with the parent's ids: unknown when the parent may not be read.
			if (!outside.has(parentPath)) {
				const parentIds = new Set(idsOf(parentPath));
				branchedAtEntryId = branchPoint(childIds, parentIds);
				// A fork starts with its parent's messages: what tells forks apart is where it left the parent and
				// its first own message.
				({ firstPrompt, branchedAtText } = forkFacts(p, parentIds, branchedAtEntryId));
			}
		} else entries = idsOf(p).length;
		return { path: p, parentPath, branchedAtEntryId, sessionId: f.id, title: item.title ?? null, firstPrompt, branchedAtText, entries, createdAt: f.timestamp };
	});
	return { members };
}
