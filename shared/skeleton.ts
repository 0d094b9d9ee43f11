// The skeleton: one small record per entry, sent to the renderer instead of the file (DESIGN.md "Data
// flow"). Structure lives in typed arrays so 100k entries cross IPC/WebSocket in a few ms; preview text
// is fetched in pages (`getPreviews`), full entries on demand (`getEntry`).
//
// Index i is the i-th entry in file order (the header and the omp title slot are not entries).

import { isRecord } from "./guards";

/** Entry kind: one code per entry type, messages split by role. */
export const EntryKind = {
	user: 0,
	assistant: 1,
	toolResult: 2,
	bashExecution: 3,
	customMessageRole: 4, // message entry with role "custom" / "hookMessage"
	otherRole: 5, // message entry with any other role (developer, fileMention, unknown...)
	compaction: 6,
	branchSummary: 7,
	customMessage: 8, // custom_message entry
	custom: 9,
	label: 10,
	modelChange: 11,
	thinkingLevelChange: 12,
	sessionInfo: 13,
	unknown: 14, // any other entry type (kept byte-for-byte)
	// pi 1.6 (docs/compatibility.md "pi 0.73.1 -> 1.6.0").
	system: 15, // message entry with role "system" (the prompt / tool state, first full, later patches)
	usage: 16, // usage entry (cache warmer etc.): hidden in every tree mode, never in the context
	contextEdit: 17, // context_edit entry (omit / replace an earlier entry's model content)
	// oh-my-pi 18.3 records.
	modelUsage: 18,
	serviceTierChange: 19,
	resetBoundary: 20,
	titleChange: 21,
	ttsrInjection: 22,
	sessionInit: 23,
	modeChange: 24,
	credentialPin: 25,
} as const;
export type EntryKindCode = (typeof EntryKind)[keyof typeof EntryKind];
export const ENTRY_KIND_NAMES: readonly string[] = Object.keys(EntryKind);

/** Bit flags per entry. */
export const EntryFlag = {
	/** Assistant message with no non-whitespace text block and stopReason stop/toolUse (pi hides these). */
	toolOnly: 1 << 0,
	/** Assistant stopReason "error", or toolResult isError, or bashExecution exitCode != 0. */
	error: 1 << 1,
	/** Assistant stopReason "aborted" (or bashExecution cancelled). */
	aborted: 1 << 2,
	hasThinking: 1 << 3,
	hasToolCalls: 1 << 4,
	hasImage: 1 << 5,
	/** custom_message / custom role with display: false. */
	hidden: 1 << 6,
	/** Another entry in the file has the same id (pi keeps the last one). */
	duplicateId: 1 << 7,
	/** parentId names an entry that is not in the file (shown as an extra root). */
	orphan: 1 << 8,
	/** The entry had no usable id; Arbor assigned a synthetic one (never written back). */
	syntheticId: 1 << 9,
	/** The parent link was cut to break a cycle (parentId === id, or a longer loop). */
	cycleCut: 1 << 10,
	/** stopReason "length". */
	truncated: 1 << 11,
} as const;

export interface SkeletonLabel {
	/** Index of the labelled entry. */
	target: number;
	label: string;
	/** ms since epoch of the label entry that set it (NaN if unknown). */
	time: number;
}

export interface Skeleton {
	/** Number of entries. */
	count: number;
	/** Entry id per index. Synthetic ids (flag syntheticId) are stable for the life of the process only. */
	ids: string[];
	/** Parent index per entry; -1 = root (null parent, self-parent, orphan, or a cut cycle). */
	parent: Int32Array;
	/** EntryKindCode per entry. */
	kind: Uint8Array;
	/** EntryFlag bits per entry. */
	flags: Uint16Array;
	/** Entry timestamp, ms since epoch; NaN when missing or unparsable. */
	time: Float64Array;
	/** Tokens: assistant usage.totalTokens (or input+output), compaction tokensBefore; 0 otherwise. */
	tokens: Float64Array;
	/**
	 * Cost per entry (usage.cost.total, 0 when none): assistant turns' message.usage; pi 1.x `usage`
	 * records, omp `model_usage` records, compaction / branch_summary summarizer calls and unknown types'
	 * top-level usage. The roll-ups' cost column (shared/rollup.ts); filled by the scan, no entry parsed.
	 */
	cost: Float64Array;
	/** Resolved labels (latest label entry per target wins; cleared ones absent). */
	labels: SkeletonLabel[];
	/** In-app leaf index, -1 = null (before the first entry). */
	leaf: number;
	/**
	 * Where pi/omp will resume on reload: the last entry in file order, or its nearest ancestor when the last
	 * lines are ones no tree shows (pi's cache-warmer `usage`, omp's `model_usage`: pi resumes on the same
	 * branch with the same context). -1 if none. The exact last entry: SessionManager.getResumeLeafId().
	 */
	resumeLeaf: number;
	/**
	 * Set only on a first skeleton (getFirstSkeleton, shared/first-skeleton.ts): a part of a big file sent
	 * before the whole, so the first entries are drawn at once. Its indices are positions in `fileIndex`
	 * (the file-order index of each), not file-order indices; the full skeleton replaces it.
	 */
	first?: FirstPart;
}

