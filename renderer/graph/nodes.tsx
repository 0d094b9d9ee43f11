// Node components: small, memoized, each selecting only the booleans and the text it shows from the graph
// store. Everything from the session file is rendered as React text (escaped): never as HTML.

import { memo, useContext } from "react";
import { ServicesContext } from "../commands/services";
import { useRollupText } from "../compare/rollups";
import { Handle, Position, type Node, type NodeProps, type NodeTypes } from "@xyflow/react";
import { cardText, flagMarkers, formatLabelTime, formatTokens, kindStyle, segmentHasError, segmentSummary } from "./cards";
import { entriesOfNode } from "./compress";
import { GraphNodeKind, NODE_SIZE, type GraphModel } from "./model";
import { useGraphStore, type GraphState } from "./store";

export interface GraphNodeData extends Record<string, unknown> {
	/** Entry index (a segment's first entry; a stub's folded entry). */
	entry: number;
	/** Segments: entries inside; stubs: hidden entries; entries: graph children (>= 2 = branch point). */
	count: number;
}
export type GraphFlowNode = Node<GraphNodeData, "entry" | "segment" | "foldStub">;

// Sizes come from the layout's table so a stylesheet edit cannot make cards overlap what the layout placed.
const CARD_STYLE = { width: NODE_SIZE.entry.w, height: NODE_SIZE.entry.h };
const SEG_STYLE = { width: NODE_SIZE.segment.w, height: NODE_SIZE.segment.h };
const STUB_STYLE = { width: NODE_SIZE.foldStub.w, height: NODE_SIZE.foldStub.h };

const useDirection = (): "TB" | "LR" => useGraphStore((s) => s.direction);

function Handles(): React.JSX.Element {
	const tb = useDirection() === "TB";
	return (
		<>
			<Handle type="target" position={tb ? Position.Top : Position.Left} isConnectable={false} className="arbor-handle" />
			<Handle type="source" position={tb ? Position.Bottom : Position.Right} isConnectable={false} className="arbor-handle" />
		</>
	);
}

const matchState = (s: GraphState, e: number): "" | "hit" | "miss" => (s.matches === null ? "" : s.matches.has(e) ? "hit" : "miss");

export const EntryNode = memo(function EntryNode({ data }: NodeProps<GraphFlowNode>) {
	const e = data.entry;
	const sk = useGraphStore((s) => s.skeleton);
	const selected = useGraphStore((s) => s.selected === e);
	const active = useGraphStore((s) => s.activePath !== null && s.activePath[e] === 1);
	const match = useGraphStore((s) => matchState(s, e));
	const abandoned = useGraphStore((s) => s.abandoned !== null && s.skeleton !== null && s.abandoned.has(s.skeleton.ids[e]));
	const preview = useGraphStore((s) => s.preview(e));
	const label = useGraphStore((s) => s.labelOf.get(e));
	if (!sk || e >= sk.count) return null;
	const style = kindStyle(sk.kind[e]);
	const isLeaf = sk.leaf === e;
	const resumesHere = sk.resumeLeaf === e && sk.leaf !== e;
	const markers = flagMarkers(sk.flags[e]);
	const tokens = formatTokens(sk.tokens[e]);
	const cls = [
		"arbor-card",
		`arbor-card--${style.cls}`,
		active ? "is-active" : "",
		selected ? "is-selected" : "",
		isLeaf ? "is-leaf" : "",
		match === "hit" ? "is-match" : match === "miss" ? "is-dimmed" : "",
		abandoned ? "is-abandoned" : "",
		data.count >= 2 ? "is-branch" : "",
	].filter(Boolean).join(" ");
	return (
		<div className={cls} style={CARD_STYLE} data-entry={e} data-testid="arbor-card" title={sk.ids[e]}>
			<Handles />
			<div className="arbor-card__head">
				<span className="arbor-card__icon" aria-hidden="true">{style.icon}</span>
				<span className="arbor-card__kind">{style.title}</span>
				{isLeaf && <span className="arbor-badge arbor-badge--leaf">leaf</span>}
				{resumesHere && <span className="arbor-badge arbor-badge--resume" title="pi resumes here on reload">pi resumes here</span>}
				{label && (
					<span className="arbor-badge arbor-badge--label" title={`label set ${formatLabelTime(label.time)}`}>
						{label.label}
						{Number.isFinite(label.time) && <span className="arbor-badge__time"> {formatLabelTime(label.time)}</span>}
					</span>
				)}
			</div>
			<div className="arbor-card__text">{cardText(sk, e, preview)}</div>
			{data.count >= 2 && <BranchRollup entry={e} />}
			{(markers.length > 0 || tokens !== "" || data.count >= 2) && (
				<div className="arbor-card__foot">
					{markers.map((m) => (
						<span key={m.cls} className={`arbor-marker arbor-marker--${m.cls}`} title={m.title}>{m.text}</span>
					))}
					{data.count >= 2 && <span className="arbor-marker arbor-marker--branch" title="Branch point">⎇ {data.count}</span>}
					{tokens !== "" && <span className="arbor-card__tokens">{tokens}</span>}
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
		<div className={cls} style={SEG_STYLE} data-testid="arbor-segment" title={`${segmentSummary(sk, members)} — click to expand`}>
			<Handles />
			<span className="arbor-seg__count">+{data.count}</span>
			{segmentHasError(sk, members) && <span className="arbor-seg__error" aria-label="contains errors" />}
		</div>
	);
});

export const FoldStubNode = memo(function FoldStubNode({ data }: NodeProps<GraphFlowNode>) {
	const tb = useDirection() === "TB";
	const rollup = useFoldRollup(data.entry);
	return (
		<div className="arbor-stub" style={STUB_STYLE} data-testid="arbor-fold-stub" data-rollup={rollup ?? undefined} title={rollup ? `Folded: ${rollup} — click to unfold` : "Folded: click to unfold"}>
			<Handle type="target" position={tb ? Position.Top : Position.Left} isConnectable={false} className="arbor-handle" />
			⊞ +{data.count} hidden
			{rollup && <span className="arbor-stub__rollup" data-testid="arbor-fold-rollup">{rollup}</span>}
		</div>
	);
});

/** Roll-up text of a folded subtree (issue #12): entries, tokens, cost, errors, time span. */
function useFoldRollup(entry: number): string | null {
	const services = useContext(ServicesContext);
	const sk = useGraphStore((s) => s.skeleton);
	const sessionId = services ? services.deps.store.getState().activeSessionId : null;
	return useRollupText(services ? { client: services.client, sessionId } : null, sk, entry);
}

/** Under a branch point's card: the roll-up of everything below it. */
function BranchRollup({ entry }: { entry: number }) {
	const rollup = useFoldRollup(entry);
	return rollup ? <span className="arbor-branch-rollup" data-testid="arbor-branch-rollup" title={`Below this branch point: ${rollup}`}>{rollup}</span> : null;
}

/** Declared once at module level: a new object per render would remount every node. */
export const nodeTypes: NodeTypes = { entry: EntryNode, segment: SegmentNode, foldStub: FoldStubNode };
