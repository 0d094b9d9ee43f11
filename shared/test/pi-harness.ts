// Runs pi's own tree selector (TreeList inside TreeSelectorComponent) on a session file — pi 0.73.1
// (@mariozechner/pi-coding-agent) or pi 1.6.0 (@earendil-works/pi-coding-agent, its dist modules imported
// directly: the package's main entry does not load on Node 20) — and builds the matching Skeleton from pi's
// entries, so tree-view can be compared with the upstream implementation row by row. Test-only: never
// imported by shared/ code.
import { SessionManager, TreeSelectorComponent, initTheme } from "@mariozechner/pi-coding-agent";
import * as pi16Sessions from "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";
import * as pi16Tree from "../../node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/components/tree-selector.js";
import * as pi16Theme from "../../node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/theme/theme.js";
import { ENTRY_TYPE_KINDS, EntryFlag, EntryKind, type Skeleton } from "../skeleton";

initTheme("dark");
(pi16Theme as unknown as { initTheme(t: string): void }).initTheme("dark");

export type PiVersion = "0.73.1" | "1.6.0";
export const PI_VERSIONS: PiVersion[] = ["0.73.1", "1.6.0"];

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
export const stripAnsi = (s: string): string => s.replace(ANSI, "");

interface PiEntry {
	type: string;
	id: string;
	parentId: string | null;
	timestamp: string;
	[k: string]: unknown;
}
interface PiNode {
	entry: PiEntry;
	children: PiNode[];
	label?: string;
}
interface PiFlatNode {
	node: PiNode;
}
/** The TreeList members the comparison reads (pi keeps them public at runtime). */
export interface PiTreeList {
	filterMode: string;
	searchQuery: string;
	foldedNodes: Set<string>;
	filteredNodes: PiFlatNode[];
	flatNodes: PiFlatNode[];
	selectedIndex: number;
	maxVisibleLines: number;
	applyFilter(): void;
	render(width: number): string[];
	getSearchableText(node: PiNode): string;
	getEntryDisplayText(node: PiNode, selected: boolean): string;
	isFoldable(id: string): boolean;
	findBranchSegmentStart(direction: "up" | "down"): number;
	handleInput(key: string): void;
}

export interface PiRun {
	sm: AnySessionManager;
	list: PiTreeList;
	entries: PiEntry[];
	skeleton: Skeleton;
	indexById: Map<string, number>;
}

function kindOf(e: PiEntry): number {
	if (e.type === "message") {
		const role = (e.message as { role?: string }).role;
		switch (role) {
			case "user":
				return EntryKind.user;
			case "assistant":
				return EntryKind.assistant;
			case "toolResult":
				return EntryKind.toolResult;
			case "bashExecution":
				return EntryKind.bashExecution;
			case "custom":
			case "hookMessage":
				return EntryKind.customMessageRole;
			case "system":
				return EntryKind.system;
			default:
				return EntryKind.otherRole;
		}
	}
	return ENTRY_TYPE_KINDS.get(e.type) ?? EntryKind.unknown;
}

/** Skeleton of pi's in-memory entries (what the core is specified to produce for a clean v3 file). */
type AnySessionManager = any;

export function skeletonFromPi(sm: AnySessionManager): { skeleton: Skeleton; entries: PiEntry[]; indexById: Map<string, number> } {
	const entries = sm.getEntries() as unknown as PiEntry[];
	const n = entries.length;
	const indexById = new Map<string, number>();
	entries.forEach((e, i) => indexById.set(e.id, i));
	const parent = new Int32Array(n);
	const kind = new Uint8Array(n);
	const flags = new Uint16Array(n);
	const time = new Float64Array(n);
	entries.forEach((e, i) => {
		const p = e.parentId == null || e.parentId === e.id ? undefined : indexById.get(e.parentId);
		parent[i] = p ?? -1;
		kind[i] = kindOf(e);
		time[i] = new Date(e.timestamp).getTime();
		if (kind[i] === EntryKind.assistant) {
			const m = e.message as { content?: unknown; stopReason?: string };
			const hasText =
				typeof m.content === "string"
					? m.content.trim().length > 0
					: Array.isArray(m.content) && m.content.some((b) => b && b.type === "text" && typeof b.text === "string" && b.text.trim().length > 0);
			const errorish = m.stopReason && m.stopReason !== "stop" && m.stopReason !== "toolUse";
			if (!hasText && !errorish) flags[i] |= EntryFlag.toolOnly;
		}
	});
	const labels: Skeleton["labels"] = [];
	entries.forEach((e, i) => {
		const l = sm.getLabel(e.id);
		if (l) labels.push({ target: i, label: l, time: Number.NaN });
	});
	const leafId = sm.getLeafId();
	const leaf = leafId ? (indexById.get(leafId) ?? -1) : -1;
	return {
		skeleton: {
			count: n,
			ids: entries.map((e) => e.id),
			parent,
			kind,
			flags,
			time,
			tokens: new Float64Array(n),
			cost: new Float64Array(n),
			labels,
			leaf,
			resumeLeaf: n - 1,
		},
		entries,
		indexById,
	};
}

export function runPi(file: string, version: PiVersion = "0.73.1"): PiRun {
	const Sm = version === "1.6.0" ? (pi16Sessions as unknown as { SessionManager: typeof SessionManager }).SessionManager : SessionManager;
	const Sel =
		version === "1.6.0" ? (pi16Tree as unknown as { TreeSelectorComponent: typeof TreeSelectorComponent }).TreeSelectorComponent : TreeSelectorComponent;
	const sm = Sm.open(file);
	const sel = new Sel(
		sm.getTree(),
		sm.getLeafId(),
		100,
		() => {},
		() => {},
		() => {},
	);
	const list = (sel as unknown as { getTreeList(): PiTreeList }).getTreeList();
	list.maxVisibleLines = 1_000_000;
	return { sm, list, ...skeletonFromPi(sm) };
}

/** pi's row text per entry index (for use as our previews). */
export function piRowTexts(run: PiRun): string[] {
	const out: string[] = new Array(run.entries.length).fill("");
	for (const f of run.list.flatNodes) out[run.indexById.get(f.node.entry.id) ?? 0] = stripAnsi(run.list.getEntryDisplayText(f.node, false));
	return out;
}

/** Indices whose pi searchable text contains every token of the query (pi's rule), as a mask. */
export function piMatches(run: PiRun, query: string): Uint8Array {
	const tokens = query.toLowerCase().split(/\s+/).filter(Boolean);
	const mask = new Uint8Array(run.entries.length);
	for (const f of run.list.flatNodes) {
		const text = run.list.getSearchableText(f.node).toLowerCase();
		if (tokens.every((t) => text.includes(t))) mask[run.indexById.get(f.node.entry.id) ?? 0] = 1;
	}
	return mask;
}
