// Implementation-neutral views of a session (tree shape, id-canonical JSON) so that pi's SessionManager and
// Arbor's can be compared with one deep-equal. Everything here is iterative: conformance runs on 100k-deep
// chains too.

/** The parts of a tree node both pi and Arbor return. */
export interface TreeNodeLike {
	entry: unknown;
	children: TreeNodeLike[];
	label?: string;
}

/** A node reduced to a key (id or file index), its resolved label, and its ordered children. */
export interface Shape {
	k: string;
	label?: string;
	c: Shape[];
}

export function treeShape(roots: readonly TreeNodeLike[], key: (entry: unknown) => string): Shape[] {
	const out: Shape[] = [];
	const stack: Array<{ node: TreeNodeLike; into: Shape[] }> = [];
	for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i], into: out });
	// Pre-order with an explicit stack; children pushed in reverse so each parent receives them in order.
	while (stack.length > 0) {
		const { node, into } = stack.pop() as { node: TreeNodeLike; into: Shape[] };
		const shape: Shape = { k: key(node.entry), c: [] };
		if (node.label !== undefined) shape.label = node.label;
		into.push(shape);
		for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i], into: shape.c });
	}
	return out;
}

/** Number of nodes in a tree (iterative). */
export function countNodes(roots: readonly TreeNodeLike[]): number {
	let n = 0;
	const stack = [...roots];
	while (stack.length > 0) {
		const node = stack.pop() as TreeNodeLike;
		n++;
		for (const c of node.children) stack.push(c);
	}
	return n;
}

export function idOf(entry: unknown): string | undefined {
	if (entry && typeof entry === "object" && "id" in entry) {
		const id = (entry as { id: unknown }).id;
		return typeof id === "string" ? id : undefined;
	}
	return undefined;
}

const ID_KEYS = new Set(["id", "parentId", "targetId", "firstKeptEntryId", "fromId"]);

/**
 * JSON of `value` with every id-valued field replaced by `#<file index>` via `ids`, so that sessions whose
 * ids were freshly generated (v1 migration assigns random ids) compare by structure. Key order is kept:
 * the result is still a byte-level comparison of everything else.
 */
export function canonicalJson(value: unknown, ids: ReadonlyMap<string, number>): string {
	return JSON.stringify(value, (key, v: unknown) => {
		if (ID_KEYS.has(key) && typeof v === "string" && ids.has(v)) return `#${ids.get(v)}`;
		return v;
	});
}

/** id -> index in file order (the first occurrence wins for duplicated ids). */
export function indexById(entries: readonly unknown[]): Map<string, number> {
	const m = new Map<string, number>();
	entries.forEach((e, i) => {
		const id = idOf(e);
		if (id !== undefined && !m.has(id)) m.set(id, i);
	});
	return m;
}

/**
 * An ordered tree as a flat pre-order list of `key [label] <child count>` lines: equal lists mean equal
 * trees (keys, labels, children order), and comparing them never recurses (a nested shape of a 100k-deep
 * chain would overflow JSON.stringify).
 */
export function treeLines(roots: readonly TreeNodeLike[], key: (entry: unknown) => string): string[] {
	const out: string[] = [];
	const stack: TreeNodeLike[] = [];
	for (let i = roots.length - 1; i >= 0; i--) stack.push(roots[i]);
	while (stack.length > 0) {
		const node = stack.pop() as TreeNodeLike;
		out.push(`${key(node.entry)}${node.label !== undefined ? ` [${node.label}]` : ""} <${node.children.length}>`);
		for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
	}
	return out;
}
