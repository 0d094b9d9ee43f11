// indexOfId on a big skeleton: the first lookups scan while the id map is built in slices between tasks,
// and both give the same answers (an absent id -1, a repeated id its last index, as pi keeps the last one).
import { afterEach, describe, expect, it, vi } from "vitest";
import { indexOfId } from "../store/selectors";

function ids(n: number): string[] {
	const out = Array.from({ length: n }, (_, i) => `e${i.toString(16).padStart(8, "0")}`);
	out[n - 5] = out[7]; // a repeated id
	return out;
}

afterEach(() => {
	vi.useRealTimers();
});

describe("indexOfId", () => {
	it("answers the same while the map of a big ids array is built and after", () => {
		vi.useFakeTimers();
		const sk = { ids: ids(50_000) };
		const probes = [sk.ids[0], sk.ids[7], sk.ids[25_000], sk.ids[49_999], "absent"];
		const scanned = probes.map((id) => indexOfId(sk, id));
		expect(scanned).toEqual([0, 49_995, 25_000, 49_999, -1]);
		// The slices are tasks: run them all (5 of 10,000 ids), then the map answers.
		expect(vi.getTimerCount()).toBe(1);
		vi.runAllTimers();
		expect(vi.getTimerCount()).toBe(0);
		expect(probes.map((id) => indexOfId(sk, id))).toEqual(scanned);
	});

	it("maps a small ids array at once", () => {
		const sk = { ids: ids(100) };
		expect(indexOfId(sk, sk.ids[42])).toBe(42);
		expect(indexOfId(sk, sk.ids[7])).toBe(95);
	});
});
