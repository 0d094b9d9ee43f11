// Streaming cards: the assistant message a live pi is writing right now, drawn under the entry it will hang
// from before the file has it (docs/app.md "Live pi"). They are not entries: no id in the skeleton, no
// selection, no navigation; the real card replaces one as soon as the file is appended.

import { memo } from "react";
import { Handle, Position, type Edge, type NodeProps } from "@xyflow/react";
import type { Skeleton } from "../../shared/skeleton";
import { nodeAt, type Laid } from "./laid";
import { GAP, type Direction } from "./model";
import type { GraphFlowNode } from "./nodes";
import { useGraphStore, type XY } from "./store";
import { INERT_EDGE, INERT_NODE } from "./useFlowElements";
import type { LiveStream } from "../store/live";
import { indexOfId } from "../store/selectors";

/** What the graph draws for one streamed assistant message (made from the store's streams by streamCards). */
export interface StreamCard {
	/** Stable while the message streams (pi's turn and message index). */
	key: string;
	/** Entry index it hangs under (-1: not in the file yet; drawn at the leaf). */
	parentIndex: number;
	/** Text streamed so far (the tail is what the card shows). */
	text: string;
	/** Tool calls streamed so far: name and a short look at the arguments. */
	tools: { name: string; args: string }[];
	/** Thinking streamed, no text yet. */
	thinking: boolean;
	/** pi ended the message: it is being written to the file. */
	done: boolean;
	/** Why it stopped, when not a normal end (aborted, error). */
	stopReason?: string;
}

/** What the graph draws for a session's streams (memoized per streams array by the caller). */
export function streamCards(sk: Skeleton, streams: readonly LiveStream[]): StreamCard[] {
	return streams.map((x) => {
		let text = "";
		let thinking = false;
		const tools: { name: string; args: string }[] = [];
		for (const b of x.message.content) {
			if (b.type === "text" && typeof b.text === "string") text += b.text;
			else if (b.type === "thinking") thinking = true;
			else if (b.type === "toolCall") {
				const name = typeof b.name === "string" ? b.name : "tool";
				tools.push({ name, args: argsPreview(b.arguments) });
			}
		}
		const stop = x.message.stopReason;
		return {
			key: x.key,
			parentIndex: x.parentId === null ? -1 : indexOfId(sk, x.parentId),
			text,
			tools,
			thinking,
			done: x.done,
			...(stop === "aborted" || stop === "error" ? { stopReason: stop } : {}),
		};
	});
}

function argsPreview(args: unknown): string {
	if (!args || typeof args !== "object") return "";
	const first = Object.values(args as Record<string, unknown>).find((v) => typeof v === "string");
	if (typeof first !== "string") return "";
	const one = first.replace(/\s+/g, " ").trim();
	return one.length > 40 ? `${one.slice(0, 39)}…` : one;
}

export const STREAM_SIZE = { w: 280, h: 112 } as const;
const STREAM_STYLE = { width: STREAM_SIZE.w, height: STREAM_SIZE.h };
/** Characters of the streamed text a card keeps (its tail): enough to fill it, cheap to re-render. */
const TAIL = 600;
/** Longer than the card holds (about four lines): shown from its end. */
const LONG = 150;

export const streamNodeId = (key: string): string => `stream:${key}`;

/**
 * React Flow nodes and edges for the streaming cards: each under its parent's card (or that card's nearest
 * drawn ancestor), past the parent's existing children so it covers none of them.
 */
