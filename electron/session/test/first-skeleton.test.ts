// SessionManager.getFirstSkeleton picks the first part from the index columns without copying them: it must
// equal the same pick made from a copied whole skeleton, on a generated session big enough to get one.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { firstSkeletonOf } from "../../../shared/first-skeleton";
import { SessionManager } from "../index";

const genSession = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "tools", "gen-session.mjs");

describe("SessionManager.getFirstSkeleton", () => {
	it("equals firstSkeletonOf(getSkeleton()) and maps every entry back to the file's", () => {
		const file = join(mkdtempSync(join(tmpdir(), "arbor-first-")), "s.jsonl");
		execFileSync(process.execPath, [genSession, "--n", "3000", "--seed", "first", "--out", file]);
		const sm = SessionManager.open(file);
		const whole = sm.getSkeleton();
		const part = sm.getFirstSkeleton(500, 1000);
		expect(part).toEqual(firstSkeletonOf(whole, 500, 1000));
		if (!part?.first) throw new Error("expected a first skeleton");
		expect(part.count).toBe(500);
		expect(part.first.total).toBe(whole.count);
		expect(part.ids[part.leaf]).toBe(whole.ids[whole.leaf]);
		part.ids.forEach((id, k) => expect(whole.ids[part.first!.fileIndex[k]]).toBe(id));
		// Under the threshold: the whole skeleton is sent in one piece.
		expect(sm.getFirstSkeleton(500, 5000)).toBeNull();
		sm.close();
	});
});
