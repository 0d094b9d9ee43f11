import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { collectEntriesForBranchSummary, SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./helpers/entries";
import { makeServices, type TestServices } from "./helpers/services";

const GEN = path.resolve(import.meta.dirname, "../../../../shared/tools/gen-session.mjs");

let t: TestServices;
afterEach(() => t?.services.dispose());

function generate(args: string[]): string {
	const file = path.join(tempDir(), "gen.jsonl");
	execFileSync(process.execPath, [GEN, "--n", "600", "--seed", "7", "--branch-every", "12", "--out", file, ...args], { stdio: "ignore" });
	return file;
}

describe("navigation preview agrees with pi's own collectEntriesForBranchSummary", () => {
	it("same abandoned entries and common ancestor when no compaction is on the way", async () => {
		const file = generate(["--compaction-every", "0"]);
		const pi = PiSessionManager.open(file);
		t = makeServices();
		const { sessionId } = await t.services.openSession({ path: file });
		const ids = pi.getEntries().map((e) => e.id);
		const leaf = pi.getLeafId();
		let compared = 0;
		for (let i = 0; i < ids.length; i += 17) {
			const target = ids[i] as string;
			if (target === leaf) continue;
			const ours = await t.services.previewNavigation({ sessionId, targetId: target });
			const theirs = collectEntriesForBranchSummary(pi, leaf, target);
			expect(ours.commonAncestorId).toBe(theirs.commonAncestorId);
			expect(ours.entriesToSummarize).toEqual(theirs.entries.map((e) => e.id));
			compared++;
		}
		expect(compared).toBeGreaterThan(20);
	});

	it("with compactions, ours is pi's list cut at the newest compaction on the abandoned path", async () => {
		const file = generate(["--compaction-every", "60", "--branch-every", "0"]);
		const pi = PiSessionManager.open(file);
		t = makeServices();
		const { sessionId } = await t.services.openSession({ path: file });
		const ids = pi.getEntries().map((e) => e.id);
		const leaf = pi.getLeafId();
		let cut = 0;
		for (let i = 0; i < ids.length; i += 13) {
			const target = ids[i] as string;
			if (target === leaf) continue;
			const ours = (await t.services.previewNavigation({ sessionId, targetId: target })).entriesToSummarize;
			const theirs = collectEntriesForBranchSummary(pi, leaf, target).entries;
			let start = 0;
			for (let k = theirs.length - 1; k >= 0; k--) {
				if (theirs[k]?.type === "compaction") {
					start = k;
					break;
				}
			}
			if (start > 0) cut++;
			expect(ours).toEqual(theirs.slice(start).map((e) => e.id));
		}
		expect(cut).toBeGreaterThan(0);
	});
});

describe("pi resumes where Arbor saved the position", () => {
	it("after navigate + savePosition, pi's SessionManager opens the file with that leaf and that context", async () => {
		const { branchySession, writeSession } = await import("./helpers/entries");
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		await t.services.navigate({ sessionId, targetId: "a4" });
		const { entryId } = await t.services.savePosition({ sessionId });
		const pi = PiSessionManager.open(file);
		expect(pi.getLeafId()).toBe(entryId);
		const ours = await t.services.getContext({ sessionId, leafId: entryId });
		expect(pi.buildSessionContext().messages).toEqual(ours.messages.map((m) => m.message));
		expect(ours.messages.map((m) => m.entryId)).toEqual(["u1", "a1", "u3", "a4"]);
	});

	it("a summary written by Arbor is where pi's context puts it", async () => {
		const { branchySession, writeSession } = await import("./helpers/entries");
		t = makeServices();
		const base = tempDir("arbor-ext-home-");
		const fs = await import("node:fs");
		fs.mkdirSync(path.join(base, "extensions"), { recursive: true });
		fs.writeFileSync(
			path.join(base, "extensions", "s.js"),
			`export default (pi) => pi.on("session_before_tree", () => ({ summary: { summary: "SUMMARY", details: { readFiles: [], modifiedFiles: [] } } }));`,
		);
		t.services.dispose();
		t = makeServices({ settingsDir: base });
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		const r = await t.services.navigate({ sessionId, targetId: "u3", summarize: true });
		await t.services.savePosition({ sessionId });
		const pi = PiSessionManager.open(file);
		const msgs = pi.buildSessionContext().messages;
		expect(msgs.map((m) => m.role)).toEqual(["user", "assistant", "branchSummary"]);
		expect(r.editorText).toBe("Try another approach instead");
	});
});
