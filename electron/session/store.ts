// Growable typed columns: one slot per entry in file order. Structure lives here (ids, parent links, kind,
// flags, time, tokens, cost, byte ranges) so a 100k-entry session costs a few MB, not a parsed copy of the file.

export class Columns {
	count = 0;
	ids: string[] = [];
	/** parentId exactly as written: string, null, or undefined when the key is absent / not a string. */
	rawParent: (string | null | undefined)[] = [];
	/** Tree parent index per entry, -1 = root. Loops are cut here (skeleton + getTree). */
	parent = new Int32Array(1024);
	/** Parent index as linked in the file, loops not cut: path walks stop at the first repeat instead. */
	link = new Int32Array(1024);
	kind = new Uint8Array(1024);
	flags = new Uint16Array(1024);
	time = new Float64Array(1024);
	tokens = new Float64Array(1024);
	/** usage.cost.total per entry (classify.ts costCarrier; 0 for entries without one): the roll-ups' cost column. */
	cost = new Float64Array(1024);
	/** Byte offset of the line in the file (-1 = not on disk: in-memory or migrated entries). */
	offset = new Float64Array(1024);
	length = new Int32Array(1024);
	line = new Int32Array(1024);

	reserve(n: number): void {
		if (n <= this.parent.length) return;
		let cap = this.parent.length;
		while (cap < n) cap *= 2;
		const grow = <T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(a: T, make: (k: number) => T): T => {
			const b = make(cap);
			b.set(a as never);
			return b;
		};
		this.parent = grow(this.parent, (k) => new Int32Array(k));
		this.link = grow(this.link, (k) => new Int32Array(k));
		this.kind = grow(this.kind, (k) => new Uint8Array(k));
		this.flags = grow(this.flags, (k) => new Uint16Array(k));
		this.time = grow(this.time, (k) => new Float64Array(k));
		this.tokens = grow(this.tokens, (k) => new Float64Array(k));
		this.cost = grow(this.cost, (k) => new Float64Array(k));
		this.offset = grow(this.offset, (k) => new Float64Array(k));
		this.length = grow(this.length, (k) => new Int32Array(k));
		this.line = grow(this.line, (k) => new Int32Array(k));
	}
}
