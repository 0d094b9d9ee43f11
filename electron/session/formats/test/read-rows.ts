// Test helper: a file read through a format's reader and mapper the way the core reads it (file order, one
// JSON.parse per line, synthetic ids for rows without one), giving the rows, the tree and the mapped entries.

import * as fs from "node:fs";
import type { SessionEntry } from "../../../../shared/entries";
import { EntryFlag, EntryKind } from "../../../../shared/skeleton";
import type { IndexRow, RecordReader, SessionFormat } from "../format";

export interface ReadRow extends IndexRow {
	id: string;
	lineNo: number;
	raw: Record<string, unknown>;
}

export interface ReadFile {
	rows: ReadRow[];
	/** Later rows win, as in the core. */
	byId: Map<string, ReadRow>;
	children(id: string | null): ReadRow[];
	/** Parents with two or more children among the conversation rows (user, assistant, tool result, compaction), each child reached through hidden rows. */
	branchPoints(): Map<string, string[]>;
	entry(row: ReadRow): SessionEntry;
	reader: RecordReader;
}

const CONVERSATION = new Set<number>([EntryKind.user, EntryKind.assistant, EntryKind.toolResult, EntryKind.compaction]);

export const isConversationRow = (r: IndexRow): boolean => CONVERSATION.has(r.kind) && (r.flags & EntryFlag.hidden) === 0;

export function readText(format: SessionFormat, text: string): ReadFile {
	const reader = format.newReader();
	const rows: ReadRow[] = [];
	let offset = 0;
	text.split("\n").forEach((line, i) => {
		const length = Buffer.byteLength(line);
		const at = { lineNo: i + 1, offset, length };
		offset += length + 1;
		if (!line.trim()) return;
		let raw: unknown;
		try {
			raw = JSON.parse(line);
		} catch {
			return;
		}
		if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return;
		reader
			.read(raw as Record<string, unknown>, at)
			.forEach((r, n) => rows.push({ ...r, id: r.id ?? `~arbor:no-id:${i + 1}:${n}`, lineNo: i + 1, raw: raw as Record<string, unknown> }));
	});
	const byId = new Map(rows.map((r) => [r.id, r]));
	const children = (id: string | null): ReadRow[] => rows.filter((r) => (r.parentId ?? null) === id);
	const visibleParent = (r: ReadRow): string | null => {
		const seen = new Set<string>();
		let p = r.parentId ?? null;
		while (p !== null && !seen.has(p)) {
			seen.add(p);
			const pr = byId.get(p);
			if (!pr || isConversationRow(pr)) return p;
			p = pr.parentId ?? null;
		}
		return null;
	};
	return {
		rows,
		byId,
		children,
		branchPoints() {
			const kids = new Map<string, string[]>();
			for (const r of rows) {
				if (!isConversationRow(r)) continue;
				const p = visibleParent(r);
				if (p === null || p === r.id) continue;
				kids.set(p, [...(kids.get(p) ?? []), r.id]);
			}
			return new Map([...kids].filter(([, c]) => c.length > 1));
		},
		entry: (row) => format.toEntry(row.raw, { id: row.id, parentId: row.parentId ?? null, part: row.part ?? 0 }),
		reader,
	};
}

export const readFile = (format: SessionFormat, file: string): ReadFile => readText(format, fs.readFileSync(file, "utf8"));
