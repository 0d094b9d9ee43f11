import { describe, expect, it } from "vitest";
import type { ArborEvent } from "../api";
import type { Skeleton } from "../skeleton";
import { decodeWire, encodeWire, MAX_DEPTH, TOO_DEEP, WireError, type WireMessage } from "../wire";

function makeSkeleton(n: number): Skeleton {
	const parent = new Int32Array(n);
	const kind = new Uint8Array(n);
	const flags = new Uint16Array(n);
	const time = new Float64Array(n);
	const tokens = new Float64Array(n);
	const cost = new Float64Array(n);
	const ids: string[] = [];
	for (let i = 0; i < n; i++) {
		ids.push(i.toString(16).padStart(8, "0"));
		parent[i] = i - 1;
		kind[i] = i % 15;
		flags[i] = (i * 7) & 0xfff;
		time[i] = i % 100 === 0 ? Number.NaN : 1_700_000_000_000 + i;
		tokens[i] = i * 3;
		cost[i] = i * 0.0125;
	}
	return { count: n, ids, parent, kind, flags, time, tokens, cost, labels: [{ target: 1, label: "x", time: Number.NaN }], leaf: n - 1, resumeLeaf: n - 1 };
}

function roundTrip(m: WireMessage): WireMessage {
	return decodeWire(encodeWire(m));
}