export function streamElements(
	laid: Laid | null,
	skeleton: Skeleton,
	streams: readonly StreamCard[] | undefined,
	overrides: ReadonlyMap<number, XY>,
	direction: Direction,
	mounted: ReadonlySet<number>,
): { nodes: GraphFlowNode[]; edges: Edge[] } {
	if (!laid || !streams || streams.length === 0) return { nodes: [], edges: [] };
	const { model: m, layout: l } = laid;
	const nodes: GraphFlowNode[] = [];
	const edges: Edge[] = [];
	const tb = direction === "TB";
	// Extra cards already placed under one parent (two messages of a turn before the first is written).
	const placed = new Map<number, number>();
	for (const s of streams) {
		const from = s.parentIndex >= 0 ? s.parentIndex : skeleton.leaf;
		const g = from >= 0 ? nodeAt(laid, from, skeleton) : -1;
		const pos = (k: number): XY => {
			const o = overrides.get(k);
			return o ?? { x: l.x[k], y: l.y[k] };
		};
		let x: number;
		let y: number;
		if (g < 0) {
			x = l.minX;
			y = l.maxY + GAP.depthTB;
		} else {
			const p = pos(g);
			// Past the far edge of the parent's children, when it has any.
			let far = tb ? p.x - STREAM_SIZE.w - GAP.breadth : p.y - STREAM_SIZE.h - GAP.breadth;
			let any = false;
			for (let k = g + 1; k < m.n; k++) {
				if (m.parent[k] !== g) continue;
				any = true;
				const c = pos(k);
				far = Math.max(far, tb ? c.x + l.w[k] : c.y + l.h[k]);
			}
			const n = placed.get(g) ?? 0;
			placed.set(g, n + 1);
			const step = n * ((tb ? STREAM_SIZE.w : STREAM_SIZE.h) + GAP.breadth);
			if (tb) {
				y = p.y + l.h[g] + GAP.depthTB;
				x = (any ? far + GAP.breadth : p.x + (l.w[g] - STREAM_SIZE.w) / 2) + step;
			} else {
				x = p.x + l.w[g] + GAP.depthLR;
				y = (any ? far + GAP.breadth : p.y + (l.h[g] - STREAM_SIZE.h) / 2) + step;
			}
		}
		const id = streamNodeId(s.key);
		nodes.push({
			id,
			type: "streaming",
			position: { x, y },
			data: { entry: from, count: 0, stream: s },
			width: STREAM_SIZE.w,
			height: STREAM_SIZE.h,
			measured: { width: STREAM_SIZE.w, height: STREAM_SIZE.h },
			...INERT_NODE,
		});
		if (g >= 0 && mounted.has(g)) {
			edges.push({
				id: `e:${id}`,
				source: m.ids[g],
				target: id,
				className: "arbor-edge is-streaming",
				animated: !s.done,
				...INERT_EDGE,
			});
		}
	}
	return { nodes, edges };
}

/** The text a streaming card shows: the end of what was written, then the tool calls. */
export function streamCardText(s: StreamCard): string {
	const text = s.text.trim();
	if (text !== "") return text.length > TAIL ? `…${text.slice(-TAIL)}` : text;
	if (s.tools.length > 0) return "";
	return s.thinking ? "Thinking…" : "Waiting for the first words…";
}

export function streamStatus(s: StreamCard): string {
	if (s.stopReason === "aborted") return "stopped";
	if (s.stopReason === "error") return "failed";
	return s.done ? "writing to the file…" : "streaming…";
}

export const StreamingNode = memo(function StreamingNode({ data }: NodeProps<GraphFlowNode>) {
	const tb = useGraphStore((s) => s.direction) === "TB";
	const s = data.stream as StreamCard | undefined;
	if (!s) return null;
	const text = streamCardText(s);
	const status = streamStatus(s);
	const tools = s.tools.map((t) => `${t.name}${t.args ? `(${t.args})` : ""}`).join(", ");
	return (
		<div
			className={`arbor-stream${s.done ? " is-done" : ""}`}
			style={STREAM_STYLE}
			data-testid="stream-card"
			data-stream-key={s.key}
			data-done={s.done ? "true" : "false"}
			role="treeitem"
			aria-selected={false}
			aria-label={`pi is answering (${status})${text ? `: ${text.slice(-200)}` : ""}${tools ? `. Tool calls: ${tools}` : ""}`}
			title="pi's answer as it streams; the real entry replaces this card once pi writes it to the file"
		>
			<Handle type="target" position={tb ? Position.Top : Position.Left} isConnectable={false} className="arbor-handle" />
			<div className="arbor-stream__head">
				<span className="arbor-stream__dot" aria-hidden="true" />
				<span className="arbor-stream__kind">Assistant</span>
				<span className="arbor-stream__status" data-testid="stream-status">
					{status}
				</span>
			</div>
			{text && (
				<div className={`arbor-stream__text${text.length > LONG ? " is-long" : ""}`} data-testid="stream-text">
					{text}
				</div>
			)}
			{tools && (
				<div className="arbor-stream__tools mono" data-testid="stream-tools" title={tools}>
					⚙ {tools}
				</div>
			)}
		</div>
	);
});
