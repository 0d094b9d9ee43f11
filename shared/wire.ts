// Wire codec for the browser host's WebSocket: request / response / event messages as one binary frame.
// A JSON envelope carries the message; typed arrays (the skeleton's structure) travel as raw binary
// attachments after it, so a 100k-entry skeleton costs a memcpy instead of a 100k-element JSON array.
// Pure TS (no Node, no DOM): the same file runs in the host and in the renderer.
//
// Frame layout (little-endian; every supported platform is):
//   0..3   magic "ARB1"
//   4..7   uint32 byte length J of the JSON envelope (UTF-8)
//   8..    JSON envelope, padded with spaces to a multiple of 8
//   ...    attachments, each starting at a multiple of 8 (so the receiver can view them in place)
//
// Inside the envelope a typed array becomes {"$t":"Int32Array","o":offset,"n":length}, a long list of
// plain strings becomes {"$t":"strs","o":offset,"b":bytes,"n":count} (NUL-joined UTF-8), a non-finite
// number becomes {"$t":"num","v":"NaN"|"Infinity"|"-Infinity"} (JSON has none, and SkeletonLabel.time
// may be NaN). Session content is untrusted and may itself contain a "$t" key: every object key that
// starts with "$" is escaped with one more "$" on the way out and unescaped on the way in.

import type { ArborErrorData, ArborEvent } from "./api";

export type WireMessage =
	| { t: "req"; id: number; name: string; params: unknown }
	| { t: "res"; id: number; ok: true; result: unknown }
	| { t: "res"; id: number; ok: false; error: ArborErrorData }
	| { t: "evt"; event: ArborEvent };

const { isView } = ArrayBuffer;
const MAGIC = 0x31425241; // "ARB1" read as little-endian uint32
const HEADER = 8;
const MARKER = "$t";

type TypedArray =
	| Int8Array
	| Uint8Array
	| Uint8ClampedArray
	| Int16Array
	| Uint16Array
	| Int32Array
	| Uint32Array
	| Float32Array
	| Float64Array
	| BigInt64Array
	| BigUint64Array;

const TYPED_ARRAYS = {
	Int8Array,
	Uint8Array,
	Uint8ClampedArray,
	Int16Array,
	Uint16Array,
	Int32Array,
	Uint32Array,
	Float32Array,
	Float64Array,
	BigInt64Array,
	BigUint64Array,
} as const;
type TypedArrayName = keyof typeof TYPED_ARRAYS;
type ViewCtor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => TypedArray;

function typedArrayName(v: ArrayBufferView): TypedArrayName | null {
	const name = v.constructor?.name;
	return typeof name === "string" && Object.hasOwn(TYPED_ARRAYS, name) ? (name as TypedArrayName) : null;
}

export class WireError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "WireError";
	}
}

// A hostile "__proto__" key must stay an own data property; plain assignment would set the prototype.
function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
	if (key === "__proto__") Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
	else o[key] = value;
}

const STRING_LIST_MIN = 64;

/**
 * Session files may hold values nested thousands deep (JSON.parse accepts them); encoding them recursively
 * would overflow the stack and the request would fail. Deeper parts are replaced by a placeholder text, so
 * the entry still reaches the UI; a peer sending a deeper message is refused.
 */
export const MAX_DEPTH = 1000;
export const TOO_DEEP = "[nested too deeply to display]";

function isPlainStringList(v: unknown[]): v is string[] {
	for (const item of v) if (typeof item !== "string" || item.includes("\0")) return false;
	return true;
}

const align8 = (n: number): number => (n + 7) & ~7;

