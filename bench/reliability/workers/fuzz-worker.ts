// Fuzz worker: receives one hostile file at a time over IPC, runs every session-core call on it (read-only
// calls on the file itself, writing calls on a copy), and answers with counts. The parent kills and
// replaces this process when a file takes longer than its time bound (a hang) or the process dies (a crash).

import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { FILTER_MODES } from "../../../shared/api";
import { EntryFlag, EntryKind, type Skeleton } from "../../../shared/skeleton";
import { computeTreeView } from "../../../shared/tree-view";
import { buildTreeJson, renderTreeLines } from "../../../shared/tree-text";
import { encodeWire } from "../../../shared/wire";
import { SessionManager } from "../../../electron/session/index";
import { checkAppendOnly, describeError, entryKey, isTypedError, rng, sha256 } from "./common";

export interface FuzzJob {
	file: string;
	workDir: string;
	seed: string;
}
export interface FuzzResult {
	file: string;
	calls: number;
	typedErrors: number;
	crashes: string[];
	violations: string[];
	/** Results the wire codec could not encode: the browser host answers those requests with "internal". */
	unsendable: string[];
	/** Slowest duration per call name, ms (diagnostics for hangs and time bounds). */
	slowest: Record<string, number>;
	opened: boolean;
	entries: number;
	ms: number;
}

type Rng = ReturnType<typeof rng>;

