// The first skeleton of a big session: which entries it holds, how its indices map to the file's, and the
// index translations the renderer makes while it shows one.
import { describe, expect, it } from "vitest";
import { fileIndices, firstSkeletonOf, partIndices } from "../first-skeleton";
import { skeleton, type NodeSpec } from "./skeleton-builder";

/** A main line m0..m{n-1}; an old branch b0..b9 off m10; the leaf moved back to m{back} at the end of the file. */
function session(n: number, back: number): NodeSpec[] {
	const nodes: NodeSpec[] = [];
	for (let i = 0; i < n; i++) nodes.push({ id: `m${i}`, parent: i === 0 ? null : `m${i - 1}`, label: i === 5 ? "early" : undefined });
	for (let i = 0; i < 10; i++) nodes.push({ id: `b${i}`, parent: i === 0 ? "m10" : `b${i - 1}`, label: i === 9 ? "late" : undefined });
	nodes.push({ id: "leaf", parent: `m${back}` });
	return nodes;
}

describe("firstSkeletonOf", () => {
	it("is null for a session under the size limit or not bigger than the part", () => {
		const sk = skeleton(session(100, 50));
		expect(firstSkeletonOf(sk, 20, 1000)).toBeNull();
		expect(firstSkeletonOf(sk, 200, 10)).toBeNull();
	});

	it("holds the leaf's path from the leaf up, then the newest entries, in file order with parents remapped", () => {
		const sk = skeleton(session(100, 50), "leaf");
		const part = firstSkeletonOf(sk, 20, 10);
		if (!part?.first) throw new Error("expected a first skeleton");
		expect(part.count).toBe(20);
		expect(part.first.total).toBe(sk.count);
		// Half the part (10) is the leaf's path: leaf, m50 .. m42; the newest entries fill the rest.
		const ids = part.ids;
		for (const id of ["leaf", "m50", "m42", "b9", "b0"]) expect(ids).toContain(id);
		expect(ids).not.toContain("m41");
		expect(ids).not.toContain("m99"); // the part is full before the tail reaches the main line
		// File order, and every index maps back to the same entry of the whole skeleton.
		expect([...part.first.fileIndex]).toEqual([...part.first.fileIndex].sort((a, b) => a - b));
		part.ids.forEach((id, k) => expect(sk.ids[part.first!.fileIndex[k]]).toBe(id));
		// A parent inside the part is remapped; one outside makes a root.
		const at = (id: string) => ids.indexOf(id);
		expect(part.parent[at("leaf")]).toBe(at("m50"));
		expect(part.parent[at("m42")]).toBe(-1);
		expect(part.parent[at("b0")]).toBe(-1); // m10 is not in the part
		expect(part.leaf).toBe(at("leaf"));
		expect(part.resumeLeaf).toBe(at("leaf"));
		// Labels on entries of the part only, on the part's indices.
		expect(part.labels.map((l) => [l.label, ids[l.target]])).toEqual([["late", "b9"]]);
	});

	it("translates indices both ways", () => {
		const sk = skeleton(session(100, 50), "leaf");
		const part = firstSkeletonOf(sk, 20, 10)!;
		const k = part.ids.indexOf("m45");
		const file = sk.ids.indexOf("m45");
		expect(fileIndices(part, [k])).toEqual([file]);
		expect(partIndices(part, [file, sk.ids.indexOf("m3")])).toEqual([k]);
		// A whole skeleton's indices are the file's.
		expect(fileIndices(sk, [3, 7])).toEqual([3, 7]);
		expect(partIndices(sk, [3, 7])).toEqual([3, 7]);
	});
});
