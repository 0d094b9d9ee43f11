// Search over a session (pi's query rules, shared/preview.ts): users type incrementally, so repeated queries
// must not re-parse the file. The "pi" scope keeps one lower-cased searchable string per entry (built on the
// first query, extended as entries are appended); the "full" scope streams raw line bytes and parses only
// lines that contain every token, caching the decoded text of those. Labels change, so they are never baked
// into the cached strings: each entry's label is matched separately at query time.

import type { SearchScope } from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import { fullText, matchRank, queryTokens, rankedOrder, searchableText } from "../../shared/preview";
import { runSteps, runStepsCooperatively } from "./steps";

export interface SearchSource {
	count(): number;
	/** Entries [from, to) in batches (plain objects). */
	entries(indices: number[]): SessionEntry[];
	/** Current label of entry i (undefined when none). */
	label(i: number): string | undefined;
	/** True for entries whose full text may hold words that are not in their raw line bytes. */
	alwaysCandidate(i: number): boolean;
	/** Byte offset of the entry's line (-1 = only in memory). */
	offset(i: number): number;
	/** Streams raw lines of the given on-disk entries (file order): [index, start, end] within `chunk`. */
	scanRaw(indices: number[], visit: (chunk: Buffer, lines: [number, number, number][]) => void): void;
	/** Entry bodies stay on disk (large file): use the raw-byte prefilter for the full scope. */
	lazy(): boolean;
}

/** Entries parsed per step (a step is what a cooperative search does between two turns). */
const SLICE = 512;
/** File bytes streamed per step of the full-text prefilter. */
const SCAN_SLICE_BYTES = 4 * 1024 * 1024;
/** Decoded full texts kept for repeated queries (chars); beyond it, hits are re-parsed per query. */
const FULL_CACHE_CHARS = 64 * 1024 * 1024;

interface LastQuery {
	scope: SearchScope;
	tokens: string[];
	count: number;
	labels: number;
	result: number[];
}

export class SearchIndex {
	readonly #src: SearchSource;
	/** Lower-cased pi searchable text per entry, without the label. */
	#pi: string[] = [];
	#full = new Map<number, string>();
	#fullChars = 0;
	#last: LastQuery | undefined;
	/** Bumped by the manager whenever a label changes (a refinement of the last query is then not safe). */
	labelVersion = 0;

	constructor(src: SearchSource) {
		this.#src = src;
	}

	search(query: string, scope: SearchScope): number[] {
		return runSteps(this.#run(query, scope));
	}

	/**
	 * The same search, run in slices of about `sliceMs` with a macrotask turn between them, so a process
	 * that serves other requests (the app's main process) keeps answering them while a first query parses
	 * a 300 MB file. `stop()` is asked after every turn: when it says true the search ends early with
	 * undefined (a newer query superseded it, or the session was reloaded). Work already done (the search
	 * strings built so far, cached texts) is kept for the next query.
	 */
	searchCooperative(query: string, scope: SearchScope, opts: { sliceMs?: number; stop?: () => boolean } = {}): Promise<number[] | undefined> {
		return runStepsCooperatively(this.#run(query, scope), opts.sliceMs ?? 20, opts.stop);
	}

	/** The search as steps: each `yield` is a point where a cooperative caller may hand the thread back. */
	*#run(query: string, scope: SearchScope): Generator<void, number[]> {
		const tokens = queryTokens(query);
		const n = this.#src.count();
		if (tokens.length === 0) return Array.from({ length: n }, (_, i) => i);
		const labels = this.labelVersion;
		// Typing "foo" then "foob": every old token is inside a new one, so only the old hits (and entries
		// appended since) can match.
		const last = this.#last;
		let subset: number[] | undefined;
		if (last && last.scope === scope && last.labels === labels && last.count <= n && last.tokens.every((o) => tokens.some((t) => t.includes(o)))) {
			subset = last.result.slice();
			for (let i = last.count; i < n; i++) subset.push(i);
		}
		const ranks = new Map<number, number>();
		const found = scope === "full" ? yield* this.#searchFull(tokens, n, subset, ranks) : yield* this.#searchPi(tokens, n, subset, ranks);
		// Best matches first (an exact phrase, then every word whole), file order within a rank.
		const result = rankedOrder(found, (i) => ranks.get(i) ?? 0);
		this.#last = { scope, tokens, count: n, labels, result };
		return result.slice();
	}

	/** pi's rule: does entry i match? When it does, its rank goes into `ranks`. */
	#matches(i: number, text: string, tokens: string[], ranks: Map<number, number>): boolean {
		const label = this.#src.label(i);
		const l = label ? label.toLowerCase() : "";
		// A token (an unquoted word or a quoted phrase) must lie wholly in the text or in the label.
		for (const t of tokens) if (!text.includes(t) && !(l && l.includes(t))) return false;
		ranks.set(i, matchRank(tokens, l ? `${l} ${text}` : text));
		return true;
	}

