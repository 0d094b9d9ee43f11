// Node components: small, memoized, each selecting only the booleans and the text it shows from the graph
// store. Everything from the session file is rendered as React text (escaped): never as HTML.

import { memo, useEffect } from "react";
import { Handle, Position, type Node, type NodeProps, type NodeTypes } from "@xyflow/react";
import {
	cardText,
	factsText,
	fitWords,
	flagMarkers,
	formatLabelTime,
	formatTokens,
	kindStyle,
	segmentHasError,
	segmentSummary,
	usageRollupText,
} from "./cards";
import { visibleText } from "../../shared/visible-text";
import { entriesOfNode } from "./compress";
import { FamilyBranchBadge } from "./FamilyBadge";
import { Shown } from "./Shown";
import { StreamingNode } from "./streaming";
import { GraphNodeKind, NODE_SIZE, ROW, type Direction, type GraphModel } from "./model";
import { useGraph, useGraphStore, type GraphState, type GraphStore } from "./store";
import { treeItemId } from "./treeitem";
import { needsCardFacts } from "../store/cards";
import { indexOfId } from "../store/selectors";

export interface GraphNodeData extends Record<string, unknown> {
	/** Entry index (a segment's first entry; a stub's folded entry). */
	entry: number;
	/** Segments: entries inside; stubs: hidden entries; entries: graph children (>= 2 = branch point). */
	count: number;
}
export type GraphFlowNode = Node<GraphNodeData, "entry" | "segment" | "foldStub" | "streaming">;

// Sizes come from the layout's table so a stylesheet edit cannot make cards overlap what the layout placed.
const CARD_STYLE = { width: NODE_SIZE.entry.w, height: NODE_SIZE.entry.h };
// Card text cut to whole words (cards.ts fitWords), measured with the card's font on a canvas; the lines
// are joined by spaces so the browser's own wrapping (the same greedy rule) lays them out again, and the
// far zoom's bigger font just clamps. Without a canvas (tests) the text stays whole and CSS clamps it.
const TEXT_WIDTH = NODE_SIZE.entry.w - 16 - 5 - 4; // padding, borders, a few px of slack for font metrics
const fitCache = new Map<string, string>();
let measureCtx: CanvasRenderingContext2D | null | undefined;
function fittedText(text: string, lines: number, mono: boolean): string {
	if (measureCtx === undefined) {
		try {
			measureCtx = typeof document !== "undefined" ? document.createElement("canvas").getContext("2d") : null;
		} catch {
			measureCtx = null;
		}
	}
	const ctx = measureCtx;
	if (!ctx) return text;
	const key = `${lines}${mono ? "m" : "p"}${text}`;
	const hit = fitCache.get(key);
	if (hit !== undefined) return hit;
	const family = mono ? "ui-monospace, monospace" : getComputedStyle(document.body).fontFamily || "sans-serif";
	ctx.font = `12px ${family}`;
	const out = fitWords(text, lines, TEXT_WIDTH, (t) => ctx.measureText(t).width).replace(/\n/g, " ");
	if (fitCache.size > 5000) fitCache.clear();
	fitCache.set(key, out);
	return out;
}
// How many whole text lines fit in a card under its head, with and without a foot row (graph.css).
const TEXT_2_LINES = { "--arbor-card-lines": 2 } as React.CSSProperties;
const TEXT_3_LINES = { "--arbor-card-lines": 3 } as React.CSSProperties;
const SEG_STYLE = { width: NODE_SIZE.segment.w, height: NODE_SIZE.segment.h };
const STUB_STYLE = { width: NODE_SIZE.foldStub.w, height: NODE_SIZE.foldStub.h };

const useDirection = (): Direction => useGraphStore((s) => s.direction);
/** A row runs from its lanes to the pane's right edge (--arbor-row-end, SessionGraph), at least ROW.w wide. */
const rowStyleCache = new Map<number, React.CSSProperties>();
function rowStyle(x: number): React.CSSProperties {
	let st = rowStyleCache.get(x);
	if (!st) {
		st = { width: `max(${ROW.w}px, calc(var(--arbor-row-end, ${ROW.w}px) - ${x}px))`, height: ROW.card };
		rowStyleCache.set(x, st);
	}
	return st;
}
const STUB_ROW_STYLE = { width: 220, height: ROW.card };

