// createBranchedSession(leafId, { sessionDir }) writes the new file directly in another folder (as pi's
// open(path, sessionDir) does): same bytes as a branch in the source folder, nothing left next to the source.
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../manager";
import { cleanupTempDirs, copyToTemp, tempDir } from "./helpers/files";
import { generatedSession } from "./helpers/gen";

afterAll(cleanupTempDirs);

/** The file's lines after the header (the header holds a fresh id, time and parentSession). */
function body(file: string): string[] {
	return readFileSync(file, "utf8").trimEnd().split("\n").slice(1);
}

describe("createBranchedSession into another folder", () => {
	for (const lazy of [false, true]) {
		it(`${lazy ? "large-file" : "small-file"} path: the file is written only in sessionDir and the session continues there`, () => {
			const src = copyToTemp(generatedSession({ n: 600, seed: "branch-dir" }), "branch-dir");
			const outDir = join(tempDir("arbor-branch-out"), "nested", "dir");
			const a = SessionManager.open(src, { lazy });
			const b = SessionManager.open(src, { lazy });
			const leaf = a.getEntries()[400].id as string;
			a.appendLabelChange(leaf, "kept");
			b.catchUp();
			const sameDir = b.createBranchedSession(leaf) as string;
			const other = a.createBranchedSession(leaf, { sessionDir: outDir }) as string;
			expect(dirname(other)).toBe(outDir);
			expect(readdirSync(outDir)).toEqual([basename(other)]);
			expect(readdirSync(dirname(src)).sort()).toEqual([basename(src), basename(sameDir)].sort());
			const label = (l: string) => l.replace(/"id":"[0-9a-f]{8}"/, "").replace(/"parentId":"[0-9a-f]{8}"/, "");
			expect(body(other).map(label)).toEqual(body(sameDir).map(label));
			expect(JSON.parse(readFileSync(other, "utf8").split("\n")[0]).parentSession).toBe(src);
			expect(a.getSessionFile()).toBe(other);
			expect(a.getSessionDir()).toBe(outDir);
			a.appendMessage({ role: "user", content: "continues in the new folder", timestamp: 1 });
			const reread = SessionManager.open(other);
			expect(reread.getBranch().map((e) => e.id)).toEqual(a.getBranch().map((e) => e.id));
			expect(reread.getLabel(leaf)).toBe("kept");
			a.close();
			b.close();
			reread.close();
		});
	}
});