	*#extendPi(n: number): Generator<void, void> {
		const pi = this.#pi;
		// pi.length is read again after every step: a cooperative run that was overtaken resumes where the
		// strings end now, not where it left off.
		for (let from = pi.length; from < n; from = Math.max(from + SLICE, pi.length)) {
			const idx: number[] = [];
			for (let i = from; i < Math.min(n, from + SLICE); i++) idx.push(i);
			const es = this.#src.entries(idx);
			for (let k = 0; k < idx.length; k++) pi[idx[k]] = searchableText(es[k]).toLowerCase();
			yield;
		}
	}

	*#searchPi(tokens: string[], n: number, subset: number[] | undefined, ranks: Map<number, number>): Generator<void, number[]> {
		yield* this.#extendPi(n);
		const pi = this.#pi;
		const out: number[] = [];
		if (subset) {
			for (const i of subset) if (this.#matches(i, pi[i], tokens, ranks)) out.push(i);
		} else {
			for (let i = 0; i < n; i++) if (this.#matches(i, pi[i], tokens, ranks)) out.push(i);
		}
		return out;
	}

	*#fullTexts(indices: number[]): Generator<void, string[]> {
		const out: string[] = new Array(indices.length);
		const missing: number[] = [];
		for (let k = 0; k < indices.length; k++) {
			const t = this.#full.get(indices[k]);
			if (t !== undefined) out[k] = t;
			else missing.push(k);
		}
		for (let b = 0; b < missing.length; b += SLICE) {
			const part = missing.slice(b, b + SLICE);
			const es = this.#src.entries(part.map((k) => indices[k]));
			part.forEach((k, j) => {
				const t = fullText(es[j]).toLowerCase();
				out[k] = t;
				if (this.#fullChars + t.length <= FULL_CACHE_CHARS && !this.#full.has(indices[k])) {
					this.#full.set(indices[k], t);
					this.#fullChars += t.length;
				}
			});
			yield;
		}
		return out;
	}

	*#searchFull(tokens: string[], n: number, subset: number[] | undefined, ranks: Map<number, number>): Generator<void, number[]> {
		let candidates: number[];
		// A refined query's subset comes in the last answer's rank order: scan it in file order.
		if (subset) candidates = subset.sort((a, b) => a - b);
		else if (!this.#src.lazy() || !tokens.every(rawSearchable)) candidates = Array.from({ length: n }, (_, i) => i);
		else candidates = yield* this.#prefilter(tokens, n);
		const texts = yield* this.#fullTexts(candidates);
		const out: number[] = [];
		for (let k = 0; k < candidates.length; k++) if (this.#matches(candidates[k], texts[k], tokens, ranks)) out.push(candidates[k]);
		return out;
	}

	/** Entries whose raw line bytes could hold every token (a superset of the matches), ascending. */
	*#prefilter(tokens: string[], n: number): Generator<void, number[]> {
		const src = this.#src;
		const mark = new Uint8Array(n);
		const onDisk: number[] = [];
		for (let i = 0; i < n; i++) {
			// Cached texts answer without the disk; labels and fixed words ("title") are not in the raw bytes.
			if (this.#full.has(i) || src.offset(i) < 0 || src.alwaysCandidate(i)) mark[i] = 1;
			else onDisk.push(i);
		}
		onDisk.sort((a, b) => src.offset(a) - src.offset(b));
		const ascii = tokens.filter((t) => /^[\x00-\x7f]*$/.test(t));
		const wide = tokens.filter((t) => !/^[\x00-\x7f]*$/.test(t));
		const slash = tokens.some((t) => t.includes("/"));
		const visit = (chunk: Buffer, lines: [number, number, number][]): void => {
			// Latin-1 keeps string positions equal to byte offsets. Only ASCII tokens can be matched this way;
			// the two characters whose lower case is ASCII (U+0130 "İ" → "i̇", U+212A Kelvin → "k") are mapped
			// first so "i"/"k" still find them.
			const text = chunk
				.toString("latin1")
				.toLowerCase()
				.replace(/\u00e4\u00b0/g, "i\u0000")
				.replace(/\u00e2\u0084\u00aa/g, "k\u0000\u0000");
			const hits = ascii.map((t) => positions(text, t));
			let escapes = positions(text, "\\u");
			if (slash) {
				// Other writers may escape "/" as "\/" (JSON allows it; JSON.stringify never does).
				escapes = escapes.concat(positions(text, "\\/")).sort((a, b) => a - b);
			}
			const ptr = new Int32Array(ascii.length);
			let ep = 0;
			for (const [i, s, e] of lines) {
				// A \uXXXX escape can spell any character: such lines must be parsed to be judged.
				while (ep < escapes.length && escapes[ep] < s) ep++;
				if (ep < escapes.length && escapes[ep] < e) {
					mark[i] = 1;
					continue;
				}
				let all = true;
				for (let t = 0; t < ascii.length && all; t++) {
					const pos = hits[t];
					let k = ptr[t];
					while (k < pos.length && pos[k] < s) k++;
					ptr[t] = k;
					all = k < pos.length && pos[k] + ascii[t].length <= e;
				}
				if (all && wide.length > 0) {
					const line = chunk.toString("utf8", s, e).toLowerCase();
					all = wide.every((t) => line.includes(t));
				}
				if (all) mark[i] = 1;
			}
		};
		// The file is streamed in slices of about SCAN_SLICE_BYTES, a step each.
		for (let from = 0; from < onDisk.length;) {
			let to = from + 1;
			const base = src.offset(onDisk[from] as number);
			while (to < onDisk.length && src.offset(onDisk[to] as number) - base < SCAN_SLICE_BYTES) to++;
			src.scanRaw(onDisk.slice(from, to), visit);
			from = to;
			yield;
		}
		const out: number[] = [];
		for (let i = 0; i < n; i++) if (mark[i]) out.push(i);
		return out;
	}
}

/**
 * Tokens that appear verbatim in a JSON line whenever they appear in a decoded string (lines with escapes
 * that could spell them are parsed anyway): no quote or backslash (written as escapes, and re-escaped in the
 * full text's JSON of tool arguments), no control characters.
 */
function rawSearchable(t: string): boolean {
	return !/["\\\x00-\x1f\x7f]/.test(t);
}

function positions(text: string, t: string): number[] {
	const pos: number[] = [];
	for (let k = text.indexOf(t); k >= 0; k = text.indexOf(t, k + 1)) pos.push(k);
	return pos;
}
