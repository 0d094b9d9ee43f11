// jsdom setup for renderer tests: React Flow measures nodes and the pane with browser APIs jsdom lacks
// (TOOLCHAIN.md "Tests"). These stubs give it fixed, non-zero sizes so nodes mount and edges draw.

class ResizeObserverStub {
	#cb: ResizeObserverCallback;
	constructor(cb: ResizeObserverCallback) {
		this.#cb = cb;
	}
	observe(target: Element): void {
		// React Flow waits for a first measurement before it shows nodes.
		const rect = target.getBoundingClientRect();
		const entry = { target, contentRect: rect, borderBoxSize: [], contentBoxSize: [], devicePixelContentBoxSize: [] };
		this.#cb([entry as unknown as ResizeObserverEntry], this as unknown as ResizeObserver);
	}
	unobserve(): void {}
	disconnect(): void {}
}

class DOMMatrixReadOnlyStub {
	m22: number;
	constructor(transform?: string) {
		const scale = transform?.match(/scale\(([\d.]+)\)/)?.[1];
		this.m22 = scale !== undefined ? Number(scale) : 1;
	}
}

if (!("ResizeObserver" in globalThis)) {
	(globalThis as Record<string, unknown>).ResizeObserver = ResizeObserverStub;
}
(globalThis as Record<string, unknown>).DOMMatrixReadOnly = DOMMatrixReadOnlyStub;

if ("HTMLElement" in globalThis) {
	// An explicit px size wins (tests size their containers); anything else (auto, 100%) reads as a
	// 1000x800 pane, large enough for a small graph to mount entirely.
	const px = (v: string, fallback: number): number => (/^\d+(\.\d+)?px$/.test(v) ? Number.parseFloat(v) : fallback);
	Object.defineProperties(HTMLElement.prototype, {
		offsetHeight: {
			configurable: true,
			get(this: HTMLElement) {
				return px(this.style.height, 800);
			},
		},
		offsetWidth: {
			configurable: true,
			get(this: HTMLElement) {
				return px(this.style.width, 1000);
			},
		},
	});
	HTMLElement.prototype.getBoundingClientRect = function getBoundingClientRect(this: HTMLElement): DOMRect {
		const w = this.offsetWidth;
		const h = this.offsetHeight;
		return { x: 0, y: 0, top: 0, left: 0, width: w, height: h, right: w, bottom: h, toJSON: () => ({}) } as DOMRect;
	};
}
if ("Element" in globalThis && typeof Element.prototype.scrollIntoView !== "function") {
	// jsdom has no layout, so nothing to scroll: components that bring an element into view do nothing here.
	Element.prototype.scrollIntoView = function scrollIntoView(): void {};
}
if ("SVGElement" in globalThis) {
	(SVGElement.prototype as unknown as { getBBox: () => DOMRect }).getBBox = () => ({ x: 0, y: 0, width: 100, height: 20 }) as DOMRect;
}
if ("HTMLCanvasElement" in globalThis) {
	// jsdom has no canvas backend; the overview and minimap draw nothing under test.
	HTMLCanvasElement.prototype.getContext = (() => null) as unknown as HTMLCanvasElement["getContext"];
}
