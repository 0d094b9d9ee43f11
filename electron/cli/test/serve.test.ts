import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeServices } from "../../api/test/fake-services";
import { startBrowserHost } from "../../hosts/browser/server";
import { ArborServiceError } from "../../services/errors";
import { connect } from "../../hosts/browser/test/ws-client";
import { buildCli, repo } from "./helpers";
import { parseServeArgs, runServe, writeLaunchFile } from "../serve";

const fixtures = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");

describe("arbor serve arguments", () => {
	it("sorts positional paths into files and folders and reads the options", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-serve-args-"));
		const file = join(dir, "a.jsonl");
		copyFileSync(join(fixtures, "formic__pi-v2-hook-message.jsonl"), file);
		expect(parseServeArgs([file, dir, "--port", "8123", "--extension", "x.ts", "--no-open"])).toEqual({
			files: [file],
			dirs: [dir],
			port: 8123,
			extensions: [resolve("x.ts")],
			open: false,
			portGiven: true,
			idleMinutes: null,
		});
		expect(parseServeArgs(["--port=0"])).toMatchObject({ port: 0, open: true, portGiven: true });
		// No --port: the user's shared host (reused by later launches).
		expect(parseServeArgs([file])).toMatchObject({ portGiven: false, idleMinutes: null });
		expect(parseServeArgs(["--exit-when-idle=2.5"])).toMatchObject({ idleMinutes: 2.5 });
		expect(parseServeArgs(["--exit-when-idle"])).toMatchObject({ idleMinutes: Number(process.env.ARBOR_IDLE_MINUTES ?? 10) });
	});

	it("reports bad input as an error with the reason", () => {
		expect(parseServeArgs(["--port", "http"])).toMatchObject({ error: expect.stringMatching(/--port/) });
		expect(parseServeArgs(["--port", "70000"])).toMatchObject({ error: expect.stringMatching(/--port/) });
		expect(parseServeArgs(["/no/such/file.jsonl"])).toMatchObject({ error: expect.stringMatching(/no such file/) });
		expect(parseServeArgs(["--bogus"])).toMatchObject({ error: expect.stringMatching(/unknown option/) });
		expect(parseServeArgs(["--exit-when-idle=0"])).toMatchObject({ error: expect.stringMatching(/--exit-when-idle/) });
		expect(parseServeArgs(["--exit-when-idle=soon"])).toMatchObject({ error: expect.stringMatching(/--exit-when-idle/) });
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
		await vi.waitFor(() => expect(out).toMatch(/http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+/), { timeout: 10_000 });
		const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+/.exec(out)?.[0] ?? "");
		const token = url.hash.slice("#token=".length);
		// 200, or 503 "run npm run build" when dist/renderer is not built.
		const res = await fetch(url);
		expect([200, 503]).toContain(res.status);
		const ok = await connect(Number(url.port), { token });
		expect((await ok.request("getSettings")).ok).toBe(true);
		ok.close();
		await expect(connect(Number(url.port), { token: "wrong" })).rejects.toThrow(/401/);
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
			const code = await runServe(["--port", String(busy.port), "--no-open"], (options) =>
				startBrowserHost({ ...options, services: fakeServices().services, rendererDir: dir, log: () => {} }),
			);
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

describe("opening the browser", () => {
	it("launches it on a 0600 redirect file in a 0700 folder: no process argument list ever holds the token", async () => {
		buildCli();
		const home = mkdtempSync(join(tmpdir(), "arbor-serve-open-"));
		const bin = join(home, "bin");
		mkdirSync(bin);
		const log = join(home, "opener.log");
		// A stand-in for xdg-open that records what it was given and stays alive, as a browser would.
		writeFileSync(
			join(bin, "xdg-open"),
			`#!/bin/sh\nprintf '%s\\n' "$@" > "${log}.args"\nstat -c %a "$1" > "${log}.mode"\nstat -c %a "$(dirname "$1")" >> "${log}.mode"\ncat "$1" > "${log}.page"\nsleep 8\n`,
			{ mode: 0o755 },
		);
		const file = join(home, "s.jsonl");
		copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), file);
		const child = spawn(process.execPath, [join(repo, "bin", "arbor.cjs"), "serve", file, "--port", "0"], {
			env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent"), PATH: `${bin}:${process.env.PATH ?? ""}` },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let out = "";
		child.stdout.on("data", (d: Buffer) => (out += d.toString()));
		try {
			await vi.waitFor(
				() => {
					expect(out).toMatch(/#token=/);
					expect(existsSync(`${log}.page`) && readFileSync(`${log}.page`, "utf8").includes("</html>")).toBe(true);
				},
				{ timeout: 20_000 },
			);
			const token = /#token=([A-Za-z0-9_-]+)/.exec(out)?.[1] ?? "";
			expect(token.length).toBeGreaterThan(40);
			// Every command line on the machine, while the opener (the "browser") is still running.
			const cmdlines = readdirSync("/proc")
				.filter((d) => /^\d+$/.test(d))
				.map((d) => {
					try {
						return readFileSync(`/proc/${d}/cmdline`, "utf8");
					} catch {
						return "";
					}
				});
			expect(cmdlines.some((c) => c.includes(join(bin, "xdg-open")) || c.includes("open.html"))).toBe(true);
			expect(cmdlines.filter((c) => c.includes(token))).toEqual([]);
			const args = readFileSync(`${log}.args`, "utf8").trim();
			expect(args).toMatch(/open\.html$/);
			expect(args).not.toContain(token);
			expect(readFileSync(`${log}.mode`, "utf8").trim().split("\n")).toEqual(["600", "700"]);
			expect(readFileSync(`${log}.page`, "utf8")).toContain(`#token=${token}`);
		} finally {
			child.kill("SIGTERM");
			await new Promise((r) => child.once("exit", r));
		}
		// The redirect file is removed when the server stops.
		expect(existsSync(readFileSync(`${log}.args`, "utf8").trim())).toBe(false);
	}, 60_000);

	it("writes the redirect page with the URL escaped", () => {
		const l = writeLaunchFile('http://127.0.0.1:1/#token=a"<b');
		try {
			const page = readFileSync(l.file, "utf8");
			expect(page).toContain("#token=a&quot;&lt;b");
			expect(page).not.toContain('a"<b');
			expect(statSync(l.file).mode & 0o777).toBe(0o600);
		} finally {
			l.dispose();
		}
		expect(existsSync(l.file)).toBe(false);
	});
});