function runJob(job: FuzzJob): FuzzResult {
	const t0 = performance.now();
	const res: FuzzResult = {
		file: job.file,
		calls: 0,
		typedErrors: 0,
		crashes: [],
		violations: [],
		unsendable: [],
		slowest: {},
		opened: false,
		entries: 0,
		ms: 0,
	};
	const r = rng(`${job.seed}:${basename(job.file)}`);
	/** Runs one API call: a result or a typed error is fine, anything else is a crash. */
	const call = <T>(name: string, fn: () => T): T | undefined => {
		res.calls++;
		const t = performance.now();
		try {
			return fn();
		} catch (err) {
			if (isTypedError(err)) res.typedErrors++;
			else if (name.startsWith("wire ")) res.unsendable.push(`${name}: ${describeError(err)}`);
			else res.crashes.push(`${name}: ${describeError(err)}`);
			return undefined;
		} finally {
			const ms = performance.now() - t;
			res.slowest[name] = Math.max(res.slowest[name] ?? 0, Math.round(ms));
		}
	};
	const original = readFileSync(job.file);
	const hashBefore = sha256(original);

	// ---- read-only calls on the input file itself
	const sm = call("open", () => SessionManager.open(job.file));
	let originalEntries: string[] = [];
	let originalSkeleton: Skeleton | undefined;
	if (sm) {
		res.opened = true;
		originalSkeleton = readAll(sm, r, call);
		originalEntries = (call("getEntries", () => sm.getEntries()) ?? []).map(entryKey);
		res.entries = originalEntries.length;
		call("close", () => sm.close());
	}
	if (sha256(readFileSync(job.file)) !== hashBefore) res.violations.push("input file changed by read-only calls");

	// ---- writing calls on a copy
	mkdirSync(job.workDir, { recursive: true });
	const copy = join(job.workDir, basename(job.file));
	copyFileSync(job.file, copy);
	const w = call("open copy", () => SessionManager.open(copy));
	if (w) {
		let upgraded = false;
		const legacy = call("needsUpgrade", () => w.needsUpgrade()) === true;
		if (legacy) {
			// The first write to a legacy file must be refused until the user opts in.
			res.calls++;
			try {
				w.appendLabelChange(w.getEntries()[0] && typeof w.getEntries()[0]?.id === "string" ? String(w.getEntries()[0]?.id) : "x", "fuzz");
				res.violations.push("write to a legacy file was not refused before upgradeLegacy()");
			} catch (err) {
				if (isTypedError(err) && (err as { code?: string }).code === "legacy_needs_upgrade") res.typedErrors++;
				else if (!isTypedError(err)) res.crashes.push(`legacy write: ${describeError(err)}`);
				else res.typedErrors++;
			}
			const bak = call("upgradeLegacy", () => w.upgradeLegacy());
			if (bak !== undefined) {
				upgraded = true;
				if (!existsSync(bak) || Buffer.compare(readFileSync(bak), original) !== 0) res.violations.push("upgrade backup differs from the original bytes");
			}
		}
		const beforeWrites = readFileSync(copy);
		const sk = call("getSkeleton", () => w.getSkeleton());
		const ids = sk ? sk.ids.filter((_, i) => !(sk.flags[i]! & EntryFlag.syntheticId)) : [];
		const some = () => (ids.length ? r.pick(ids) : undefined);
		let writes = 0;
		const write = (name: string, fn: () => unknown) => {
			if (call(name, fn) !== undefined) writes++;
		};
		const target = some();
		if (target !== undefined) {
			write("appendLabelChange", () => w.appendLabelChange(target, "fuzz <b>label</b>"));
			write("appendLabelChange(clear)", () => w.appendLabelChange(target, undefined));
			call("branch", () => w.branch(target));
		}
		write("appendMessage", () => w.appendMessage({ role: "user", content: [{ type: "text", text: "fuzz message" }], timestamp: 1_700_000_000_000 }));
		const from = some();
		write("branchWithSummary", () => w.branchWithSummary(from ?? null, "fuzz summary"));
		write("appendCustomEntry", () => w.appendCustomEntry("arbor.position", { leaf: from ?? null }));
		const afterWrites = readFileSync(copy);
		if (!upgraded) {
			const check = checkAppendOnly(beforeWrites, afterWrites);
			if ("violation" in check) res.violations.push(`append: ${check.violation}`);
			else if (check.lines !== writes && !(check.lines === writes + 1 && addedHeader(beforeWrites, afterWrites))) {
				res.violations.push(`append: ${writes} successful writes but ${check.lines} new lines`);
			}
		}
		// The copy must still load with every original entry intact (same order, same content).
		const re = call("reopen copy", () => SessionManager.open(copy));
		if (re) {
			const reSk = call("reopen getSkeleton", () => re.getSkeleton());
			const after = (call("reopen getEntries", () => re.getEntries()) ?? []).map(entryKey);
			const before = originalEntries;
			if (after.length < before.length) res.violations.push(`reopened copy has ${after.length} entries, original had ${before.length}`);
			else {
				// v1 ids are minted at each load (and an upgrade writes them): compare legacy files without ids.
				const key = upgraded || legacy ? withoutIds : (s: string) => s;
				for (let i = 0; i < before.length; i++) {
					const synthetic = (originalSkeleton && originalSkeleton.flags[i]! & EntryFlag.syntheticId) || (reSk && reSk.flags[i]! & EntryFlag.syntheticId);
					if (!synthetic && key(before[i]!) !== key(after[i]!)) {
						res.violations.push(`entry ${i} differs after writes`);
						break;
					}
				}
			}
			call("reopen close", () => re.close());
		} else if (res.opened) res.violations.push("the copy no longer opens after Arbor wrote to it");

		// Branch to a new file from a user message (pi's /branch) and from any entry.
		const userIdx = sk ? [...sk.kind.keys()].filter((i) => sk.kind[i] === EntryKind.user && !(sk.flags[i]! & EntryFlag.syntheticId)) : [];
		const branchFrom = userIdx.length ? sk!.ids[r.pick(userIdx)] : some();
		if (branchFrom !== undefined) {
			const dirBefore = new Set(readdirSync(job.workDir));
			const newPath = call("createBranchedSession", () => w.createBranchedSession(branchFrom));
			if (typeof newPath === "string") {
				const nb = call("open branched file", () => SessionManager.open(newPath));
				if (!nb) res.violations.push("branched file does not open");
				else {
					const path = nb.getBranch().map((e) => e.id);
					// pi drops label entries from a branched path (it re-creates labels for the entries they
					// name), so a label as branch point is checked through its nearest non-label ancestor.
					const expected = (call("getBranch(branch point)", () => w.getBranch(branchFrom)) ?? []).filter((e) => e.type !== "label").at(-1)?.id;
					if (expected === undefined ? path.length > 0 : !path.includes(expected)) res.violations.push("branched file's active path lacks the branch point");
					call("branched close", () => nb.close());
				}
			}
			for (const f of readdirSync(job.workDir)) {
				if (!dirBefore.has(f) && f !== basename(String(newPath)) && !f.endsWith(".bak")) res.violations.push(`left a stray file ${f}`);
			}
		}
		call("close copy", () => w.close());
	}
	if (sha256(readFileSync(job.file)) !== hashBefore) res.violations.push("input file changed");
	if (!process.env.ARBOR_FUZZ_KEEP) rmSync(job.workDir, { recursive: true, force: true });
	res.ms = performance.now() - t0;
	return res;
}

type Call = <T>(name: string, fn: () => T) => T | undefined;

