// createBranchedSession copies the path's lines byte for byte (runs of neighbouring lines are read together):
// a branchy path (lines scattered through the file), a last line without "\n", and a label dropped mid-path
// (its child re-parented, the only rewritten line) all come out exact.
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../manager";
import { cleanupTempDirs, copyToTemp } from "./helpers/files";
import { generatedSession } from "./helpers/gen";

afterAll(cleanupTempDirs);

function linesById(file: string): Map<string, string> {
	const out = new Map<string, string>();
	for (const l of readFileSync(file, "utf8").split("\n")) {
		if (!l.trim()) continue;
		const o = JSON.parse(l) as { id?: string; type?: string };
		if (o.type !== "session" && o.id) out.set(o.id, l);
	}
	return out;
}

describe("createBranchedSession copies raw lines", () => {
	for (const lazy of [false, true]) {
		it(`${lazy ? "large-file" : "small-file"} path: copied lines equal the source bytes; only the re-parented line is rewritten`, () => {
			const file = copyToTemp(generatedSession({ n: 900, seed: "branch-copy", branchEvery: 20 }), "branch-copy");
			const sm0 = SessionManager.open(file);
			const path0 = sm0.getBranch();
			// A label mid-path: appended under an entry, then the path continues below the label.
			sm0.branch(path0[path0.length - 2].id as string);
			const labelId = sm0.appendLabelChange(path0[1].id as string, "kept label");
			const childId = sm0.appendMessage({ role: "user", content: "below the label", timestamp: 1 });
			sm0.close();
			// The file's last line loses its "\n" (another writer cut mid-way, or an editor).
			writeFileSync(file, readFileSync(file, "utf8").replace(/\n$/, ""));
			const sm = SessionManager.open(file, { lazy });
			const expectedIds = sm
				.getBranch(childId)
				.filter((e) => e.type !== "label")
				.map((e) => e.id as string);
			expect(sm.getBranch(childId).some((e) => e.id === labelId)).toBe(true);
			const full = sm.getBranch(childId).map((e) => ({ id: e.id as string, type: e.type }));
			const out = sm.createBranchedSession(childId) as string;
			const src = linesById(file);
			const dst = linesById(out);
			// Entries right below a dropped label are re-parented (rewritten); every other one is copied.
			const copied = full.filter((e, k) => e.type !== "label" && !(k > 0 && full[k - 1].type === "label")).map((e) => e.id);
			expect(copied.length).toBeGreaterThan(5);
			for (const id of copied) expect(dst.get(id), id).toBe(src.get(id));
			const child = JSON.parse(dst.get(childId) as string) as { parentId: string };
			expect(child.parentId).toBe(expectedIds[expectedIds.length - 2]);
			expect(readFileSync(out, "utf8").endsWith("\n")).toBe(true);
			const body = readFileSync(out, "utf8")
				.trimEnd()
				.split("\n")
				.slice(1)
				.map((l) => (JSON.parse(l) as { id: string }).id);
			expect(body.slice(0, expectedIds.length)).toEqual(expectedIds);
			expect(SessionManager.open(out).getLabel(path0[1].id as string)).toBe("kept label");
			sm.close();
		});
	}
});