function Handles(): React.JSX.Element {
	const tb = useDirection() === "TB";
	return (
		<>
			<Handle type="target" position={tb ? Position.Top : Position.Left} isConnectable={false} className="arbor-handle" />
			<Handle type="source" position={tb ? Position.Bottom : Position.Right} isConnectable={false} className="arbor-handle" />
		</>
	);
}

/**
 * Drag to steer: the leaf badge is dragged onto another card, which asks to navigate there (the same
 * dialog as Enter); a drop anywhere else, Escape, or losing the pointer cancels. Plain pointer events
 * with pointer capture (not React Flow's node drag, whose auto-pan could outlive an aborted drag).
 */
function startLeafDrag(ev: React.PointerEvent<HTMLElement>, graphStore: GraphStore): void {
	if (ev.button !== 0) return;
	ev.preventDefault();
	ev.stopPropagation();
	const badge = ev.currentTarget;
	const pointerId = ev.pointerId;
	try {
		badge.setPointerCapture(pointerId);
	} catch {
		// Synthetic events (tests) have no active pointer to capture: document listeners still see them.
	}
	const ghost = document.createElement("div");
	ghost.className = "arbor-leaf-ghost";
	ghost.textContent = "leaf";
	ghost.setAttribute("aria-hidden", "true");
	document.body.appendChild(ghost);
	document.body.classList.add("arbor-steering");
	let over: HTMLElement | null = null;
	const startX = ev.clientX;
	const startY = ev.clientY;
	let moved = false;
	const targetAt = (x: number, y: number): HTMLElement | null => {
		const hit = document.elementFromPoint(x, y);
		const node = hit?.closest<HTMLElement>(".react-flow__node");
		return node && node.querySelector('[data-testid="arbor-card"]') ? node : null;
	};
	const place = (x: number, y: number): void => {
		ghost.style.transform = `translate(${x + 8}px, ${y + 8}px)`;
		if (Math.abs(x - startX) + Math.abs(y - startY) > 4) moved = true;
		const t = targetAt(x, y);
		if (t !== over) {
			over?.classList.remove("is-drop-target");
			over = t;
			over?.classList.add("is-drop-target");
		}
	};
	const end = (drop: boolean, x: number, y: number): void => {
		document.removeEventListener("pointermove", onMove, true);
		document.removeEventListener("pointerup", onUp, true);
		document.removeEventListener("pointercancel", onCancel, true);
		document.removeEventListener("keydown", onKey, true);
		window.removeEventListener("blur", onCancel);
		badge.removeEventListener("lostpointercapture", onLost);
		over?.classList.remove("is-drop-target");
		ghost.remove();
		document.body.classList.remove("arbor-steering");
		try {
			if (badge.hasPointerCapture(pointerId)) badge.releasePointerCapture(pointerId);
		} catch {
			// already released
		}
		if (!drop || !moved) return;
		const t = targetAt(x, y);
		const entry = Number(t?.querySelector<HTMLElement>('[data-testid="arbor-card"]')?.dataset.entry ?? -1);
		const st = graphStore.getState();
		if (t && entry >= 0) st.onLeafDrop?.(entry);
		else st.onLeafDrop?.(-1);
	};
	const onMove = (e: PointerEvent): void => place(e.clientX, e.clientY);
	const onUp = (e: PointerEvent): void => end(true, e.clientX, e.clientY);
	const onCancel = (): void => end(false, 0, 0);
	const onLost = (): void => {
		// Capture is lost right before pointerup too; let pointerup decide when it follows.
		setTimeout(() => {
			if (ghost.isConnected) end(false, 0, 0);
		}, 0);
	};
	const onKey = (e: KeyboardEvent): void => {
		if (e.key === "Escape") {
			e.preventDefault();
			e.stopPropagation();
			end(false, 0, 0);
		}
	};
	document.addEventListener("pointermove", onMove, true);
	document.addEventListener("pointerup", onUp, true);
	document.addEventListener("pointercancel", onCancel, true);
	document.addEventListener("keydown", onKey, true);
	window.addEventListener("blur", onCancel);
	badge.addEventListener("lostpointercapture", onLost);
	place(ev.clientX, ev.clientY);
}

const matchState = (s: GraphState, e: number): "" | "hit" | "miss" => (s.matches === null ? "" : s.matches.has(e) ? "hit" : "miss");

