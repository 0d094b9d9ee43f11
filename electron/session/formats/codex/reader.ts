// Codex rollout lines as index rows (format.ts RecordReader). Codex items carry no parent: each conversation item
// follows the one before it (a chain), bookkeeping lines (events, turn context, token counts) hang off the chain's
// latest item without extending it, and `thread_rolled_back {num_turns}` moves the chain back to where the n-th last
// user turn started, so the turns rolled back stay as an abandoned branch. docs/formats-codex.md "Tree".

import type { IndexRow, RecordPlace, RecordReader } from "../format";
import { mappedRow } from "../mapped-row";
import { codexEntry, codexUsage, eventUsage, isItem, payloadOf, roleOf } from "./entry";

type Raw = Record<string, unknown>;

/**
 * The id of an item: its ordinal (Codex 0.1xx numbers every line of a thread, forks continuing the parent's count),
 * else its line; also its line when the ordinal was used already in the file (a hand-edited or spliced file), so
 * an id never repeats and an item never becomes its own parent.
 */
export function itemId(raw: Raw, lineNo: number, used: ReadonlySet<string>): string {
	const o = typeof raw.ordinal === "number" && Number.isInteger(raw.ordinal) ? `o:${raw.ordinal}` : undefined;
	return o !== undefined && !used.has(o) ? o : `l:${lineNo}`;
}
/** The id of a bookkeeping row (events, turn context, token counts): from its line, never a position. */
export const BOOKKEEPING_PREFIX = "~codex:book:";
/** The row a rollback leaves: hidden, under the point the thread continues from (so that point is where it resumes). */
export const rollbackId = (lineNo: number): string => `~codex:rollback:${lineNo}`;

export class CodexReader implements RecordReader {
	/** The chain's latest item (null before the first). */
	#tail: string | null = null;
	/** Where each user turn started: the tail before its first item. */
	readonly #turnStarts: (string | null)[] = [];
	/** The tail when the current turn's task started (its injected context comes before the user's prompt). */
	#taskStart: string | null | undefined = undefined;
	#sawMeta = false;
	/** Item ids given so far. */
	readonly #used = new Set<string>();
	/** The first session_meta's payload (the thread's header). */
	meta: Raw | undefined;

	/** The chain's latest item so far (the fork point of a child forked after the lines read). */
	tail(): string | null {
		return this.#tail;
	}

	read(raw: Raw, at: RecordPlace): IndexRow[] {
		const p = payloadOf(raw);
		if (raw.type === "session_meta" && !this.#sawMeta) {
			// The thread's header: no row, as pi's header.
			this.#sawMeta = true;
			this.meta = p;
			return [];
		}
		const role = roleOf(raw);
		if (raw.type === "event_msg" && p.type === "task_started") this.#taskStart = this.#tail;
		if (raw.type === "event_msg" && p.type === "thread_rolled_back") {
			const n = typeof p.num_turns === "number" && p.num_turns > 0 ? Math.floor(p.num_turns) : 0;
			if (n > 0 && this.#turnStarts.length > 0) {
				const keep = Math.max(0, this.#turnStarts.length - n);
				this.#tail = this.#turnStarts[keep] ?? null;
				this.#turnStarts.length = keep;
			}
			this.#taskStart = undefined;
			return [this.#row(raw, rollbackId(at.lineNo), this.#tail)];
		}
		if (!isItem(role)) return [this.#row(raw, `${BOOKKEEPING_PREFIX}${at.lineNo}`, this.#tail)];
		if (role === "user") {
			this.#turnStarts.push(this.#taskStart !== undefined ? this.#taskStart : this.#tail);
			this.#taskStart = undefined;
		}
		const id = itemId(raw, at.lineNo, this.#used);
		this.#used.add(id);
		const row = this.#row(raw, id, this.#tail);
		this.#tail = id;
		return [row];
	}

	#row(raw: Raw, id: string, parentId: string | null): IndexRow {
		const entry = codexEntry(raw, { id, parentId, part: 0 });
		const role = roleOf(raw);
		return mappedRow(entry, raw, { id, parentId, part: 0 }, (f) =>
			role === "usage" || role === "legacyAnswer" ? (codexUsage(eventUsage(payloadOf(raw)))?.totalTokens ?? 0) : f.tokens,
		);
	}
}
