import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildCli, copyFixture, repo, tempDir } from "./helpers";

// An extension may schedule its own callbacks; the extension host cannot wrap those, so the serving
// process has a last-resort guard. Proven on the real built command with a real extension file.
describe("arbor serve survives an extension that throws outside any handler", () => {
	let stop: (() => void) | undefined;
	beforeAll(() => buildCli());
	afterEach(() => stop?.());

	it("keeps serving after an uncaught exception and an unhandled rejection, and says so on stderr", async () => {
		const dir = tempDir();
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl", dir);
		const ext = join(dir, "careless.js");
		writeFileSync(
			ext,
			[
				"export default function (pi) {",
				"  setTimeout(() => { throw new Error('careless extension timer'); }, 50);",
				"  setTimeout(() => { Promise.reject(new Error('careless extension promise')); }, 80);",
				"}",
			].join("\n"),
		);
		const proc = spawn(process.execPath, [join(repo, "bin", "arbor.cjs"), "serve", file, "--port", "0", "--no-open", "--extension", ext], {
			env: { ...process.env, HOME: dir, PI_CODING_AGENT_DIR: join(dir, "pi") },
			stdio: ["ignore", "pipe", "pipe"],
		});
		stop = () => proc.kill("SIGTERM");
		let out = "";
		let err = "";
		proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
		proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
		const url = await new Promise<string>((ok, fail) => {
			const t = setInterval(() => {
				const m = /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(out);
				if (m) {
					clearInterval(t);
					ok(m[0]);
				}
				if (proc.exitCode !== null) {
					clearInterval(t);
					fail(new Error(`serve exited: ${err}`));
				}
			}, 20);
		});
		await new Promise<void>((ok, fail) => {
			const t = setInterval(() => {
				if (/careless extension timer/.test(err) && /careless extension promise/.test(err)) {
					clearInterval(t);
					ok();
				}
				if (proc.exitCode !== null) {
					clearInterval(t);
					fail(new Error(`serve died: ${err}`));
				}
			}, 20);
		});
		expect(err).toMatch(/uncaughtException .*still serving/);
		expect(err).toMatch(/unhandledRejection .*still serving/);
		const res = await fetch(url);
		expect(res.status).toBe(200);
		expect(proc.exitCode).toBeNull();
	});

	it("counts an enabled pi extension (outside ~/.arbor and --extension) as extension code too", async () => {
		const dir = tempDir();
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl", dir);
		const extDir = join(dir, "pi", "extensions");
		mkdirSync(extDir, { recursive: true });
		const ext = join(extDir, "careless-pi.js");
		writeFileSync(ext, "export default function (pi) { setTimeout(() => { throw new Error('careless pi extension timer'); }, 50); }\n");
		mkdirSync(join(dir, ".arbor"), { recursive: true });
		writeFileSync(join(dir, ".arbor", "settings.json"), JSON.stringify({ enabledExtensions: [ext] }));
		const proc = spawn(process.execPath, [join(repo, "bin", "arbor.cjs"), "serve", file, "--port", "0", "--no-open"], {
			env: { ...process.env, HOME: dir, PI_CODING_AGENT_DIR: join(dir, "pi") },
			stdio: ["ignore", "pipe", "pipe"],
		});
		stop = () => proc.kill("SIGTERM");
		let out = "";
		let err = "";
		proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
		proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
		await new Promise<void>((ok, fail) => {
			const t = setInterval(() => {
				if (/http:\/\/127\.0\.0\.1:\d+\//.test(out) && /careless pi extension timer/.test(err)) {
					clearInterval(t);
					ok();
				}
				if (proc.exitCode !== null) {
					clearInterval(t);
					fail(new Error(`serve died: ${err}`));
				}
			}, 20);
		});
		expect(err).toMatch(/uncaughtException .*still serving/);
		expect(proc.exitCode).toBeNull();
	});

	it("exits non-zero on an uncaught exception that is not from an extension (a real bug surfaces)", async () => {
		const dir = tempDir();
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl", dir);
		// Code of the serving process itself (preloaded, outside every extension root) throws later on.
		const bug = join(dir, "arbor-bug.cjs");
		// It fires once the server is up (its URL printed), however slow the machine is.
		writeFileSync(
			bug,
			[
				"const write = process.stdout.write.bind(process.stdout);",
				"let armed = false;",
				"process.stdout.write = (chunk, ...rest) => {",
				"  if (!armed && String(chunk).includes('#token=')) { armed = true; setTimeout(() => { throw new Error('a bug in arbor itself'); }, 200); }",
				"  return write(chunk, ...rest);",
				"};",
			].join("\n"),
		);
		const proc = spawn(process.execPath, ["--require", bug, join(repo, "bin", "arbor.cjs"), "serve", file, "--port", "0", "--no-open"], {
			env: { ...process.env, HOME: dir, PI_CODING_AGENT_DIR: join(dir, "pi") },
			stdio: ["ignore", "pipe", "pipe"],
		});
		stop = () => proc.kill("SIGTERM");
		let out = "";
		let err = "";
		proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
		proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
		const code = await new Promise<number | null>((ok) => proc.once("exit", (c) => ok(c)));
		expect(out).toMatch(/#token=/);
		expect(err).toMatch(/a bug in arbor itself/);
		expect(err).not.toMatch(/still serving/);
		expect(code).toBe(1);
	}, 30_000);
});

describe("installCrashGuard", () => {
	it("reports errors thrown from files under an extension root and hands every other error to onFatal", async () => {
		const { installCrashGuard, fromExtension } = await import("../../hosts/crash-guard");
		const root = tempDir();
		const reported: unknown[] = [];
		const fatal: unknown[] = [];
		const guard = installCrashGuard((_k, e) => reported.push(e), { extensionRoots: [root], onFatal: (_k, e) => fatal.push(e) });
		try {
			const fromExt = new Error("ext");
			fromExt.stack = `Error: ext\n    at Timeout._onTimeout (${join(root, "careless.js")}:2:30)`;
			const bug = new Error("bug");
			process.emit("uncaughtException", fromExt);
			process.emit("uncaughtException", bug);
			// A rejection with no stack cannot be attributed to an extension: treated as a bug.
			(process.emit as (e: string, ...a: unknown[]) => boolean)("unhandledRejection", "plain string", Promise.resolve());
			expect(reported).toEqual([fromExt]);
			expect(fatal).toEqual([bug, "plain string"]);
			expect(fromExtension(bug, [root])).toBe(false);
		} finally {
			guard.dispose();
		}
	});
});
