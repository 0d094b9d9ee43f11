// Tree text: the visible tree (shared/tree-view.ts) as pi's tree selector draws it (gutters, connectors,
// active-path dots, labels), and as the JSON tree of `arbor tree --json`. Both are built iteratively: a
// session can be a 100k-deep chain, which would overflow the stack of any recursive builder (including
// JSON.stringify on a nested object).

import { EntryKind, KIND_ENTRY_TYPES, type Skeleton } from "./skeleton";
import { connectorLevel, displayIndent, gutterPosition, isFoldable, labelsByIndex, RowFlag, type TreeView, hasIndex } from "./tree-view";

export interface TreeTextOptions {
	/** Append this marker to the leaf row (default " ← active"). */
	leafMarker?: string;
	/** Row of a cursor drawn as "› " (others get two spaces); omit for no cursor column. */
	cursorRow?: number;
	/** Show each label's time after it (pi's Shift+T), relative to `now`. */
	labelTimes?: boolean;
	now?: Date;
}

interface GutterCache {
	/** Per gutter row g: the drawn gutter columns for levels [0, levels[g]) of every row under it. */
	text: (string | undefined)[];
	levels: Int32Array;
}
const gutterCaches = new WeakMap<TreeView, GutterCache>();

// Gutter text shared by all rows under gutter row g, built once per gutter row from its outer gutters. Gutter
// positions grow strictly inwards (each connector sits one level deeper than the one above it), except where
// pi clamps at level 0; there two gutters share a column and pi draws the outermost, as here.
function gutterText(v: TreeView, g: number): { text: string; levels: number } {
	if (g < 0) return { text: "", levels: 0 };
	let cache = gutterCaches.get(v);
	if (!cache) {
		cache = { text: new Array(v.rows.length), levels: new Int32Array(v.rows.length) };
		gutterCaches.set(v, cache);
	}
	const { text, levels } = cache;
	if (text[g] === undefined) {
		const chain: number[] = [];
		for (let x = g; x >= 0 && text[x] === undefined; x = v.gutterHead[x]) chain.push(x);
		for (let k = chain.length - 1; k >= 0; k--) {
			const x = chain[k];
			const outer = v.gutterHead[x];
			let t = outer >= 0 ? (text[outer] as string) : "";
			let covered = outer >= 0 ? levels[outer] : 0;
			const pos = gutterPosition(v, x);
			if (pos >= covered) {
				t += "   ".repeat(pos - covered) + ((v.rowFlags[x] & RowFlag.last) === 0 ? "│  " : "   ");
				covered = pos + 1;
			}
			text[x] = t;
			levels[x] = covered;
		}
	}
	return { text: text[g] as string, levels: levels[g] };
}

/** pi's row prefix: gutters (│), the connector (├─ / └─, ⊟ foldable, ⊞ folded) and the fold marker of roots. */
export function rowPrefix(v: TreeView, row: number): string {
	const width = displayIndent(v, row);
	const entry = v.rows[row];
	const folded = hasIndex(v.folded, entry);
	const conn = connectorLevel(v, row);
	let out = "";
	if (width > 0) {
		const g = gutterText(v, v.gutterHead[row]);
		let level = Math.min(g.levels, width);
		out = g.levels <= width ? g.text : g.text.slice(0, width * 3);
		if (conn >= level && conn < width) {
			out += "   ".repeat(conn - level);
			const last = (v.rowFlags[row] & RowFlag.last) !== 0;
			out += `${last ? "└" : "├"}${folded ? "⊞" : isFoldable(v, entry) ? "⊟" : "─"} `;
			level = conn + 1;
		}
		if (width > level) out += "   ".repeat(width - level);
	}
	if (folded && conn < 0) out += "⊞ ";
	return out;
}