/** Encode one message as a binary frame. */
export function encodeWire(message: WireMessage): Uint8Array {
	const attachments: { view: TypedArray; offset: number }[] = [];
	let attachBytes = 0;

	const walk = (v: unknown, depth = 0): unknown => {
		if (depth > MAX_DEPTH) return TOO_DEEP;
		if (typeof v === "number") {
			if (Number.isFinite(v)) return v;
			return { [MARKER]: "num", v: Number.isNaN(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity" };
		}
		if (v === null || typeof v !== "object") return v;
		if (Array.isArray(v)) {
			if (v.length >= STRING_LIST_MIN && isPlainStringList(v)) {
				// The skeleton's 100k ids: one NUL-joined UTF-8 block splits back far faster than JSON.parse
				// builds a 100k-element array.
				const block = new TextEncoder().encode(v.join("\0"));
				const offset = attachBytes;
				attachments.push({ view: block, offset });
				attachBytes = align8(attachBytes + block.byteLength);
				return { [MARKER]: "strs", o: offset, b: block.byteLength, n: v.length };
			}
			const out = new Array<unknown>(v.length);
			for (let i = 0; i < v.length; i++) out[i] = walk(v[i], depth + 1);
			return out;
		}
		if (isView(v)) {
			const name = typedArrayName(v);
			if (!name) throw new WireError(`cannot encode ${v.constructor?.name ?? "ArrayBufferView"}`);
			const view = v as TypedArray;
			const offset = attachBytes;
			attachments.push({ view, offset });
			attachBytes = align8(attachBytes + view.byteLength);
			return { [MARKER]: name, o: offset, n: view.length };
		}
		const out: Record<string, unknown> = {};
		for (const key of Object.keys(v)) {
			const value = (v as Record<string, unknown>)[key];
			if (value === undefined || typeof value === "function") continue;
			setOwn(out, key.startsWith("$") ? "$" + key : key, walk(value, depth + 1));
		}
		return out;
	};

	const envelope = new TextEncoder().encode(JSON.stringify(walk(message)));
	const jsonEnd = align8(HEADER + envelope.byteLength);
	const frame = new Uint8Array(jsonEnd + attachBytes);
	const dv = new DataView(frame.buffer);
	dv.setUint32(0, MAGIC, true);
	dv.setUint32(4, envelope.byteLength, true);
	frame.set(envelope, HEADER);
	frame.fill(0x20, HEADER + envelope.byteLength, jsonEnd);
	for (const { view, offset } of attachments) {
		frame.set(new Uint8Array(view.buffer, view.byteOffset, view.byteLength), jsonEnd + offset);
	}
	return frame;
}

/** Decode a binary frame. Throws WireError on anything malformed (the peer may be hostile). */
export function decodeWire(data: ArrayBuffer | ArrayBufferView): WireMessage {
	// isView rather than instanceof ArrayBuffer: the buffer may come from another realm (a worker, jsdom).
	const bytes = isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
	if (bytes.byteLength < HEADER) throw new WireError("frame too short");
	const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	if (dv.getUint32(0, true) !== MAGIC) throw new WireError("bad frame magic");
	const jsonLength = dv.getUint32(4, true);
	if (HEADER + jsonLength > bytes.byteLength) throw new WireError("envelope length exceeds frame");
	const attachStart = align8(HEADER + jsonLength);
	let parsed: unknown;
	try {
		parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(HEADER, HEADER + jsonLength)));
	} catch {
		throw new WireError("envelope is not valid UTF-8 JSON");
	}
	// Views must start at a multiple of their element size; a Node Buffer may sit anywhere in its pool.
	const aligned = (bytes.byteOffset & 7) === 0;

	const walk = (v: unknown, depth = 0): unknown => {
		if (v === null || typeof v !== "object") return v;
		if (depth > MAX_DEPTH + 1) throw new WireError("message nested too deeply");
		if (Array.isArray(v)) {
			for (let i = 0; i < v.length; i++) {
				const item: unknown = v[i];
				if (item !== null && typeof item === "object") v[i] = walk(item, depth + 1);
			}
			return v;
		}
		const obj = v as Record<string, unknown>;
		if (Object.hasOwn(obj, MARKER)) return readMarker(obj);
		const out: Record<string, unknown> = {};
		for (const key of Object.keys(obj)) {
			const value = walk(obj[key], depth + 1);
			setOwn(out, key.startsWith("$$") ? key.slice(1) : key, value);
		}
		return out;
	};

	const readMarker = (m: Record<string, unknown>): unknown => {
		const kind = m[MARKER];
		if (kind === "num") {
			if (m.v === "NaN") return Number.NaN;
			if (m.v === "Infinity") return Number.POSITIVE_INFINITY;
			if (m.v === "-Infinity") return Number.NEGATIVE_INFINITY;
			throw new WireError("bad number marker");
		}
		if (kind === "strs") {
			const { o, b, n } = m;
			if (!isBound(o) || !isBound(b) || !isBound(n) || o % 8 !== 0) throw new WireError("bad attachment bounds");
			const start = attachStart + o;
			if (start + b > bytes.byteLength) throw new WireError("attachment exceeds frame");
			const list = n === 0 ? [] : new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(start, start + b)).split("\0");
			if (list.length !== n) throw new WireError("string list length mismatch");
			return list;
		}
		if (typeof kind !== "string" || !Object.hasOwn(TYPED_ARRAYS, kind)) throw new WireError("bad typed array marker");
		const Ctor = TYPED_ARRAYS[kind as TypedArrayName] as unknown as ViewCtor & { BYTES_PER_ELEMENT: number };
		const { o, n } = m;
		if (!isBound(o) || !isBound(n) || o % 8 !== 0) throw new WireError("bad attachment bounds");
		const byteLength = n * Ctor.BYTES_PER_ELEMENT;
		const start = attachStart + o;
		if (start + byteLength > bytes.byteLength) throw new WireError("attachment exceeds frame");
		if (aligned) return new Ctor(bytes.buffer, bytes.byteOffset + start, n);
		const copy = new Uint8Array(byteLength);
		copy.set(bytes.subarray(start, start + byteLength));
		return new Ctor(copy.buffer, 0, n);
	};

	const message = walk(parsed);
	if (!isWireMessage(message)) throw new WireError("not an Arbor wire message");
	return message;
}

function isBound(v: unknown): v is number {
	return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

function isWireMessage(v: unknown): v is WireMessage {
	if (v === null || typeof v !== "object") return false;
	const m = v as Record<string, unknown>;
	if (m.t === "req") return typeof m.id === "number" && typeof m.name === "string";
	if (m.t === "res") {
		if (typeof m.id !== "number" || typeof m.ok !== "boolean") return false;
		if (m.ok) return true;
		const e = m.error as Record<string, unknown> | null;
		return e !== null && typeof e === "object" && typeof e.code === "string" && typeof e.message === "string";
	}
	if (m.t === "evt") {
		const e = m.event as Record<string, unknown> | null;
		return e !== null && typeof e === "object" && typeof e.type === "string";
	}
	return false;
}