export const EntryNode = memo(function EntryNode({ id, data, positionAbsoluteX }: NodeProps<GraphFlowNode>) {
	const e = data.entry;
	const graphStore = useGraph().store;
	const sk = useGraphStore((s) => s.skeleton);
	const selected = useGraphStore((s) => s.selected === e);
	const active = useGraphStore((s) => s.activePath !== null && s.activePath[e] === 1);
	const match = useGraphStore((s) => matchState(s, e));
	const abandoned = useGraphStore((s) => s.abandoned !== null && s.skeleton !== null && s.abandoned.has(s.skeleton.ids[e]));
	const preview = useGraphStore((s) => s.preview(e));
	const label = useGraphStore((s) => s.labelOf.get(e));
	// The badges sit on the card that shows the leaf / resume point, or on its nearest shown ancestor.
	const leafCard = useGraphStore((s) => s.model?.leafCard ?? s.skeleton?.leaf ?? -1);
	const level = useGraphStore((s) => (s.model && s.depth && e < s.model.nodeOfEntry.length ? (s.depth[s.model.nodeOfEntry[e]] ?? 1) : 1));
	const resumeCard = useGraphStore((s) => s.model?.resumeCard ?? s.skeleton?.resumeLeaf ?? -1);
	// A live pi's in-memory leaf (null: file mode), on its card or its nearest shown ancestor.
	const liveLeaf = useGraphStore((s) => s.liveLeaf);
	const liveCard = useGraphStore((s) => (s.liveLeaf === null ? -1 : (s.model?.liveCard ?? s.liveLeaf)));
	// Card facts (pi 1.6 system messages, context edits, omp records): given by the app, asked for when mounted
	// (a first skeleton's cards get none: the card sources wait for the whole skeleton).
	const wantsFacts = sk !== null && e < sk.count && needsCardFacts(sk.kind[e]);
	const facts = useGraphStore((s) => (wantsFacts ? s.cards.facts(e) : undefined));
	const requestFacts = useGraphStore((s) => s.cards.requestFacts);
	useEffect(() => {
		if (wantsFacts) requestFacts(e);
	}, [wantsFacts, requestFacts, e]);
	const reveal = useGraphStore((s) => s.cards.reveal);
	const editTarget = facts?.contextEdit && sk ? indexOfId(sk, facts.contextEdit.targetId) : -1;
	const targetPreview = useGraphStore((s) => (editTarget >= 0 ? s.preview(editTarget) : undefined));
	const usageRollup = useGraphStore((s) => s.cards.usage(e));
	// A folded entry's only child is its "+N hidden" stub, right after it in the model's pre-order.
	const folded = useGraphStore((s) => {
		const m = s.model;
		const g = m && e < m.nodeOfEntry.length ? m.nodeOfEntry[e] : -1;
		return m !== null && g >= 0 && g + 1 < m.n && m.parent[g + 1] === g && m.kind[g + 1] === GraphNodeKind.foldStub;
	});
	const rows = useDirection() === "rows";
	if (!sk || e >= sk.count) return null;
	const style = kindStyle(sk.kind[e]);
	const isLeaf = leafCard === e;
	const leafHidden = isLeaf && sk.leaf !== e;
	const live = liveLeaf !== null;
	const piHere = live && liveCard === e;
	const piHidden = piHere && liveLeaf !== e;
	// Live, the file's last line matters only where it differs from where the running pi is.
	const resumesHere = resumeCard === e && (live ? liveLeaf !== sk.resumeLeaf : sk.leaf !== sk.resumeLeaf);
	const resumeHidden = resumesHere && sk.resumeLeaf !== e;
	const markers = flagMarkers(sk.flags[e]);
	const tokens = formatTokens(sk.tokens[e]);
	// Bidi controls and invisible characters as visible placeholders (issue 39): "\u202Eevil" never reads "live".
	const text = visibleText(
		(facts ? factsText(facts, targetPreview) : undefined) ?? cardText(sk, e, preview === "" && needsCardFacts(sk.kind[e]) ? undefined : preview),
	);
	const usage = usageRollup ? usageRollupText(usageRollup) : null;
	const jump =
		facts?.contextEdit && facts.contextEdit.targetId !== "" ? (
			<button
				type="button"
				className="arbor-card__jump nodrag nopan"
				data-testid="context-edit-jump"
				title={`Show the edited entry ${facts.contextEdit.targetId}`}
				disabled={editTarget < 0}
				onPointerDown={(ev) => ev.stopPropagation()}
				onClick={(ev) => {
					ev.stopPropagation();
					if (facts.contextEdit) reveal(facts.contextEdit.targetId);
				}}
			>
				→ {editTarget < 0 ? "target not in file" : "target"}
			</button>
		) : null;
	const hasFoot = markers.length > 0 || tokens !== "" || data.count >= 2 || !!usage || !!jump;
	const cls = [
		"arbor-card",
		`arbor-card--${style.cls}`,
		active ? "is-active" : "",
		selected ? "is-selected" : "",
		isLeaf ? "is-leaf" : "",
		piHere ? "is-pi-leaf" : "",
		match === "hit" ? "is-match" : match === "miss" ? "is-dimmed" : "",
		abandoned ? "is-abandoned" : "",
		data.count >= 2 ? "is-branch" : "",
	]
		.filter(Boolean)
		.join(" ");
	return (
		<div
			className={cls}
			style={rows ? rowStyle(Math.round(positionAbsoluteX)) : CARD_STYLE}
			data-entry={e}
			data-testid="arbor-card"
			id={treeItemId(id)}
			role="treeitem"
			aria-level={level}
			aria-selected={selected}
			aria-expanded={folded ? false : data.count > 0 ? true : undefined}
			aria-current={isLeaf ? "true" : undefined}
			aria-label={`${style.title}${isLeaf ? " (leaf)" : ""}${piHere ? " (the running pi is here)" : ""}${label ? `, label ${visibleText(label.label)}` : ""}: ${text}`}
		>
			<Handles />
			<div className="arbor-card__head">
				<span className="arbor-card__icon" aria-hidden="true">
					{style.icon}
				</span>
				<span className="arbor-card__kind">{style.title}</span>
				{/* Live, Arbor's leaf follows pi's: one badge (pi's) says it when both are on this card. */}
				{isLeaf && !piHere && (
					<span
						className="arbor-badge arbor-badge--leaf nodrag nopan"
						data-testid="leaf-badge"
						title={
							leafHidden
								? "The leaf is below this card, hidden by the filter. Drag the badge onto another card to move the leaf there."
								: "The leaf: where the next message goes. Drag the badge onto another card to move the leaf there."
						}
						onPointerDown={(ev) => startLeafDrag(ev, graphStore)}
					>
						{leafHidden ? "leaf ↓" : "leaf"}
					</span>
				)}
				{piHere && (
					<span
						className="arbor-badge arbor-badge--pi nodrag nopan"
						data-testid="pi-leaf-badge"
						title={`${
							piHidden
								? "The running pi's leaf is below this card (hidden by the filter): its next turn continues from there."
								: "The running pi's leaf (in its memory, even when the move wrote nothing): its next turn continues from here."
						} Drag the badge onto another card to move pi there.`}
						onPointerDown={(ev) => startLeafDrag(ev, graphStore)}
					>
						{piHidden ? "pi ↓" : "pi is here"}
					</span>
				)}
				{resumesHere && (
					<span
						className="arbor-badge arbor-badge--resume"
						data-testid="resume-badge"
						title={
							live
								? `The file's last line${resumeHidden ? " (below this card, hidden by the filter)" : ""}: where pi resumes if it is restarted. The running pi is elsewhere.`
								: resumeHidden
									? "pi resumes below this card (hidden by the filter)"
									: "pi resumes here on reload"
						}
					>
						{live ? (resumeHidden ? "last line ↓" : "last line") : resumeHidden ? "pi resumes ↓" : "pi resumes here"}
					</span>
				)}
				{label && (
					<span
						className="arbor-badge arbor-badge--label"
						title={`${visibleText(label.label)}${Number.isFinite(label.time) ? ` — label set ${formatLabelTime(label.time)}` : ""}`}
					>
						<Shown text={label.label} />
					</span>
				)}
				<FamilyBranchBadge entry={e} />
			</div>
			{rows ? (
				// One line that ends in an ellipsis (CSS): the row is as wide as the text can be.
				<div className="arbor-card__text">
					<Shown text={text.length > 400 ? text.slice(0, 400) : text} />
				</div>
			) : (
				<div className="arbor-card__text" style={hasFoot ? TEXT_2_LINES : TEXT_3_LINES}>
					<Shown text={fittedText(text, hasFoot ? 2 : 3, style.cls === "bash")} />
				</div>
			)}
			{data.count >= 2 && <BranchRollup entry={e} />}
			{hasFoot && (
				<div className="arbor-card__foot">
					{jump}
					{markers.map((m) => (
						<span key={m.cls} className={`arbor-marker arbor-marker--${m.cls}`} title={m.title}>
							{m.text}
						</span>
					))}
					{data.count >= 2 && (
						<span className="arbor-marker arbor-marker--branch" title="Branch point">
							⎇ {data.count}
						</span>
					)}
					{tokens !== "" && <span className="arbor-card__tokens">{tokens}</span>}
					{usage && (
						<span className="arbor-card__usage" data-testid="card-usage-rollup" title={usage.title}>
							{usage.text}
						</span>
					)}
				</div>
			)}
		</div>
	);
});