/** Every read-only call of the core, the tree view and the wire codec on one open session. */
function readAll(sm: SessionManager, r: Rng, call: Call): Skeleton | undefined {
	const reads: Record<string, () => unknown> = {
		getHeader: () => sm.getHeader(),
		getLeafId: () => sm.getLeafId(),
		getLeafEntry: () => sm.getLeafEntry(),
		getTree: () => sm.getTree(),
		getWarnings: () => sm.getWarnings(),
		getWarningCount: () => sm.getWarningCount(),
		getResumeLeafId: () => sm.getResumeLeafId(),
		getFileVersion: () => sm.getFileVersion(),
		needsUpgrade: () => sm.needsUpgrade(),
		getSessionId: () => sm.getSessionId(),
		getCwd: () => sm.getCwd(),
		getSessionFile: () => sm.getSessionFile(),
		getBranch: () => sm.getBranch(),
		context: () => sm.buildSessionContext(),
		contextNull: () => sm.buildSessionContext(null),
		catchUp: () => sm.catchUp(),
	};
	for (const [name, fn] of Object.entries(reads)) call(name, fn);
	const sk = call("getSkeleton", () => sm.getSkeleton());
	if (!sk) return undefined;
	call("wire skeleton", () => encodeWire({ t: "res", id: 1, ok: true, result: sk }));
	call("getSkeletonDelta(0)", () => sm.getSkeletonDelta(0));
	call("getSkeletonDelta(n)", () => sm.getSkeletonDelta(sk.count));
	const n = sk.count;
	const sample = new Set<number>([0, n - 1, sk.leaf, sk.resumeLeaf].filter((i) => i >= 0 && i < n));
	for (let k = 0; k < 24 && n; k++) sample.add(r.int(0, n - 1));
	for (const i of sample) {
		const id = sk.ids[i]!;
		const entry = call("getEntry", () => sm.getEntry(id));
		if (entry !== undefined) call("wire entry", () => encodeWire({ t: "res", id: 1, ok: true, result: entry }));
		call("indexOf", () => sm.indexOf(id));
		call("getChildren", () => sm.getChildren(id));
		call("getLabel", () => sm.getLabel(id));
		call("getBranch(id)", () => sm.getBranch(id));
		const ctx = call("buildSessionContext(id)", () => sm.buildSessionContext(id));
		if (ctx !== undefined) call("wire context", () => encodeWire({ t: "res", id: 1, ok: true, result: ctx }));
	}
	// Previews in pages of 2000, as the renderer asks for them (all of a small file, the ends of a big one).
	const pages: number[][] = [];
	if (n <= 200_000) for (let s = 0; s < n; s += 2000) pages.push(range(s, Math.min(n, s + 2000)));
	else pages.push(range(0, 2000), range(n - 2000, n));
	let previews: string[] = [];
	for (const p of pages) previews = previews.concat(call("getPreviews", () => sm.getPreviews(p)) ?? []);
	call("getPreviews(out of range)", () => sm.getPreviews([-1, n, n + 5, 1.5, Number.NaN]));
	const queries = ["", "a", "user", "assistant", "label", "  ", "[", ".*", "\u0000", "\ud800", "é", "x".repeat(5000)];
	for (let k = 0; k < 3 && previews.length; k++) queries.push(String(r.pick(previews)).slice(2, 12));
	let matches: number[] | undefined;
	for (const q of queries) for (const scope of ["pi", "full"] as const) matches = call(`search(${scope})`, () => sm.search(q, scope)) ?? matches;
	// Filters, search and folds through the shared tree view (what the renderer and the CLI draw).
	const folded = new Set<number>();
	for (let k = 0; k < 5 && n; k++) folded.add(r.int(0, n - 1));
	for (const filter of FILTER_MODES) {
		const v = call(`treeView(${filter})`, () => computeTreeView(sk, { filter }));
		call(`treeView(${filter}, search, folds)`, () => computeTreeView(sk, { filter, matches: new Set(matches ?? []), folded, leaf: r.int(-1, n - 1) }));
		if (v && v.rows.length <= 200_000) {
			const pv = previews.length === n ? previews : new Array<string>(n).fill("");
			call("renderTreeLines", () => renderTreeLines(v, pv));
			call("buildTreeJson", () => buildTreeJson(v));
		}
	}
	// Moving the leaf (writes nothing) and building context from there.
	for (const i of [...sample].slice(0, 8)) {
		call("branch", () => sm.branch(sk.ids[i]!));
		call("context after branch", () => sm.buildSessionContext());
	}
	call("resetLeaf", () => sm.resetLeaf());
	call("context after resetLeaf", () => sm.buildSessionContext());
	return sk;
}

/** A file without a valid session header gets one written before Arbor's first entry (whole line, old bytes kept). */
function addedHeader(before: Uint8Array, after: Uint8Array): boolean {
	const rest = Buffer.from(after.subarray(before.length)).toString("utf8").replace(/^\n/, "");
	try {
		const first: unknown = JSON.parse(rest.slice(0, rest.indexOf("\n")));
		return typeof first === "object" && first !== null && (first as { type?: unknown }).type === "session";
	} catch {
		return false;
	}
}

function withoutIds(key: string): string {
	return key.replace(/"(id|parentId|firstKeptEntryId|fromId|targetId)":("[^"]*"|null)/g, '"$1":_');
}

function range(a: number, b: number): number[] {
	const out: number[] = [];
	for (let i = a; i < b; i++) out.push(i);
	return out;
}

process.on("message", (job: FuzzJob) => {
	let result: FuzzResult;
	try {
		result = runJob(job);
	} catch (err) {
		result = {
			file: job.file,
			calls: 0,
			typedErrors: 0,
			crashes: [`harness: ${describeError(err)}`],
			violations: [],
			unsendable: [],
			slowest: {},
			opened: false,
			entries: 0,
			ms: 0,
		};
	}
	process.send?.(result);
});
process.send?.({ ready: true });
