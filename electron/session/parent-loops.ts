// Parent loops in a tree of parent indices (-1 = root): each entry's chain is walked once, stamped with the
// entry it started from, so the whole pass is O(n). The full index cuts each loop it finds; the path-only
// reader gives up on the file.

/**
 * Calls `onLoop(j)` with one entry of each loop, as the walk from entry 0 upwards reaches it. `onLoop`
 * may cut the loop by changing `parent`: later walks see the change.
 */
export function forEachParentLoop(parent: Int32Array, n: number, onLoop: (entryOnLoop: number) => void): void {
	const stamp = new Int32Array(n);
	for (let i = 0; i < n; i++) {
		if (stamp[i] !== 0) continue;
		let j = i;
		while (j >= 0 && stamp[j] === 0) {
			stamp[j] = i + 1;
			j = parent[j];
		}
		if (j >= 0 && stamp[j] === i + 1) onLoop(j);
	}
}
