import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeServices } from "../../api/test/fake-services";
import { startBrowserHost } from "../../hosts/browser/server";
import { ArborServiceError } from "../../services/errors";
import { parseServeArgs, runServe } from "../serve";

const fixtures = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");

describe("arbor serve arguments", () => {
	it("sorts positional paths into files and folders and reads the options", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-serve-args-"));
		const file = join(dir, "a.jsonl");
		copyFileSync(join(fixtures, "formic__pi-v2-hook-message.jsonl"), file);
		expect(parseServeArgs([file, dir, "--port", "8123", "--extension", "x.ts", "--no-open"])).toEqual({
			files: [file], dirs: [dir], port: 8123, extensions: [resolve("x.ts")], open: false,
		});
		expect(parseServeArgs(["--port=0"])).toMatchObject({ port: 0, open: true });
	});

	it("reports bad input as an error with the reason", () => {
		expect(parseServeArgs(["--port", "http"])).toMatchObject({ error: expect.stringMatching(/--port/) });
		expect(parseServeArgs(["--port", "70000"])).toMatchObject({ error: expect.stringMatching(/--port/) });
		expect(parseServeArgs(["/no/such/file.jsonl"])).toMatchObject({ error: expect.stringMatching(/no such file/) });
		expect(parseServeArgs(["--bogus"])).toMatchObject({ error: expect.stringMatching(/unknown option/) });
		expect(parseServeArgs(["--help"])).toEqual({ help: true });
	});
});

describe("runServe", () => {
	const saved = { HOME: process.env.HOME, PI: process.env.PI_CODING_AGENT_DIR };
	afterEach(() => {
		process.env.HOME = saved.HOME;
		if (saved.PI === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = saved.PI;
		vi.restoreAllMocks();
	});

	it("prints the tokenized 127.0.0.1 URL, serves, and exits 0 on SIGTERM", async () => {
		const home = mkdtempSync(join(tmpdir(), "arbor-serve-home-"));
		process.env.HOME = home;
		process.env.PI_CODING_AGENT_DIR = join(home, ".pi", "agent");
		const file = join(home, "s.jsonl");
		copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), file);
		let out = "";
		vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
		const running = runServe([file, "--port", "0", "--no-open"]);
		await vi.waitFor(() => expect(out).toMatch(/http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/), { timeout: 10_000 });
		const url = /http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/.exec(out)?.[0] ?? "";
		// 200, or 503 "run npm run build" when dist/renderer is not built: either way the token was accepted.
		const res = await fetch(url);
		expect([200, 503]).toContain(res.status);
		const denied = await fetch(url.replace(/token=.*/, "token=wrong"));
		expect(denied.status).toBe(401);
		process.emit("SIGTERM");
		expect(await running).toBe(0);
	});

	it("exits 1 with usage on bad arguments", async () => {
		vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		expect(await runServe(["--port", "x"])).toBe(1);
	});

	it("exits 1 with a hint when the port is taken", async () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-serve-port-"));
		const busy = await startBrowserHost({ services: fakeServices().services, rendererDir: dir, log: () => {} });
		let err = "";
		vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
		try {
			const code = await runServe(["--port", String(busy.port), "--no-open"], (options) => startBrowserHost({ ...options, services: fakeServices().services, rendererDir: dir, log: () => {} }));
			expect(code).toBe(1);
			expect(err).toMatch(/already in use/);
		} finally {
			await busy.close();
		}
	});

	it("exits 2 naming the file when a launch file cannot be opened", async () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-serve-bad-"));
		const bad = join(dir, "s.jsonl");
		writeFileSync(bad, "");
		const fake = fakeServices({
			openSession: () => {
				throw new ArborServiceError("bad_file", "no valid session header", bad, 1);
			},
		});
		let err = "";
		vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
		vi.spyOn(process.stdout, "write").mockImplementation(() => true);
		const code = await runServe([bad, "--no-open"], (options) => startBrowserHost({ ...options, services: fake.services, rendererDir: dir, log: () => {} }));
		expect(code).toBe(2);
		expect(err).toContain(bad);
		expect(err).toContain("no valid session header");
		expect(fake.disposed).toBe(true);
	});
});