describe("wire codec", () => {
	it("carries a skeleton's typed arrays as typed arrays with identical contents", () => {
		const s = makeSkeleton(1000);
		const out = roundTrip({ t: "res", id: 7, ok: true, result: s });
		if (out.t !== "res" || !out.ok) throw new Error("wrong message");
		const r = out.result as Skeleton;
		expect(r.parent).toBeInstanceOf(Int32Array);
		expect(r.kind).toBeInstanceOf(Uint8Array);
		expect(r.flags).toBeInstanceOf(Uint16Array);
		expect(r.time).toBeInstanceOf(Float64Array);
		expect(Array.from(r.parent)).toEqual(Array.from(s.parent));
		expect(Array.from(r.kind)).toEqual(Array.from(s.kind));
		expect(Array.from(r.flags)).toEqual(Array.from(s.flags));
		expect(Number.isNaN(r.time[0])).toBe(true);
		expect(r.time[1]).toBe(s.time[1]);
		expect(Array.from(r.tokens)).toEqual(Array.from(s.tokens));
		expect(r.cost).toBeInstanceOf(Float64Array);
		expect(Array.from(r.cost)).toEqual(Array.from(s.cost));
		expect(r.ids).toEqual(s.ids);
		expect(r.count).toBe(1000);
		expect(r.leaf).toBe(999);
	});

	it("sends an entry nested 20,000 deep with the deep part replaced by a placeholder, and refuses such a message from a peer", () => {
		let deep: unknown = "bottom";
		for (let i = 0; i < 20_000; i++) deep = [deep];
		const frame = encodeWire({ t: "res", id: 1, ok: true, result: { type: "message", content: deep } } as never);
		const back = decodeWire(frame) as unknown as { result: { type: string; content: unknown } };
		expect(back.result.type).toBe("message");
		let v: unknown = back.result.content;
		let depth = 0;
		while (Array.isArray(v)) {
			v = v[0];
			depth++;
		}
		expect(v).toBe(TOO_DEEP);
		expect(depth).toBeLessThanOrEqual(MAX_DEPTH);
		const hostile = new TextEncoder().encode(`${"[".repeat(5000)}${"]".repeat(5000)}`);
		const raw = new Uint8Array(8 + hostile.byteLength);
		new DataView(raw.buffer).setUint32(0, new DataView(frame.buffer, frame.byteOffset).getUint32(0, true), true);
		new DataView(raw.buffer).setUint32(4, hostile.byteLength, true);
		raw.set(hostile, 8);
		expect(() => decodeWire(raw)).toThrow(WireError);
	});

	it("keeps NaN and infinities that JSON cannot express", () => {
		const out = roundTrip({ t: "res", id: 1, ok: true, result: { a: Number.NaN, b: Number.POSITIVE_INFINITY, c: [Number.NEGATIVE_INFINITY, 2] } });
		if (out.t !== "res" || !out.ok) throw new Error("wrong message");
		const r = out.result as { a: number; b: number; c: number[] };
		expect(Number.isNaN(r.a)).toBe(true);
		expect(r.b).toBe(Number.POSITIVE_INFINITY);
		expect(r.c).toEqual([Number.NEGATIVE_INFINITY, 2]);
	});

	it("passes session content with marker-like keys through unchanged", () => {
		const hostile = { $t: "Int32Array", o: 0, n: 999999, $$x: 1, $: 2, __proto__x: 3, nested: [{ $t: "num", v: "NaN" }] };
		const out = roundTrip({ t: "res", id: 2, ok: true, result: hostile });
		if (out.t !== "res" || !out.ok) throw new Error("wrong message");
		expect(out.result).toEqual(hostile);
	});

	it("keeps a __proto__ key as data instead of changing the prototype", () => {
		const value = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
		const out = roundTrip({ t: "res", id: 3, ok: true, result: value });
		if (out.t !== "res" || !out.ok) throw new Error("wrong message");
		const r = out.result as Record<string, unknown>;
		expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
		expect(Object.hasOwn(r, "__proto__")).toBe(true);
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
	});

	it("round-trips requests, errors and events", () => {
		const req: WireMessage = { t: "req", id: 1, name: "getPreviews", params: { sessionId: "s", indices: [1, 2, 3] } };
		expect(roundTrip(req)).toEqual(req);
		const err: WireMessage = { t: "res", id: 1, ok: false, error: { code: "forbidden", message: "no", file: "/a", line: 3 } };
		expect(roundTrip(err)).toEqual(err);
		const event: ArborEvent = {
			type: "session_appended",
			sessionId: "s",
			delta: {
				start: 3,
				ids: ["a"],
				parent: Int32Array.of(2),
				kind: Uint8Array.of(1),
				flags: Uint16Array.of(0),
				time: Float64Array.of(5),
				tokens: Float64Array.of(9),
				cost: Float64Array.of(0.5),
				labels: [],
				leaf: 3,
				resumeLeaf: 3,
			},
		};
		const out = roundTrip({ t: "evt", event });
		if (out.t !== "evt" || out.event.type !== "session_appended") throw new Error("wrong message");
		expect(Array.from(out.event.delta.parent)).toEqual([2]);
		expect(out.event.delta.tokens).toBeInstanceOf(Float64Array);
	});

	it("encodes a typed array that is a view into a larger buffer by its own bytes only", () => {
		const big = new Int32Array([1, 2, 3, 4, 5, 6]);
		const out = roundTrip({ t: "res", id: 1, ok: true, result: { a: big.subarray(2, 4), b: Uint8Array.of(9, 8, 7) } });
		if (out.t !== "res" || !out.ok) throw new Error("wrong message");
		const r = out.result as { a: Int32Array; b: Uint8Array };
		expect(Array.from(r.a)).toEqual([3, 4]);
		expect(Array.from(r.b)).toEqual([9, 8, 7]);
	});

	it("decodes a frame that sits at an unaligned offset (a Node Buffer from a pool)", () => {
		const frame = encodeWire({ t: "res", id: 1, ok: true, result: { a: Float64Array.of(1.5, 2.5) } });
		const pool = new Uint8Array(frame.byteLength + 3);
		pool.set(frame, 3);
		const out = decodeWire(pool.subarray(3));
		if (out.t !== "res" || !out.ok) throw new Error("wrong message");
		expect(Array.from((out.result as { a: Float64Array }).a)).toEqual([1.5, 2.5]);
	});

	it("carries long string lists (ids) exactly, including non-ASCII, empty strings and NUL", () => {
		const ids = Array.from({ length: 200 }, (_, i) => (i === 5 ? "" : i === 6 ? "é漢🙂" : `id-${i}`));
		const out = roundTrip({ t: "res", id: 1, ok: true, result: { ids, withNul: [...ids, "a\0b"] } });
		if (out.t !== "res" || !out.ok) throw new Error("wrong message");
		const r = out.result as { ids: string[]; withNul: string[] };
		expect(r.ids).toEqual(ids);
		expect(r.withNul).toEqual([...ids, "a\0b"]);
	});

	it("rejects malformed frames with WireError", () => {
		expect(() => decodeWire(new Uint8Array(3))).toThrow(WireError);
		expect(() => decodeWire(new Uint8Array(16))).toThrow(/magic/);
		const good = encodeWire({ t: "req", id: 1, name: "x", params: {} });
		const lying = good.slice();
		new DataView(lying.buffer).setUint32(4, 1 << 30, true);
		expect(() => decodeWire(lying)).toThrow(/exceeds/);
		const notMessage = encodeWire({ t: "req", id: 1, name: "x", params: {} });
		const text = new TextEncoder().encode(JSON.stringify({ t: "nope" }));
		const bad = new Uint8Array(8 + text.byteLength);
		bad.set(notMessage.subarray(0, 4));
		new DataView(bad.buffer).setUint32(4, text.byteLength, true);
		bad.set(text, 8);
		expect(() => decodeWire(bad)).toThrow(/not an Arbor wire message/);
	});

	it("rejects an attachment marker pointing outside the frame", () => {
		const text = new TextEncoder().encode(JSON.stringify({ t: "res", id: 1, ok: true, result: { $t: "Float64Array", o: 0, n: 1000 } }));
		const frame = new Uint8Array(8 + ((text.byteLength + 7) & ~7));
		new DataView(frame.buffer).setUint32(0, 0x31425241, true);
		new DataView(frame.buffer).setUint32(4, text.byteLength, true);
		frame.set(text, 8);
		expect(() => decodeWire(frame)).toThrow(/exceeds frame/);
	});

	it("carries a 100k-entry skeleton in one frame of roughly its binary size", () => {
		const s = makeSkeleton(100_000);
		const frame = encodeWire({ t: "res", id: 1, ok: true, result: s });
		// 31 bytes of structure per entry (the cost column included) plus ~11 bytes of quoted id: far below a JSON number array.
		expect(frame.byteLength).toBeLessThan(100_000 * 48);
		const out = decodeWire(frame);
		if (out.t !== "res" || !out.ok) throw new Error("wrong message");
		expect((out.result as Skeleton).parent[99_999]).toBe(99_998);
	});
});
