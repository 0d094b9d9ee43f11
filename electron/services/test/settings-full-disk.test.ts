// A nearly full disk: the temp file of a settings write takes part of the data (a short write), then the
// next write fails with ENOSPC. The old settings file must survive whole and the failure must be reported;
// simulated by wrapping the real writeSync (only for files named like the settings temp file).
import * as path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const failing = { armed: false, mode: "short" as "short" | "enospc" };
vi.mock("node:fs", async (importOriginal) => {
	const real = await importOriginal<typeof import("node:fs")>();
	const writeSync = ((fd: number, buf: Buffer | string, off?: unknown, len?: unknown, ...rest: unknown[]) => {
		const call = () => (real.writeSync as (...a: unknown[]) => number)(fd, buf, off, len, ...rest);
		if (!failing.armed) return call();
		const bytes = typeof buf === "string" ? Buffer.from(buf) : buf;
		const start = typeof off === "number" ? off : 0;
		const length = typeof len === "number" ? len : bytes.length - start;
		if (failing.mode === "short" && length > 1) {
			// The disk takes half, and is full for the rest.
			failing.mode = "enospc";
			return real.writeSync(fd, bytes, start, Math.floor(length / 2));
		}
		throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
	}) as typeof real.writeSync;
	return { ...real, writeSync, default: { ...real, writeSync } };
});

const fs = await import("node:fs");
const { SettingsStore } = await import("../settings");

describe("settings on a full disk", () => {
	afterEach(() => {
		failing.armed = false;
		failing.mode = "short";
	});

	for (const mode of ["short", "enospc"] as const) {
		it(`${mode === "short" ? "a short write, then ENOSPC" : "ENOSPC at once"}: the write fails and the old settings file survives whole`, () => {
			const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "arbor-settings-full-"));
			const store = new SettingsStore(path.join(dir, "arbor"), path.join(dir, "pi"));
			for (let i = 0; i < 8; i++) store.addRecentFile(`/sessions/recent-${i}.jsonl`);
			store.update({ model: { provider: "local", modelId: "kept", baseUrl: "http://127.0.0.1:1/v1" } });
			const before = fs.readFileSync(store.file, "utf8");
			failing.armed = true;
			failing.mode = mode;
			expect(() => store.addRecentFile("/sessions/new.jsonl")).toThrow(/ENOSPC/);
			failing.armed = false;
			expect(fs.readFileSync(store.file, "utf8")).toBe(before);
			expect(store.load().recentFiles).toHaveLength(8);
			expect(store.load().model?.modelId).toBe("kept");
			// No temp file is left behind either.
			expect(fs.readdirSync(path.dirname(store.file))).toEqual(["settings.json"]);
			expect(fs.statSync(store.file).mode & 0o777).toBe(0o600);
		});
	}
});
