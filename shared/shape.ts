// A small typed validator for messages from another process (the live channel, shared/live.ts): each shape
// both checks a value and names its type (`Infer`), so a reader and the type it returns cannot drift apart.
// The API validates with zod (electron/api); the live channel cannot: its other end runs inside pi, which
// does not supply zod, and shared/ imports no npm package (docs/live.md "The contract").

import { isRecord } from "./guards";

/** A value failed its shape: `path` says where ("state.model.provider"), the message says what was wanted. */
export class ShapeError extends Error {
	constructor(
		readonly path: string,
		readonly wanted: string,
	) {
		super(`${path || "value"} must be ${wanted}`);
		this.name = "ShapeError";
	}
}

/** Checks `v` (at `path`) and returns the checked value (objects: a fresh one with the known fields only). */
export type Shape<T> = ((v: unknown, path?: string) => T) & { readonly optional?: boolean };
export type Infer<S> = S extends Shape<infer T> ? T : never;

const at = (path: string | undefined, key: string): string => (path ? `${path}.${key}` : key);

function leaf<T>(wanted: string, ok: (v: unknown) => boolean): Shape<T> {
	return (v, path = "") => {
		if (!ok(v)) throw new ShapeError(path, wanted);
		return v as T;
	};
}

export const string = leaf<string>("a string", (v) => typeof v === "string");
export const nonEmptyString = leaf<string>("a non-empty string", (v) => typeof v === "string" && v.trim() !== "");
export const boolean = leaf<boolean>("a boolean", (v) => typeof v === "boolean");
export const number = leaf<number>("a number", (v) => typeof v === "number" && Number.isFinite(v));
/** A non-negative integer (ids, pids, protocol numbers). */
export const count = leaf<number>("a non-negative integer", (v) => typeof v === "number" && Number.isInteger(v) && v >= 0);
/** Any JSON object, kept as it is. */
export const record = leaf<Record<string, unknown>>("an object", isRecord);

export function literal<const T extends readonly (string | number | boolean)[]>(...values: T): Shape<T[number]> {
	return leaf(values.map((x) => JSON.stringify(x)).join(" or "), (v) => values.includes(v as T[number]));
}

export function nullable<T>(s: Shape<T>): Shape<T | null> {
	return (v, path = "") => {
		if (v === null) return null;
		try {
			return s(v, path);
		} catch (err) {
			if (err instanceof ShapeError && err.path === path) throw new ShapeError(path, `${err.wanted} or null`);
			throw err;
		}
	};
}

/** A field that may be missing (undefined): left out of the checked object then. */
export function optional<T>(s: Shape<T>): Shape<T | undefined> & { readonly optional: true } {
	const f = (v: unknown, path = "") => (v === undefined ? undefined : s(v, path));
	return Object.assign(f, { optional: true as const });
}

export function array<T>(s: Shape<T>): Shape<T[]> {
	return (v, path = "") => {
		if (!Array.isArray(v)) throw new ShapeError(path, "an array");
		return v.map((x, i) => s(x, `${path}[${i}]`));
	};
}

type Fields = Record<string, Shape<unknown>>;
type OptionalKeys<F extends Fields> = { [K in keyof F]: F[K] extends { optional: true } ? K : never }[keyof F];
type Flat<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<F extends Fields> = Flat<
	{ [K in Exclude<keyof F, OptionalKeys<F>>]: Infer<F[K]> } & { [K in OptionalKeys<F>]?: Exclude<Infer<F[K]>, undefined> }
>;

/**
 * An object with these fields. `rest: true` keeps fields the shape does not name (a pi message carries more
 * than the renderer reads); otherwise they are dropped.
 */
export function object<F extends Fields>(fields: F, o: { rest?: boolean } = {}): Shape<ObjectOf<F>> {
	return (v, path = "") => {
		if (!isRecord(v)) throw new ShapeError(path, "an object");
		const out: Record<string, unknown> = o.rest ? { ...v } : {};
		for (const [k, s] of Object.entries(fields)) {
			const x = s(v[k], at(path, k));
			if (x === undefined) delete out[k];
			else out[k] = x;
		}
		return out as ObjectOf<F>;
	};
}

export type Tagged<K extends string, M extends Record<string, Shape<unknown>>> = {
	[T in keyof M]: Flat<{ [P in K]: T } & Infer<M[T]>>;
}[keyof M];

/** Objects told apart by their `key` field (a request's name, an event's type); `onUnknown` handles other tags. */
export function tagged<K extends string, M extends Record<string, Shape<unknown>>>(
	key: K,
	members: M,
	onUnknown: (tag: unknown, path: string) => never,
): Shape<Tagged<K, M>> {
	return (v, path = "") => {
		if (!isRecord(v)) throw new ShapeError(path, "an object");
		const tag = v[key];
		const s = typeof tag === "string" && Object.hasOwn(members, tag) ? members[tag] : undefined;
		if (!s) onUnknown(tag, path);
		return { ...(s!(v, path) as object), [key]: tag } as Tagged<K, M>;
	};
}
