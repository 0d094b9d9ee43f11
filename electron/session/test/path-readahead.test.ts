// Reading the stand-ins of a path in order batches the disk reads (read-ahead along the latest path handed
// out). Whatever order lists are read in, interleaved or stale, every entry must be the one at its index.
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../manager";
import { cleanupTempDirs, copyToTemp } from "./helpers/files";
import { generatedSession } from "./helpers/gen";

afterAll(cleanupTempDirs);

describe("read-ahead along paths", () => {
	it("paths, entry lists and child lists read in interleaved orders equal the eagerly loaded entries", () => {
		const file = copyToTemp(generatedSession({ n: 3000, seed: "readahead", branchEvery: 40 }), "readahead");
		const eager = SessionManager.open(file, { lazy: false });
		const lazy = SessionManager.open(file, { lazy: true });
		const ids = eager.getEntries().map((e) => e.id as string);
		const leafA = ids[ids.length - 1];
		const leafB = ids[Math.floor(ids.length / 2)];
		const a = lazy.getBranch(leafA);
		const b = lazy.getBranch(leafB);
		const all = lazy.getEntries();
		const expA = eager.getBranch(leafA).map((e) => JSON.stringify(e));
		const expB = eager.getBranch(leafB).map((e) => JSON.stringify(e));
		// Interleaved: the older path (a) is read after newer lists were handed out, backwards then forwards.
		for (let k = b.length - 1; k >= 0; k -= 3) expect(JSON.stringify(b[k])).toBe(expB[k]);
		for (let k = 0; k < a.length; k++) expect(JSON.stringify(a[k]), `a[${k}]`).toBe(expA[k]);
		const eagerAll = eager.getEntries();
		for (let k = 0; k < all.length; k += 7) expect(JSON.stringify(all[k])).toBe(JSON.stringify(eagerAll[k]));
		const kids = lazy.getChildren(ids[0]);
		expect(kids.map((e) => JSON.stringify(e))).toEqual(eager.getChildren(ids[0]).map((e) => JSON.stringify(e)));
		for (let k = 0; k < b.length; k++) expect(JSON.stringify(b[k]), `b[${k}]`).toBe(expB[k]);
		expect(JSON.stringify(lazy.buildSessionContext(leafB))).toBe(JSON.stringify(eager.buildSessionContext(leafB)));
		eager.close();
		lazy.close();
	});
});
