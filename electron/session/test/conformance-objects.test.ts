// Entries Arbor returns may be lazy stand-ins for bytes still on disk; to every consumer they must behave as
// the plain objects pi returns: same keys in the same order, spreadable, structured-cloneable (Electron IPC
// and worker messages use structured clone), deep-equal to pi's entries and messages.
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { cleanupTempDirs, copyFixture, copyToTemp } from "./helpers/files";
import { generatedSession } from "./helpers/gen";
import { idOf } from "./helpers/shapes";

afterAll(cleanupTempDirs);

function sources(): Array<[string, string]> {
	return [
		["formic__pi-v3-branch-compaction.jsonl", copyFixture("formic__pi-v3-branch-compaction.jsonl", "src")],
		["kimchi-dev__statsuline.v3.jsonl", copyFixture("kimchi-dev__statsuline.v3.jsonl", "src")],
		["generated seed 1", generatedSession({ n: 2000, seed: 1, customMessages: 0.3 })],
	];
}

describe("entry objects behave like pi's plain objects", () => {
	for (const [name, source] of sources()) {
		it(`${name}: getEntry / getEntries / getBranch / getTree entries are plain-equal, spreadable and structured-cloneable`, () => {
			const arbor = SessionManager.open(copyToTemp(source, "arbor"));
			const pi = PiSessionManager.open(copyToTemp(source, "pi"));
			const piEntries = pi.getEntries();
			const arborEntries = arbor.getEntries();
			const step = Math.max(1, Math.floor(piEntries.length / 200));
			for (let i = 0; i < piEntries.length; i += step) {
				const want = piEntries[i];
				for (const [how, got] of [
					["getEntries", arborEntries[i]],
					["getEntry", arbor.getEntry(want.id)],
				] as const) {
					const where = `${how} #${i} ${want.id}`;
					expect(Object.keys(got as object), where).toEqual(Object.keys(want));
					expect({ ...(got as object) }, where).toStrictEqual({ ...want });
					expect(structuredClone(got), where).toStrictEqual(structuredClone(want));
				}
			}
			const leaf = pi.getLeafId() as string;
			expect(structuredClone(arbor.getBranch(leaf))).toStrictEqual(structuredClone(pi.getBranch(leaf)));
			expect(structuredClone(arbor.buildSessionContext())).toStrictEqual(structuredClone(pi.buildSessionContext()));
			const roots = arbor.getTree();
			expect(structuredClone(roots[0].entry)).toStrictEqual(structuredClone(pi.getTree()[0].entry));
			expect(idOf(roots[0].entry)).toBe(idOf(piEntries[0]));
			arbor.close();
		});
	}
});
