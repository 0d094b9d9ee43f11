// The rows view's branch graph: one lane per branch, drawn as SVG in flow coordinates under the rows
// (React Flow's ViewportPortal), for the rows mounted now. React Flow edges cannot do this: a branch's
// lane runs from its branch point past the whole first branch, thousands of rows, with neither end
// mounted. So every parent link that crosses the mounted rows is drawn, clipped to them: a lane never
// looks cut while panning.

import { memo } from "react";
import { ViewportPortal } from "@xyflow/react";
import { laneX, rowY } from "./layoutRows";
import { ROW, type GraphLayout, type GraphModel } from "./model";
import { useGraphStore } from "./store";

export interface RowLanesProps {
	model: GraphModel;
	layout: GraphLayout;
	/** Mounted graph nodes (the rows in view plus a margin). */
	mounted: readonly number[];
}

export const RowLanes = memo(function RowLanes({ model, layout, mounted }: RowLanesProps) {
	const activePath = useGraphStore((s) => s.activePath);
	const leafCard = useGraphStore((s) => s.model?.leafCard ?? s.skeleton?.leaf ?? -1);
	const lane = layout.lane;
	if (!lane || mounted.length === 0) return null;
	let r0 = Infinity;
	let r1 = -Infinity;
	for (const g of mounted) {
		if (g < r0) r0 = g;
		if (g > r1) r1 = g;
	}
	const top = rowY(r0) - ROW.h;
	const bottom = rowY(r1) + ROW.h;
	const clip = (v: number): number => Math.max(top, Math.min(bottom, v));
	const on = (g: number): boolean => activePath !== null && activePath[model.entry[g]] === 1;
	const cut = layout.laneCut;
	let plain = "";
	let active = "";
	let stubs = "";
	// Rows are pre-order and a parent comes first, so a link p -> g covers the rows p..g.
	for (let g = 0; g < model.n; g++) {
		const p = model.parent[g];
		if (p < 0 || p > r1 || g < r0) continue;
		const xp = laneX(lane[p]);
		const xg = laneX(lane[g]);
		const yp = rowY(p);
		const yg = rowY(g);
		let d: string;
		if (cut && cut[g] === 1) {
			// No free lane for this branch: a stub leaving the branch point and one arriving at the branch.
			const bend = yp + ROW.h * 0.75;
			if (yp >= top) stubs += `M${xp} ${yp}C${xp} ${bend} ${xg} ${yp} ${xg} ${bend}v${ROW.h * 0.4}`;
			if (yg <= bottom) stubs += `M${xg} ${yg - ROW.h * 0.9}V${yg}`;
			continue;
		}
		if (xp === xg) d = `M${xp} ${clip(yp)}V${clip(yg)}`;
		else {
			// Leaves its parent's lane sideways within one row, then runs down its own lane.
			const bend = yp + ROW.h * 0.75;
			d = yp >= top ? `M${xp} ${yp}C${xp} ${bend} ${xg} ${yp} ${xg} ${bend}V${clip(yg)}` : `M${xg} ${clip(bend)}V${clip(yg)}`;
		}
		if (on(g) && on(p)) active += d;
		else plain += d;
	}
	const dots = mounted.map((g) => {
		const cls = g === model.nodeOfEntry[leafCard] ? "arbor-lane-dot is-leaf" : on(g) ? "arbor-lane-dot is-active" : "arbor-lane-dot";
		const cx = laneX(lane[g]);
		const cy = rowY(g);
		// A tick from the dot to its row's card, which starts after the lanes running past it.
		return (
			<g key={g}>
				<path className="arbor-lane-tick" d={`M${cx} ${cy}H${layout.x[g]}`} />
				<circle className={cls} cx={cx} cy={cy} r={g === model.nodeOfEntry[leafCard] ? 5 : 3.5} />
			</g>
		);
	});
	return (
		<ViewportPortal>
			<svg className="arbor-lanes" data-testid="arbor-lanes" width={1} height={1} aria-hidden="true">
				<path className="arbor-lane" d={plain} />
				<path className="arbor-lane is-active" d={active} />
				<path className="arbor-lane is-cut" d={stubs} />
				{dots}
			</svg>
		</ViewportPortal>
	);
});