/** pi's label time (Shift+T): "HH:MM" today, "M/D HH:MM" this year, else "YY/M/D HH:MM" (local time). */
export function labelTimeText(ms: number, now: Date = new Date()): string {
	if (!Number.isFinite(ms)) return "";
	const d = new Date(ms);
	const time = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
	const sameYear = d.getFullYear() === now.getFullYear();
	if (sameYear && d.getMonth() === now.getMonth() && d.getDate() === now.getDate()) return time;
	if (sameYear) return `${d.getMonth() + 1}/${d.getDate()} ${time}`;
	return `${String(d.getFullYear()).slice(-2)}/${d.getMonth() + 1}/${d.getDate()} ${time}`;
}

/** Newlines and tabs become spaces, as in pi's rows. */
export function oneLine(text: string): string {
	return text.replace(/[\n\t\r]/g, " ").trim();
}

/**
 * One text line per visible row. `previews[r]` is the row text of v.rows[r] (SessionManager.getPreviews).
 * Lines are: [cursor] prefix, "• " on the active path, "[label] ", text, and the leaf marker on the leaf.
 */
export function renderTreeLines(v: TreeView, previews: ArrayLike<string>, options: TreeTextOptions = {}): string[] {
	const labels = labelsByIndex(v.skeleton);
	const labelTimes = new Map<number, number>();
	if (options.labelTimes) for (const l of v.skeleton.labels) labelTimes.set(l.target, l.time);
	const leafMarker = options.leafMarker ?? " ← active";
	const lines: string[] = new Array(v.rows.length);
	for (let r = 0; r < v.rows.length; r++) {
		const e = v.rows[r];
		let line = options.cursorRow === undefined ? "" : r === options.cursorRow ? "› " : "  ";
		line += rowPrefix(v, r);
		if (v.activePath[e]) line += "• ";
		const label = labels.get(e);
		if (label) line += `[${label}] `;
		const time = label && options.labelTimes ? labelTimeText(labelTimes.get(e) ?? Number.NaN, options.now) : "";
		if (time) line += `${time} `;
		line += oneLine(previews[r] ?? "");
		if (e === v.leaf) line += leafMarker;
		lines[r] = line;
	}
	return lines;
}

// ---------------------------------------------------------------- JSON form

export interface EntryDescription {
	type: string;
	role?: string;
}
/** Entry type (and role for messages) of entry i; the CLI passes the real values from the entries. */
export type EntryDescriber = (index: number) => EntryDescription;

const KIND_TYPES: Record<number, EntryDescription> = {
	[EntryKind.user]: { type: "message", role: "user" },
	[EntryKind.assistant]: { type: "message", role: "assistant" },
	[EntryKind.toolResult]: { type: "message", role: "toolResult" },
	[EntryKind.bashExecution]: { type: "message", role: "bashExecution" },
	[EntryKind.customMessageRole]: { type: "message", role: "custom" },
	[EntryKind.otherRole]: { type: "message", role: "unknown" },
	[EntryKind.compaction]: { type: "compaction" },
	[EntryKind.branchSummary]: { type: "branch_summary" },
	[EntryKind.customMessage]: { type: "custom_message" },
	[EntryKind.custom]: { type: "custom" },
	[EntryKind.label]: { type: "label" },
	[EntryKind.modelChange]: { type: "model_change" },
	[EntryKind.thinkingLevelChange]: { type: "thinking_level_change" },
	[EntryKind.sessionInfo]: { type: "session_info" },
	[EntryKind.unknown]: { type: "unknown" },
	[EntryKind.system]: { type: "message", role: "system" },
	...Object.fromEntries(Object.entries(KIND_ENTRY_TYPES).map(([k, type]) => [k, { type }])),
};

/** Best description from the skeleton alone (roles "custom"/"unknown" and type "unknown" are approximations). */
export function describeByKind(s: Skeleton): EntryDescriber {
	return (i) => KIND_TYPES[s.kind[i]] ?? { type: "unknown" };
}

