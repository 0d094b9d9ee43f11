// DOM ids of the graph's treeitems (aria-activedescendant points at them).

/** DOM id of an entry's treeitem (ids from the file are arbitrary text: encoded to a safe token). */
export function treeItemId(entryId: string): string {
	return `arbor-item-${String(entryId).replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;
}
