// The canvas overview's landmark text (issue #11: something legible at every zoom): labels and the first
// words of user messages are drawn as text, never overlapping, and missing previews are reported.
import { beforeAll, describe, expect, it } from "vitest";
import { EntryKind } from "../../../shared/skeleton";
import { buildGraphModel } from "../compress";
import { type DrawColors, drawGraph, fitTransform, landmarkText } from "../draw";
import { computeGraphLayout } from "../layout";
import { generateSkeleton, piDefaultVisible, skeletonOf, visibleTreeOf } from "./helpers";

beforeAll(() => {
	// Node has no Path2D; drawGraph only needs the methods to exist.
	const g = globalThis as { Path2D?: unknown };
	g.Path2D ??= class {
		moveTo(): void {}
		lineTo(): void {}
		rect(): void {}
	};
});

interface Text {
	s: string;
	x: number;
	y: number;
	font: string;
}
/** A stand-in for the canvas's measurement: bold 8.5 px per character, else 7.5 px (W and M 11 px). */
function textWidth(s: string, font: string): number {
	let w = 0;
	for (const ch of s) w += /W|M/.test(ch) ? 11 : font.startsWith("600") ? 8.5 : 7.5;
	return w;
}
function fakeCtx(): { ctx: CanvasRenderingContext2D; texts: Text[] } {
	const texts: Text[] = [];
	const ctx = {
		font: "",
		fillStyle: "",
		strokeStyle: "",
		lineWidth: 1,
		globalAlpha: 1,
		textBaseline: "",
		clearRect() {},
		stroke() {},
		fill() {},
		fillRect() {},
		beginPath() {},
		arc() {},
		fillText(s: string, x: number, y: number) {
			texts.push({ s, x, y, font: ctx.font });
		},
		// Wider than a 6.2 px-per-character guess, as bold text and wide letters are.
		measureText(s: string) {
			return { width: textWidth(s, ctx.font) };
		},
	};
	return { ctx: ctx as unknown as CanvasRenderingContext2D, texts };
}
const colors: DrawColors = {
	edge: "#000",
	active: "#000",
	node: "#000",
	user: "#000",
	segment: "#000",
	selected: "#000",
	leaf: "#000",
	match: "#000",
	text: "#111",
	plate: "#fff",
};

describe("overview landmark text", () => {
	it("draws user messages' first words and labels as text, and lists missing previews", () => {
		const s = skeletonOf([{ kind: EntryKind.user, parent: -1 }, { parent: 0 }, { kind: EntryKind.user, parent: 1 }, { parent: 2 }], {
			labels: [{ target: 3, label: "checkpoint", time: NaN }],
		});
		const m = buildGraphModel(s, visibleTreeOf(s, piDefaultVisible(s)));
		const l = computeGraphLayout(m, "TB");
		const fit = fitTransform(l, 400, 800);
		const { ctx, texts } = fakeCtx();
		const labelOf = new Map(s.labels.map((x) => [x.target, x]));
		const r = drawGraph(ctx, {
			model: m,
			layout: l,
			kind: s.kind,
			activePath: null,
			matches: null,
			selectedNode: -1,
			leafNode: -1,
			tx: fit.tx,
			ty: fit.ty,
			zoom: fit.zoom,
			width: 400,
			height: 800,
			colors,
			text: { labelOf, preview: (e) => (e === 0 ? "user: fix the parser please and add a test for the edge case" : undefined) },
		});
		const strings = texts.map((t) => t.s);
		expect(strings).toContain("fix the parser please and add a tes…");
		expect(strings).toContain("user");
		expect(strings).toContain("[checkpoint]");
		expect(texts.every((t) => /11px/.test(t.font))).toBe(true);
		expect(r.texts).toBe(3);
		expect(r.missing).toEqual([2]);
	});

	it("never draws two text items on top of each other, even on a dense 3k overview", () => {
		const s = generateSkeleton(3000, 5, 20);
		const m = buildGraphModel(s, visibleTreeOf(s, piDefaultVisible(s)));
		const l = computeGraphLayout(m, "TB");
		const w = 1200;
		const h = 700;
		const fit = fitTransform(l, w, h);
		const { ctx, texts } = fakeCtx();
		const r = drawGraph(ctx, {
			model: m,
			layout: l,
			kind: s.kind,
			activePath: null,
			matches: null,
			selectedNode: -1,
			leafNode: -1,
			tx: fit.tx,
			ty: fit.ty,
			zoom: fit.zoom,
			width: w,
			height: h,
			colors,
			text: { labelOf: new Map(s.labels.map((x) => [x.target, x])), preview: () => "user: WHY WON'T MY MODEL WORK" },
		});
		expect(r.texts).toBeGreaterThan(5);
		// Boxes as wide as the text really is in its font (the overlap a user saw came from a width guess).
		const box = (t: Text) => ({ x0: t.x, x1: t.x + textWidth(t.s, t.font), y0: t.y - 7, y1: t.y + 7 });
		for (let a = 0; a < texts.length; a++)
			for (let b = a + 1; b < texts.length; b++) {
				const p = box(texts[a]);
				const q = box(texts[b]);
				expect(p.x0 < q.x1 && q.x0 < p.x1 && p.y0 < q.y1 && q.y0 < p.y1, `${texts[a].s} / ${texts[b].s}`).toBe(false);
			}
	});

	it("landmarkText keeps labels and first words on one line", () => {
		expect(landmarkText("user: a\nb   c", "v1", true)).toBe("[v1] a b c");
		expect(landmarkText(undefined, "v1", false)).toBe("[v1]");
		expect(landmarkText(undefined, undefined, true)).toBe("user");
	});
});