export interface TreeJsonNode {
	id: string;
	type: string;
	role?: string;
	label?: string;
	children: TreeJsonNode[];
}
export interface TreeJson {
	/** The session's leaf as pi has it: the file's last entry, even a line no tree shows (a `usage` line). */
	leafId: string | null;
	/** The leaf as the tree shows it: `leafId`, or its nearest ancestor a tree shows ("← active"). */
	shownLeafId: string | null;
	roots: TreeJsonNode[];
}

function shownLeafId(v: TreeView): string | null {
	return v.leaf >= 0 ? v.skeleton.ids[v.leaf] : null;
}

function jsonNode(v: TreeView, e: number, describe: EntryDescriber, labels: Map<number, string>): TreeJsonNode {
	const d = describe(e);
	const node: TreeJsonNode = { id: v.skeleton.ids[e], type: d.type } as TreeJsonNode;
	if (d.type === "message" && d.role !== undefined) node.role = d.role;
	const label = labels.get(e);
	if (label) node.label = label;
	node.children = [];
	return node;
}

/**
 * The visible tree as nested objects, built without recursion (serialize it with writeJson, not JSON.stringify).
 * `leafId`: the session's own leaf when it differs from the one the view shows (default: the shown one).
 */
export function buildTreeJson(v: TreeView, describe: EntryDescriber = describeByKind(v.skeleton), leafId: string | null = shownLeafId(v)): TreeJson {
	const labels = labelsByIndex(v.skeleton);
	const nodes = new Array<TreeJsonNode>(v.rows.length);
	const roots: TreeJsonNode[] = [];
	// Rows are in pre-order, so a parent's node exists before its children's.
	for (let r = 0; r < v.rows.length; r++) {
		const e = v.rows[r];
		const node = jsonNode(v, e, describe, labels);
		nodes[r] = node;
		const p = v.visibleParent[e];
		if (p < 0) roots.push(node);
		else nodes[v.rowOf[p]].children.push(node);
	}
	return { leafId, shownLeafId: shownLeafId(v), roots };
}

/**
 * JSON text of an untrusted value (a session's tool arguments, details, data): JSON.stringify's bytes, or
 * undefined where it gives undefined, without its recursion limit: a line can hold an array nested 20,000 deep,
 * which makes JSON.stringify overflow the stack (issue #28). A value that cannot be serialized at all (a cycle,
 * a BigInt: never from a parsed line) gives "[unreadable value]".
 */
export function safeJson(value: unknown): string | undefined {
	try {
		return JSON.stringify(value);
	} catch (err) {
		if (!(err instanceof RangeError)) return "[unreadable value]";
	}
	let out = "";
	try {
		writeJson(value, (chunk) => (out += chunk));
	} catch {
		return "[unreadable value]";
	}
	return out;
}

/**
 * Serialize any JSON value without recursion, in the same bytes as JSON.stringify(value) (no spacing;
 * undefined/function members skipped, undefined in arrays -> null, non-finite numbers -> null; toJSON is
 * honoured for objects that define it, e.g. Date). `write` receives chunks of about 64 KiB.
 */