/**
 * The segment node that starts at `entry` in the current model, -1 when there is none (yet): node objects
 * carry entry indices, not node indices, so they survive a re-layout that shifts node numbers.
 */
function segmentAt(model: GraphModel | null, entry: number): number {
	if (!model || entry < 0 || entry >= model.nodeOfEntry.length) return -1;
	const g = model.nodeOfEntry[entry];
	return g >= 0 && model.kind[g] === GraphNodeKind.segment && model.entry[g] === entry ? g : -1;
}

export const SegmentNode = memo(function SegmentNode({ data }: NodeProps<GraphFlowNode>) {
	const sk = useGraphStore((s) => s.skeleton);
	const model = useGraphStore((s) => s.model);
	const active = useGraphStore((s) => s.activePath !== null && s.activePath[data.entry] === 1);
	const abandoned = useGraphStore((s) => {
		const g = segmentAt(s.model, data.entry);
		if (s.abandoned === null || s.skeleton === null || s.model === null || g < 0) return false;
		const members = entriesOfNode(s.model, g);
		for (let k = 0; k < members.length; k++) if (s.abandoned.has(s.skeleton.ids[members[k]])) return true;
		return false;
	});
	const dimmed = useGraphStore((s) => s.matches !== null);
	const g = segmentAt(model, data.entry);
	if (!sk || !model || g < 0) return null;
	const members = entriesOfNode(model, g);
	const cls = ["arbor-seg", active ? "is-active" : "", abandoned ? "is-abandoned" : "", dimmed ? "is-dimmed" : ""].filter(Boolean).join(" ");
	return (
		<div
			className={cls}
			style={SEG_STYLE}
			data-testid="arbor-segment"
			data-entry={data.entry}
			role="treeitem"
			tabIndex={-1}
			aria-expanded={false}
			aria-label={`${data.count} entries folded into one: ${segmentSummary(sk, members)}. Enter or Space opens them.`}
			title={`${segmentSummary(sk, members)} — click, Enter or Space to expand`}
		>
			<Handles />
			<span className="arbor-seg__count">+{data.count}</span>
			{segmentHasError(sk, members) && <span className="arbor-seg__error" aria-label="contains errors" />}
		</div>
	);
});

