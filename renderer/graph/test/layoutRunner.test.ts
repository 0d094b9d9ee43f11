import { afterEach, describe, expect, it, vi } from "vitest";
import { layOut, layoutTree, type LayoutInput, type WorkerIndex } from "../layout";
import { createLayoutRunner } from "../layoutRunner";
import type { GraphLayout } from "../model";
import { buildSpatialIndex, queryRect } from "../spatial";

const chain = (n: number): LayoutInput => ({
	parent: Int32Array.from({ length: n }, (_, i) => i - 1),
	kind: new Uint8Array(n),
	direction: "TB",
});

/** A stand-in Worker that answers like layout.worker.ts, asynchronously. */
class FakeWorker {
	static created: FakeWorker[] = [];
	static fail = false;
	onmessage: ((ev: MessageEvent) => void) | null = null;
	onerror: ((ev: unknown) => void) | null = null;
	posted = 0;
	constructor(
		readonly url: URL,
		readonly options: WorkerOptions,
	) {
		FakeWorker.created.push(this);
	}
	postMessage(msg: LayoutInput & { seq: number }): void {
		this.posted++;
		setTimeout(() => {
			if (FakeWorker.fail) this.onerror?.(new Error("boom"));
			else {
				const { layout, index, children, depth } = layOut(msg);
				const { layout: _same, ...sent } = index;
				this.onmessage?.({ data: { seq: msg.seq, layout, index: sent, children, depth } } as MessageEvent);
			}
		}, 1);
	}
	terminate(): void {}
}

afterEach(() => {
	vi.unstubAllGlobals();
	FakeWorker.created = [];
	FakeWorker.fail = false;
});

describe("layout runner", () => {
	it("lays out small graphs synchronously and big ones in a module worker", async () => {
		vi.stubGlobal("Worker", FakeWorker);
		const runner = createLayoutRunner(100);
		const small = await runner.run(chain(10));
		expect(FakeWorker.created).toHaveLength(0);
		expect(small.layout.n).toBe(10);
		const big = await runner.run(chain(500));
		expect(FakeWorker.created).toHaveLength(1);
		expect(FakeWorker.created[0].options.type).toBe("module");
		expect(String(FakeWorker.created[0].url)).toMatch(/layout\.worker\.ts/);
		expect(Array.from(big.layout.y)).toEqual(Array.from(layoutTree(chain(500)).y));
		// The index built in the worker answers queries over the positions it came with.
		expect(big.index.layout).toBe(big.layout);
		expect(Array.from(big.depth.slice(0, 3))).toEqual([1, 2, 3]);
		expect(Array.from(big.children.list.slice(0, 3))).toEqual([1, 2, 3]);
		const rect = { x: big.layout.x[250], y: big.layout.y[250], w: 1, h: 1 };
		expect(queryRect(big.index, rect)).toEqual(queryRect(buildSpatialIndex(layoutTree(chain(500))), rect));
		runner.dispose();
	});

	it("falls back to the UI thread when the worker fails, and answers every pending request", async () => {
		vi.stubGlobal("Worker", FakeWorker);
		FakeWorker.fail = true;
		const runner = createLayoutRunner(100);
		const [a, b] = await Promise.all([runner.run(chain(200)), runner.run(chain(300))]);
		expect(a.layout.n).toBe(200);
		expect(b.layout.n).toBe(300);
		expect(b.index.layout).toBe(b.layout);
		await runner.run(chain(400));
		expect(FakeWorker.created).toHaveLength(1);
		expect(FakeWorker.created[0].posted).toBe(2);
	});

	it("works without any Worker (jsdom, old runtimes)", async () => {
		vi.stubGlobal("Worker", undefined);
		const l = await createLayoutRunner(1).run(chain(50));
		expect(l.layout.n).toBe(50);
		expect(l.index.layout).toBe(l.layout);
	});
});

describe("layout worker", () => {
	it("answers a request with the positions layoutTree computes and their spatial index, transferring the arrays", async () => {
		type Message = { seq: number; layout: GraphLayout; index: WorkerIndex };
		const posted: { message: Message; transfer: Transferable[] }[] = [];
		const g = globalThis as unknown as { postMessage: unknown; onmessage: unknown };
		const saved = { postMessage: g.postMessage, onmessage: g.onmessage };
		g.postMessage = (message: Message, transfer: Transferable[]) => posted.push({ message, transfer });
		try {
			await import("../layout.worker");
			const input = chain(20);
			(g.onmessage as (ev: { data: unknown }) => void)({ data: { seq: 7, ...input } });
			expect(posted).toHaveLength(1);
			expect(posted[0].message.seq).toBe(7);
			expect(Array.from(posted[0].message.layout.y)).toEqual(Array.from(layoutTree(input).y));
			const want = buildSpatialIndex(layoutTree(input));
			expect(Array.from(posted[0].message.index.items)).toEqual(Array.from(want.items));
			expect(Array.from(posted[0].message.index.start)).toEqual(Array.from(want.start));
			expect("layout" in posted[0].message.index).toBe(false);
			// x, y, w, h, the index's start, items and stamp, the child index's start and list, the depths.
			expect(posted[0].transfer).toHaveLength(10);
		} finally {
			g.postMessage = saved.postMessage;
			g.onmessage = saved.onmessage;
		}
	});
});
