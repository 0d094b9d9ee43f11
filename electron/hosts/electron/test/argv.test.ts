import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionFilesFromArgs, userArgs } from "../argv";

describe("command-line files", () => {
	it("keeps existing files and ignores switches and missing paths", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-argv-"));
		writeFileSync(join(dir, "a.jsonl"), "");
		expect(sessionFilesFromArgs(["--no-sandbox", "a.jsonl", "missing.jsonl", dir], dir)).toEqual([join(dir, "a.jsonl")]);
	});

	it("skips the executable (packaged) or the executable and app path (development)", () => {
		expect(userArgs(["arbor", "x"], true)).toEqual(["x"]);
		expect(userArgs(["electron", "dist/main.cjs", "x"], false)).toEqual(["x"]);
		// Playwright and other launchers put switches before the app path.
		expect(userArgs(["electron", "--inspect=0", "--remote-debugging-port=0", "dist/main.cjs", "x"], false)).toEqual(["x"]);
		expect(userArgs(["electron"], false)).toEqual([]);
	});
});
