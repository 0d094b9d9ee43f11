// "Save position for pi" writes the position the user chose (issue 39 item 3). A new-user pass found: Navigate,
// Save position, then a label — the label hangs under the saved marker (the resume point), and the resume
// point was then reported stale with the OLD branch's newest conversation as the suggestion, so the banner's
// "Save position for pi" moved Arbor's leaf back there and wrote a marker for the old leaf. A saved position
// stays deliberate through the bookkeeping lines under it; every save writes under the leaf of that moment.
import { afterEach, describe, expect, it } from "vitest";
import { PI_REFERENCES } from "../../session/test/helpers/pi16";
import { copyToTemp } from "../../session/test/helpers/files";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

type Line = { type: string; id: string; parentId: string | null; customType?: string; data?: { leafId?: string } };
const last = (file: string): Line => readLines(file).at(-1) as unknown as Line;

/** The ids on the path each reference pi resumes on. */
function piPaths(file: string): string[][] {
	return PI_REFERENCES.map(([, Pi]) =>
		Pi.open(copyToTemp(file, "pi"))
			.getBranch()
			.map((e) => e.id),
	);
}

async function leafPath(sessionId: string): Promise<string[]> {
	const sk = await t.services.getSkeleton({ sessionId });
	const out: string[] = [];
	for (let i = sk.leaf; i >= 0; i = sk.parent[i] === i ? -1 : sk.parent[i]) out.unshift(sk.ids[i]);
	return out;
}

describe("Save position for pi: the marker names the leaf of the moment, and the leaf never moves back", () => {
	it("navigate → save → label → save: no stale report, each marker under the current leaf, pi resumes on the chosen branch", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		// The newest conversation is a3; the user goes back to the other approach (a4) and saves there.
		await t.services.navigate({ sessionId, targetId: "a4" });
		await t.services.savePosition({ sessionId });
		const m1 = last(file);
		expect(m1).toMatchObject({ type: "custom", customType: "arbor.position", parentId: "a4", data: { leafId: "a4" } });
		// A label at the saved position: it hangs under the marker (the resume point), as the app's labels do.
		await t.services.setLabel({ sessionId, entryId: "u3", label: "keep this one" });
		const label = last(file);
		expect(label).toMatchObject({ type: "label", parentId: m1.id });
		// Still the position the user saved: nothing stale, nothing suggested (before the fix: stale, suggesting a3).
		expect(await t.services.getResumePoint({ sessionId })).toMatchObject({ stale: false, suggestedId: null });
		const leafBefore = await leafPath(sessionId);
		expect(leafBefore.slice(0, 4)).toEqual(["u1", "a1", "u3", "a4"]);
		// Save again: under the leaf of this moment, never the old branch.
		await t.services.savePosition({ sessionId });
		const m2 = last(file);
		expect(m2).toMatchObject({ customType: "arbor.position", parentId: leafBefore.at(-1), data: { leafId: leafBefore.at(-1) } });
		expect(await leafPath(sessionId)).toEqual([...leafBefore, m2.id]);
		expect(await t.services.getResumePoint({ sessionId })).toMatchObject({ stale: false, suggestedId: null });
		for (const p of piPaths(file)) expect(p).toEqual(["u1", "a1", "u3", "a4", m1.id, label.id, m2.id]);
	});

	it("a label from a stale leaf with no saved position above it is still reported (the suggestion stays the newest conversation)", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		await t.services.navigate({ sessionId, targetId: "a4" });
		// Without a save, the label hangs under the resume point (a3): not stale.
		await t.services.setLabel({ sessionId, entryId: "u3", label: "x" });
		expect(last(file)).toMatchObject({ type: "label", parentId: "a3" });
		expect(await t.services.getResumePoint({ sessionId })).toMatchObject({ stale: false });
	});

	it("the banner's save: the entry it names gets the marker in one write; an unknown entry is a typed error and writes nothing", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		await t.services.navigate({ sessionId, targetId: "a4" });
		const n = readLines(file).length;
		await expect(t.services.savePosition({ sessionId, entryId: "nope" })).rejects.toMatchObject({ code: "not_found" });
		expect(readLines(file).length).toBe(n);
		expect((await leafPath(sessionId)).at(-1)).toBe("a4");
		await t.services.savePosition({ sessionId, entryId: "a3" });
		expect(last(file)).toMatchObject({ customType: "arbor.position", parentId: "a3", data: { leafId: "a3" } });
		expect((await leafPath(sessionId)).slice(-2)).toEqual(["a3", last(file).id]);
		// A user message is saved as itself (not its parent, as Navigate would): pi resumes right after it.
		await t.services.savePosition({ sessionId, entryId: "u3" });
		expect(last(file)).toMatchObject({ parentId: "u3", data: { leafId: "u3" } });
	});
});