/** What a first skeleton is a part of. */
export interface FirstPart {
	/** File-order index of each of the first skeleton's entries (ascending). */
	fileIndex: Int32Array;
	/** Entries in the whole file. */
	total: number;
}

/** A batch of entries appended (by Arbor or another process) since the skeleton was sent. */
export interface SkeletonDelta {
	/** Index of the first new entry; equals the receiver's current count. */
	start: number;
	ids: string[];
	parent: Int32Array;
	kind: Uint8Array;
	flags: Uint16Array;
	time: Float64Array;
	tokens: Float64Array;
	cost: Float64Array;
	/** Full resolved label list after the append (small). */
	labels: SkeletonLabel[];
	leaf: number;
	resumeLeaf: number;
}

/** Apply a delta to a skeleton, returning a new skeleton (typed arrays grown by copy). */
export function applySkeletonDelta(s: Skeleton, d: SkeletonDelta): Skeleton {
	if (d.start !== s.count) throw new Error(`skeleton delta starts at ${d.start}, expected ${s.count}`);
	const n = s.count + d.ids.length;
	const grow = <T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(a: T, b: T, make: (n: number) => T): T => {
		const out = make(n);
		out.set(a.subarray(0, s.count) as never, 0);
		out.set(b as never, s.count);
		return out;
	};
	return {
		count: n,
		ids: s.ids.concat(d.ids),
		parent: grow(s.parent, d.parent, (k) => new Int32Array(k)),
		kind: grow(s.kind, d.kind, (k) => new Uint8Array(k)),
		flags: grow(s.flags, d.flags, (k) => new Uint16Array(k)),
		time: grow(s.time, d.time, (k) => new Float64Array(k)),
		tokens: grow(s.tokens, d.tokens, (k) => new Float64Array(k)),
		cost: grow(s.cost, d.cost, (k) => new Float64Array(k)),
		labels: d.labels,
		leaf: d.leaf,
		resumeLeaf: d.resumeLeaf,
	};
}

/** Entry type (`type` field) per non-message kind; message kinds map to "message". */
export const KIND_ENTRY_TYPES: Readonly<Record<number, string>> = {
	[EntryKind.compaction]: "compaction",
	[EntryKind.branchSummary]: "branch_summary",
	[EntryKind.customMessage]: "custom_message",
	[EntryKind.custom]: "custom",
	[EntryKind.label]: "label",
	[EntryKind.modelChange]: "model_change",
	[EntryKind.thinkingLevelChange]: "thinking_level_change",
	[EntryKind.sessionInfo]: "session_info",
	[EntryKind.usage]: "usage",
	[EntryKind.contextEdit]: "context_edit",
	[EntryKind.modelUsage]: "model_usage",
	[EntryKind.serviceTierChange]: "service_tier_change",
	[EntryKind.resetBoundary]: "reset_boundary",
	[EntryKind.titleChange]: "title_change",
	[EntryKind.ttsrInjection]: "ttsr_injection",
	[EntryKind.sessionInit]: "session_init",
	[EntryKind.modeChange]: "mode_change",
	[EntryKind.credentialPin]: "credential_pin",
};

/** `type` value -> kind for every entry type with its own kind (message is split by role elsewhere). */
export const ENTRY_TYPE_KINDS: ReadonlyMap<string, EntryKindCode> = new Map(Object.entries(KIND_ENTRY_TYPES).map(([k, t]) => [t, Number(k) as EntryKindCode]));

/** `message.role` -> kind (pi's `custom` and the older `hookMessage` are both custom messages); other roles: otherRole. */
export const ROLE_KINDS: ReadonlyMap<string, EntryKindCode> = new Map<string, EntryKindCode>([
	["user", EntryKind.user],
	["assistant", EntryKind.assistant],
	["toolResult", EntryKind.toolResult],
	["bashExecution", EntryKind.bashExecution],
	["custom", EntryKind.customMessageRole],
	["hookMessage", EntryKind.customMessageRole],
	["system", EntryKind.system],
]);

export function roleKind(role: unknown): EntryKindCode {
	return (typeof role === "string" ? ROLE_KINDS.get(role) : undefined) ?? EntryKind.otherRole;
}

/** The kind of a parsed entry: messages by role, other records by `type` (unknown types: unknown). */
export function kindOf(entry: Record<string, unknown>): EntryKindCode {
	if (entry.type === "message") {
		const m = entry.message;
		return roleKind(isRecord(m) ? m.role : undefined);
	}
	return (typeof entry.type === "string" ? ENTRY_TYPE_KINDS.get(entry.type) : undefined) ?? EntryKind.unknown;
}