export const FoldStubNode = memo(function FoldStubNode({ data }: NodeProps<GraphFlowNode>) {
	const dir = useDirection();
	const tb = dir === "TB";
	const rollup = useFoldRollup(data.entry);
	return (
		<div
			className="arbor-stub"
			style={dir === "rows" ? STUB_ROW_STYLE : STUB_STYLE}
			data-testid="arbor-fold-stub"
			data-entry={data.entry}
			data-rollup={rollup ?? undefined}
			role="treeitem"
			tabIndex={-1}
			aria-expanded={false}
			aria-label={`${data.count} hidden entries (folded${rollup ? `: ${rollup}` : ""}). Enter or Space unfolds.`}
			title={rollup ? `Folded: ${rollup} — click, Enter or Space to unfold` : "Folded: click, Enter or Space to unfold"}
		>
			<Handle type="target" position={tb ? Position.Top : Position.Left} isConnectable={false} className="arbor-handle" />⊞ +{data.count} hidden
			{rollup && (
				<span className="arbor-stub__rollup" data-testid="arbor-fold-rollup">
					{rollup}
				</span>
			)}
		</div>
	);
});

/** Roll-up text of a folded subtree (issue #12): entries, tokens, cost, errors, time span. */
function useFoldRollup(entry: number): string | null {
	return useGraphStore((s) => s.cards.rollup(entry));
}

/** Under a branch point's card: the roll-up of everything below it. */
function BranchRollup({ entry }: { entry: number }) {
	const rollup = useFoldRollup(entry);
	return rollup ? (
		<span className="arbor-branch-rollup" data-testid="arbor-branch-rollup" title={`Below this branch point: ${rollup}`}>
			{rollup}
		</span>
	) : null;
}

/** Declared once at module level: a new object per render would remount every node. */
export const nodeTypes: NodeTypes = { entry: EntryNode, segment: SegmentNode, foldStub: FoldStubNode, streaming: StreamingNode };