export function writeJson(value: unknown, write: (chunk: string) => void): void {
	let buf = "";
	const emit = (s: string): void => {
		buf += s;
		if (buf.length >= 65536) {
			write(buf);
			buf = "";
		}
	};
	type Frame = { kind: "array"; items: unknown[]; i: number } | { kind: "object"; obj: Record<string, unknown>; keys: string[]; i: number; wrote: boolean };
	const stack: Frame[] = [];
	const seen = new Set<object>();
	// Returns true when v opened a container (pushed a frame).
	const open = (raw: unknown, inArray: boolean): boolean => {
		let val = raw;
		if (val !== null && typeof val === "object" && typeof (val as { toJSON?: unknown }).toJSON === "function") {
			val = (val as { toJSON: () => unknown }).toJSON();
		}
		if (val === null) emit("null");
		else if (typeof val === "string") emit(JSON.stringify(val));
		else if (typeof val === "number") emit(Number.isFinite(val) ? String(val) : "null");
		else if (typeof val === "boolean") emit(val ? "true" : "false");
		else if (typeof val === "bigint") throw new TypeError("Do not know how to serialize a BigInt");
		else if (typeof val === "object") {
			if (seen.has(val)) throw new TypeError("Converting circular structure to JSON");
			seen.add(val);
			if (Array.isArray(val)) {
				emit("[");
				stack.push({ kind: "array", items: val, i: 0 });
			} else {
				emit("{");
				stack.push({ kind: "object", obj: val as Record<string, unknown>, keys: Object.keys(val), i: 0, wrote: false });
			}
			return true;
		} else if (inArray) emit("null");
		return false;
	};
	const skippable = (x: unknown): boolean => x === undefined || typeof x === "function" || typeof x === "symbol";
	if (skippable(value)) return;
	open(value, false);
	while (stack.length > 0) {
		const f = stack[stack.length - 1];
		if (f.kind === "array") {
			if (f.i >= f.items.length) {
				emit("]");
				seen.delete(f.items);
				stack.pop();
				continue;
			}
			if (f.i > 0) emit(",");
			const item = f.items[f.i++];
			if (skippable(item)) emit("null");
			else open(item, true);
		} else {
			let key: string | undefined;
			let item: unknown;
			while (f.i < f.keys.length) {
				const k = f.keys[f.i++];
				const x = f.obj[k];
				const resolved =
					x !== null && typeof x === "object" && typeof (x as { toJSON?: unknown }).toJSON === "function" ? (x as { toJSON: () => unknown }).toJSON() : x;
				if (skippable(resolved)) continue;
				key = k;
				item = resolved;
				break;
			}
			if (key === undefined) {
				emit("}");
				seen.delete(f.obj);
				stack.pop();
				continue;
			}
			if (f.wrote) emit(",");
			f.wrote = true;
			emit(JSON.stringify(key) + ":");
			open(item, false);
		}
	}
	if (buf) write(buf);
}

/** Stream the JSON tree of a view straight from its arrays (no intermediate objects); `leafId` as in buildTreeJson. */
export function writeTreeJson(
	v: TreeView,
	write: (chunk: string) => void,
	describe: EntryDescriber = describeByKind(v.skeleton),
	leafId: string | null = shownLeafId(v),
): void {
	const labels = labelsByIndex(v.skeleton);
	let buf = "";
	const emit = (s: string): void => {
		buf += s;
		if (buf.length >= 65536) {
			write(buf);
			buf = "";
		}
	};
	const openNode = (e: number): void => {
		const d = describe(e);
		let s = `{"id":${JSON.stringify(v.skeleton.ids[e])},"type":${JSON.stringify(d.type)}`;
		if (d.type === "message" && d.role !== undefined) s += `,"role":${JSON.stringify(d.role)}`;
		const label = labels.get(e);
		if (label) s += `,"label":${JSON.stringify(label)}`;
		emit(`${s},"children":[`);
	};
	emit(`{"leafId":${JSON.stringify(leafId)},"shownLeafId":${JSON.stringify(shownLeafId(v))},"roots":[`);
	// Each stack slot: an open node's row and how many of its children were written.
	const rowStack = new Int32Array(v.rows.length + 1);
	const nextChild = new Int32Array(v.rows.length + 1);
	for (let k = 0; k < v.roots.length; k++) {
		if (k > 0) emit(",");
		let sp = 0;
		const root = v.roots[k];
		openNode(root);
		rowStack[0] = v.rowOf[root];
		nextChild[0] = 0;
		sp = 1;
		while (sp > 0) {
			const r = rowStack[sp - 1];
			const a = v.childStart[r];
			const count = v.childStart[r + 1] - a;
			const j = nextChild[sp - 1];
			if (j >= count) {
				emit("]}");
				sp--;
				continue;
			}
			if (j > 0) emit(",");
			nextChild[sp - 1] = j + 1;
			const c = v.childEntries[a + j];
			openNode(c);
			rowStack[sp] = v.rowOf[c];
			nextChild[sp] = 0;
			sp++;
		}
	}
	emit("]}");
	if (buf) write(buf);
}
