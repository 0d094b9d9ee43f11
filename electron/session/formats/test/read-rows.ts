// Test helper: a file read through a format's reader and mapper the way the core reads it (file order, one
// JSON.parse per line, synthetic ids for rows without one), giving the rows, the tree and the mapped entries.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SessionEntry } from "../../../../shared/entries";
import { EntryFlag, EntryKind } from "../../../../shared/skeleton";
import { SYNTHETIC_PREFIX } from "../../entry-index";
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
			.forEach((r, n) => rows.push({ ...r, id: r.id ?? `${SYNTHETIC_PREFIX}${i + 1}:${n}`, lineNo: i + 1, raw: raw as Record<string, unknown> }));
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

const CLAUDE_GEN = new URL("../../../../bench/gen-claude-session.mjs", import.meta.url).pathname;

/** The lines of a session bench/gen-claude-session.mjs generates (run as a program: the layers keep bench out of imports). */
export function generateClaude(records: number, seed: number): string[] {
	const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "arbor-gen-claude-")), "s.jsonl");
	try {
		const p = spawnSync(process.execPath, [CLAUDE_GEN, "--records", String(records), "--seed", String(seed), "--out", out], { encoding: "utf8" });
		if (p.status !== 0) throw new Error(`gen-claude-session failed: ${p.stderr}`);
		return fs
			.readFileSync(out, "utf8")
			.split("\n")
			.filter((l) => l);
	} finally {
		fs.rmSync(path.dirname(out), { recursive: true, force: true });
	}
}
