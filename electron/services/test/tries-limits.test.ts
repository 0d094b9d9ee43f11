// The rules behind two tries limits, without a pi: how many tries run at once (TrySlots: the rest wait in order and
// a queued one can leave), and what a try has used while an answer streams (TryMeter: reported usage, plus the
// streamed characters' estimate for output not reported yet). The real-pi tests run both with pi 1.6.

import { describe, expect, it } from "vitest";
import { TryMeter } from "../tries/meter";
import { TrySlots } from "../tries/slots";

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe("TrySlots", () => {
	it("grants up to max at once, queues the rest in order, and starts them as running ones end", async () => {
		const slots = new TrySlots(2);
		const [a, b, c, d] = [slots.take(), slots.take(), slots.take(), slots.take()];
		expect([a.granted, b.granted, c.granted, d.granted]).toEqual([true, true, false, false]);
		expect([slots.running, slots.queued]).toEqual([2, 2]);
		b.release();
		await c.ready;
		expect([c.granted, d.granted]).toEqual([true, false]);
		expect([slots.running, slots.queued]).toEqual([2, 1]);
		b.release(); // a second release of the same slot frees nothing more
		await tick();
		expect(d.granted).toBe(false);
		a.release();
		await d.ready;
		expect([slots.running, slots.queued]).toEqual([2, 0]);
	});

	it("a queued slot released leaves the queue without taking a place, and the next one gets the free slot", async () => {
		const slots = new TrySlots(1);
		const [a, b, c] = [slots.take(), slots.take(), slots.take()];
		b.release();
		expect([slots.running, slots.queued]).toEqual([1, 1]);
		a.release();
		await c.ready;
		await tick();
		expect([b.granted, c.granted, slots.running, slots.queued]).toEqual([false, true, 1, 0]);
	});
});

const usage = (o: Partial<{ input: number; output: number; totalTokens: number; cost: number }>) => ({
	input: o.input ?? 0,
	output: o.output ?? 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: o.totalTokens ?? (o.input ?? 0) + (o.output ?? 0),
	cost: { total: o.cost ?? 0 },
});

describe("TryMeter", () => {
	const fresh = () => ({ tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 }, cost: 0 });

	it("counts streamed characters (4 a token, at the model's output price) while the provider reports no usage", () => {
		const state = fresh();
		const m = new TryMeter(state, (p, id) => (p === "lab" && id === "m" ? { input: 1, output: 10 } : undefined));
		m.start({ provider: "lab", model: "m" });
		m.update(400, usage({}));
		expect(state.tokens).toMatchObject({ output: 100, total: 100 });
		expect(state.cost).toBeCloseTo(0.001, 10);
		expect(m.over(undefined, 100)).toBe(false); // at the cap is not over it
		m.update(1, usage({}));
		expect(state.tokens.total).toBe(101);
		expect(m.over(undefined, 100)).toBe(true);
		expect(m.over(0.00101, undefined)).toBe(false);
		expect(m.over(0.001, undefined)).toBe(true);
	});

	it("takes pi's reported usage when it is larger, and an ended answer counts what pi reports for it", () => {
		const state = fresh();
		const m = new TryMeter(state);
		m.start({ provider: "lab", model: "unpriced" });
		m.update(40, usage({ input: 50, output: 3, cost: 0.5 })); // 10 estimated, 3 reported: 7 more
		expect(state.tokens).toMatchObject({ input: 50, output: 10, total: 60 });
		expect(state.cost).toBe(0.5); // no price for the estimate
		m.update(0, usage({ input: 50, output: 30, cost: 0.6 }));
		expect(state.tokens).toMatchObject({ output: 30, total: 80 });
		m.end(usage({ input: 50, output: 6, cost: 0.7 })); // reported output: the estimate goes
		expect(state.tokens).toMatchObject({ input: 50, output: 6, total: 56 });
		expect(state.cost).toBe(0.7);
		// A second answer adds to the first; one aborted without reported output keeps its estimate.
		m.start({ provider: "lab", model: "unpriced" });
		m.update(80, usage({}));
		expect(state.tokens.total).toBe(76);
		m.end(usage({ input: 0, output: 0 }));
		expect(state.tokens).toMatchObject({ input: 50, output: 26, total: 76 });
	});
});
