// Claude Code's records as index rows (format.ts RecordReader). The tree is Claude's own (`uuid` / `parentUuid`),
// with four rules that read across lines (docs/formats-claude.md "Tree"):
// 1. A turn is one chain: Claude Code writes one record per content block of an answer (same `message.id`) and
//    hangs each tool result under the record holding its call, so an answer with two calls looks like a branch.
//    Every record of the answer and every tool result under it is re-parented onto the turn's latest record
//    (file order), so the turn reads as one line and only real branches (rewinds, --resume-session-at) branch.
// 2. A compact boundary (null parent) hangs under its `logicalParentUuid`: the conversation reads across the cut.
// 3. Records without a uuid: bookkeeping (queue-operation, cost-state, …) becomes a hidden row under the latest
//    conversation record; a conversation record without tree fields (older or trimmed files) gets an id from its
//    line and follows the previous one (file order).
// 4. A tool-result record with several results gives one row per result, chained (`<uuid>` then `<uuid>#<n>`).

import { EntryKind } from "../../../../shared/skeleton";
import type { IndexRow, RecordPlace, RecordReader } from "../format";
import { mappedRow } from "../mapped-row";
import { blocksOf, claudeEntry, messageOf, partsOf, roleOf } from "./entry";

type Raw = Record<string, unknown>;

/** The id of part `n` of a record (part 0 is the record's own id). */
export const partId = (id: string, n: number): string => (n === 0 ? id : `${id}#${n}`);
/** The id given to a conversation record that has no uuid: stable, from its line. */
export const lineId = (lineNo: number): string => `~claude:line:${lineNo}`;
/** The id of a bookkeeping row (a record Claude keeps outside the conversation): from its line, never a position. */
export const BOOKKEEPING_PREFIX = "~claude:book:";

const CONVERSATION = new Set(["user", "assistant", "system", "attachment", "progress"]);

export class ClaudeReader implements RecordReader {
	/** The latest conversation row, in file order (what uuid-less records follow). */
	#last: string | null = null;
	/** Per assistant record and tool result: the API message (`message.id`) its turn belongs to. */
	readonly #turnOf = new Map<string, string>();
	/** Tool-result rows that belong to a turn. */
	readonly #results = new Set<string>();
	/** Per API message: the latest row of its turn. */
	readonly #tail = new Map<string, string>();
	/** API messages whose usage was already counted (Claude repeats it on every record of the answer). */
	readonly #counted = new Set<string>();
	/** compact_boundary uuid -> tokens before the compaction (its summary row shows them). */
	readonly #preTokens = new Map<string, number>();

	read(raw: Raw, at: RecordPlace): IndexRow[] {
		const role = roleOf(raw);
		const uuid = typeof raw.uuid === "string" ? raw.uuid : undefined;
		if (uuid === undefined && !CONVERSATION.has(String(raw.type))) {
			// Bookkeeping: a hidden row under the latest conversation record, never part of the chain.
			return [this.#row(raw, `${BOOKKEEPING_PREFIX}${at.lineNo}`, this.#last, 0)];
		}
		const id = uuid ?? lineId(at.lineNo);
		const parent = this.#parentOf(raw, id, role);
		const rows: IndexRow[] = [];
		let prev = parent;
		const n = partsOf(raw);
		for (let p = 0; p < n; p++) {
			const pid = partId(id, p);
			rows.push(this.#row(raw, pid, prev, p));
			prev = pid;
		}
		this.#afterRecord(raw, role, id, prev!);
		return rows;
	}

	#parentOf(raw: Raw, id: string, role: string): string | null | undefined {
		const hasField = "parentUuid" in raw;
		if (!hasField) {
			if (typeof raw.logicalParentUuid === "string") return raw.logicalParentUuid;
			// No tree fields at all: file order. A uuid without a parent field is a root (shown as one).
			return typeof raw.uuid === "string" ? undefined : this.#last;
		}
		const p = raw.parentUuid;
		if (p === null && raw.subtype === "compact_boundary" && typeof raw.logicalParentUuid === "string") return raw.logicalParentUuid;
		if (typeof p !== "string") return p === null ? null : undefined;
		const turn = p === id ? undefined : this.#turnOf.get(p);
		if (turn === undefined) return p;
		// Rule 1: a later block of the same answer, a tool result of the turn, or the next answer after one of its
		// results (Claude sends every result of the turn with it) joins the turn's tail.
		const sameAnswer = role === "assistant" && turnKey(raw, id) === turn;
		const afterResult = role === "assistant" && this.#results.has(p);
		if (role === "toolResult" || sameAnswer || afterResult) return this.#tail.get(turn) ?? p;
		return p;
	}

	#afterRecord(raw: Raw, role: string, id: string, lastRow: string): void {
		if (raw.isSidechain !== true || this.#last === null) this.#last = lastRow;
		if (role === "assistant") {
			// The same answer continues its turn; a new answer starts one.
			const turn = turnKey(raw, id);
			this.#turnOf.set(id, turn);
			this.#tail.set(turn, id);
		} else if (role === "toolResult") {
			const p = raw.parentUuid;
			const turn = typeof p === "string" ? this.#turnOf.get(p) : undefined;
			if (turn !== undefined) {
				for (let n = 0, pid = id; n < partsOf(raw); pid = partId(id, ++n)) {
					this.#turnOf.set(pid, turn);
					this.#results.add(pid);
				}
				this.#tail.set(turn, lastRow);
			}
		}
		if (raw.subtype === "compact_boundary" && typeof raw.uuid === "string") {
			const meta = raw.compactMetadata as Raw | undefined;
			const pre = meta && typeof meta.preTokens === "number" ? meta.preTokens : 0;
			this.#preTokens.set(raw.uuid, pre);
		}
	}

	#row(raw: Raw, id: string | undefined, parentId: string | null | undefined, part: number): IndexRow {
		const entry = claudeEntry(raw, { id: id ?? "", parentId: parentId ?? null, part });
		return mappedRow(entry, raw, { id, parentId, part }, (f) => {
			if (f.kind === EntryKind.assistant) {
				const mid = messageOf(raw).id;
				// Counted once per API message (the first record of the answer), as Claude's own cost tools do.
				if (typeof mid === "string" && this.#counted.has(mid)) return 0;
				if (typeof mid === "string") this.#counted.add(mid);
				return f.tokens;
			}
			if (f.kind === EntryKind.compaction && typeof raw.parentUuid === "string") return this.#preTokens.get(raw.parentUuid) ?? 0;
			return 0;
		});
	}
}

/** The turn an assistant record starts or continues: its API message id, else (older files) its own uuid. */
function turnKey(raw: Raw, id: string): string {
	const mid = messageOf(raw).id;
	return typeof mid === "string" ? `m:${mid}` : `r:${id}`;
}

/** Tool call ids of an assistant record (its tool_use blocks). */
export function toolCallIds(raw: Raw): string[] {
	return blocksOf(raw)
		.filter((b) => b.type === "tool_use" && typeof b.id === "string")
		.map((b) => b.id as string);
}
