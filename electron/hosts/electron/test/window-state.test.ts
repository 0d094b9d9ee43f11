import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_WINDOW_STATE, fitToDisplays, loadWindowState, saveWindowState } from "../window-state";

describe("window state", () => {
	it("round-trips through the file", () => {
		const file = join(mkdtempSync(join(tmpdir(), "arbor-ws-")), "sub", "window-state.json");
		saveWindowState(file, { x: 5, y: 6, width: 1000, height: 800, maximized: true });
		expect(loadWindowState(file)).toEqual({ x: 5, y: 6, width: 1000, height: 800, maximized: true });
	});

	it("is written 0600 in a 0700 folder, also under umask 022 (issue #23: Arbor's files are the user's alone)", () => {
		const old = process.umask(0o022);
		try {
			const dir = join(mkdtempSync(join(tmpdir(), "arbor-ws-")), ".arbor");
			saveWindowState(join(dir, "window-state.json"), { width: 1000, height: 800, maximized: false });
			expect((statSync(dir).mode & 0o777).toString(8)).toBe("700");
			expect((statSync(join(dir, "window-state.json")).mode & 0o777).toString(8)).toBe("600");
		} finally {
			process.umask(old);
		}
	});

	it("falls back to defaults for a missing, corrupt or hostile file", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-ws-"));
		expect(loadWindowState(join(dir, "none.json"))).toEqual(DEFAULT_WINDOW_STATE);
		writeFileSync(join(dir, "bad.json"), "{not json");
		expect(loadWindowState(join(dir, "bad.json"))).toEqual(DEFAULT_WINDOW_STATE);
		writeFileSync(join(dir, "odd.json"), JSON.stringify({ width: 1e9, height: "x", x: Number.NaN, maximized: "yes" }));
		const odd = loadWindowState(join(dir, "odd.json"));
		expect(odd).toEqual({ width: 20_000, height: DEFAULT_WINDOW_STATE.height, maximized: false });
		expect(readFileSync(join(dir, "odd.json"), "utf8")).toContain("1000000000");
	});

	it("drops a position that is on no display any more", () => {
		const displays = [{ x: 0, y: 0, width: 1920, height: 1080 }];
		expect(fitToDisplays({ x: 100, y: 100, width: 800, height: 600, maximized: false }, displays)).toMatchObject({ x: 100, y: 100 });
		expect(fitToDisplays({ x: 5000, y: 100, width: 800, height: 600, maximized: false }, displays)).toEqual({ width: 800, height: 600, maximized: false });
	});
});
