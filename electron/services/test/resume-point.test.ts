// Resume point safety (pi #9930, omp #12242): Arbor's bookkeeping writes never move pi's resume point to
// another branch; a last line on another branch than the newest conversation is reported with the entry
// the user likely means; pi's cache-warmer usage lines arriving live stay quiet (no leaf change, no event
// beyond the hidden delta). Checked against pi 1.6.0's own SessionManager where pi decides.
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { PI_REFERENCES } from "../../session/test/helpers/pi16";
import { copyToTemp } from "../../session/test/helpers/files";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

const usageLine = (id: string, parentId: string) => ({
	type: "usage",
	id,
	parentId,
	timestamp: new Date(Date.UTC(2026, 0, 2)).toISOString(),
	kind: "cache_warm",
	provider: "anthropic",
	model: "claude-x",
	usage: { input: 10, output: 0, cacheRead: 900, cacheWrite: 0, totalTokens: 910, cost: { total: 0.0004 } },
});

function appendLines(file: string, lines: unknown[]): void {
	const text = lines.map((l) => `${JSON.stringify(l)}\n`).join("");
	execFileSync(process.execPath, ["-e", `require("fs").appendFileSync(process.argv[1], ${JSON.stringify(text)})`, file], { stdio: "ignore" });
}

/** The leaf each reference pi resumes at, and the ids of its path. */
function piResume(file: string): Array<{ leaf: string | null; path: string[] }> {
	return PI_REFERENCES.map(([, Pi]) => {
		const pi = Pi.open(copyToTemp(file, "pi"));
		return { leaf: pi.getLeafId(), path: pi.getBranch().map((e) => e.id) };
	});
}

describe("Arbor's own bookkeeping never moves pi's resume point to another branch", () => {
	it("a label set while looking at another branch hangs under the resume point, and pi resumes on the same branch", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		await t.services.navigate({ sessionId, targetId: "a4" }); // the in-app leaf moves to the other branch
		await t.services.setLabel({ sessionId, entryId: "u3", label: "other idea" });
		const last = readLines(file).at(-1) as { type: string; parentId: string; id: string };
		expect(last).toMatchObject({ type: "label", targetId: "u3", parentId: "a3" });
		for (const r of piResume(file)) expect(r.path).toEqual(["u1", "a1", "u2", "a2", "t2", "a3", last.id]);
		// The in-app leaf stays where the user is; the label still reaches the graph.
		const sk = await t.services.getSkeleton({ sessionId });
		expect(sk.ids[sk.leaf]).toBe("a4");
		expect(sk.labels.map((l) => [sk.ids[l.target], l.label])).toEqual([["u3", "other idea"]]);
		expect((await t.services.getResumePoint({ sessionId })).stale).toBe(false);
	});

	it("at the resume point the label behaves as in pi: the leaf moves onto it", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		await t.services.setLabel({ sessionId, entryId: "u2", label: "x" });
		const last = readLines(file).at(-1) as { id: string; parentId: string };
		expect(last.parentId).toBe("a3");
		const sk = await t.services.getSkeleton({ sessionId });
		expect(sk.ids[sk.leaf]).toBe(last.id);
	});
});

describe("a resume point left on another branch is reported", () => {
	it("a usage line appended from a stale leaf: stale, with the newest conversation as the suggestion; Save position fixes it", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		appendLines(file, [usageLine("w1", "a4")]); // pi's cache warmer wrote from an old leaf
		const { sessionId } = await t.services.openSession({ path: file });
		for (const r of piResume(file)) expect(r.path).toEqual(["u1", "a1", "u3", "a4", "w1"]);
		const rp = await t.services.getResumePoint({ sessionId });
		expect(rp).toEqual({ resumeLeafId: "w1", anchorId: "a4", newestConversationId: "a3", stale: true, suggestedId: "a3" });
		await t.services.navigate({ sessionId, targetId: "a3" });
		await t.services.savePosition({ sessionId });
		expect((await t.services.getResumePoint({ sessionId })).stale).toBe(false);
		for (const r of piResume(file)) expect(r.path.slice(0, 6)).toEqual(["u1", "a1", "u2", "a2", "t2", "a3"]);
	});

	it("a label appended by pi from a stale leaf is stale too; a saved position away from the newest conversation is not", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		appendLines(file, [{ type: "label", id: "l1", parentId: "a4", timestamp: new Date(Date.UTC(2026, 0, 3)).toISOString(), targetId: "u3", label: "hm" }]);
		const { sessionId } = await t.services.openSession({ path: file });
		expect(await t.services.getResumePoint({ sessionId })).toMatchObject({ stale: true, suggestedId: "a3", anchorId: "l1" });
		await t.services.navigate({ sessionId, targetId: "a4" });
		await t.services.savePosition({ sessionId });
		expect(await t.services.getResumePoint({ sessionId })).toMatchObject({ stale: false, suggestedId: null });
	});

	it("a usage tail on the newest branch is not stale", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		appendLines(file, [usageLine("w1", "a3"), usageLine("w2", "w1")]);
		const { sessionId } = await t.services.openSession({ path: file });
		expect(await t.services.getResumePoint({ sessionId })).toEqual({
			resumeLeafId: "w2",
			anchorId: "a3",
			newestConversationId: "a3",
			stale: false,
			suggestedId: null,
		});
		const sk = await t.services.getSkeleton({ sessionId });
		// Both drawn on the last visible entry: the in-app leaf and the resume point agree (no "Save position" nag).
		expect([sk.ids[sk.leaf], sk.ids[sk.resumeLeaf]]).toEqual(["a3", "a3"]);
	});
});

describe("live tail: pi's cache warmer appending usage lines stays quiet", () => {
	it("each usage line arrives as one hidden delta; the leaf and the drawn resume point do not move", async () => {
		t = makeServices({ watch: true, pollMs: 100 });
		const file = writeSession(tempDir(), branchySession());
		await t.services.openSession({ path: file });
		t.events.length = 0;
		appendLines(file, [usageLine("w1", "a3")]);
		await expect.poll(() => t.of("session_appended").flatMap((e) => e.delta.ids), { timeout: 5_000 }).toEqual(["w1"]);
		appendLines(file, [usageLine("w2", "w1")]);
		await expect.poll(() => t.of("session_appended").flatMap((e) => e.delta.ids), { timeout: 5_000 }).toEqual(["w1", "w2"]);
		expect(t.of("leaf_changed")).toEqual([]);
		const deltas = t.of("session_appended").map((e) => e.delta);
		for (const d of deltas) expect([d.ids[d.leaf - d.start] ?? "old", d.leaf, d.resumeLeaf]).toEqual(["old", 7, 7]);
		// The next real message from pi is followed as before.
		appendLines(file, [
			{
				type: "message",
				id: "n1",
				parentId: "w2",
				timestamp: new Date(Date.UTC(2026, 0, 4)).toISOString(),
				message: { role: "user", content: "go on", timestamp: 1 },
			},
		]);
		await expect.poll(() => t.of("leaf_changed").at(-1)?.leafId, { timeout: 5_000 }).toBe("n1");
		expect(t.of("leaf_changed").at(-1)).toMatchObject({ resumeLeafId: "n1" });
	});
});
