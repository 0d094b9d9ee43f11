// Every program Arbor runs is found on ABSOLUTE PATH entries only (shared-node/programs.ts; docs/security.md
// "Programs"): an empty entry, "." or "relative/dir" means a folder below wherever Arbor runs, so a `pi` or `git`
// planted there must never run. Real executables that write a marker file when run, in the process's real working
// folder (vitest runs each file in a process of its own, so chdir is safe here), through the real callers:
// Connect pi, the tries' pi and git, and arbor serve's browser opener.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { absolutePathEntries, findProgram, programPath } from "../../../shared-node/programs";
import { runServe } from "../serve";
import { connectPi } from "../../services/pi-connect";
import { git } from "../../services/tries/git";
import { piOnPath } from "../../services/tries/pi-process";

const EXTENSION = path.resolve(import.meta.dirname, "..", "..", "..", "pi-extension");
const fixture = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions", "formic__pi-v3-branch-compaction.jsonl");

let work: string;
let cwd: string;
let saved: { cwd: string; PATH: string | undefined; HOME: string | undefined };
/** The markers written so far: which planted programs ran. */
const ran = (): string[] => (fs.existsSync(path.join(work, "ran")) ? fs.readdirSync(path.join(work, "ran")).sort() : []);

/** An executable `name` in `dir` that records `tag` as having run (and, for git, prints a version). */
function plant(dir: string, name: string, tag: string): string {
	fs.mkdirSync(dir, { recursive: true });
	const p = path.join(dir, name);
	fs.writeFileSync(p, `#!/bin/sh\n: > '${path.join(work, "ran", tag)}'\necho 'git version planted'\n`, { mode: 0o755 });
	return p;
}

beforeEach(() => {
	saved = { cwd: process.cwd(), PATH: process.env.PATH, HOME: process.env.HOME };
	work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "arbor-programs-")));
	fs.mkdirSync(path.join(work, "ran"));
	cwd = path.join(work, "cwd");
	// The folder Arbor runs in holds every planted program: itself (empty entry, "."), and below it.
	for (const name of ["pi", "git", "xdg-open", "open"]) {
		plant(cwd, name, `cwd-${name}`);
		plant(path.join(cwd, "relative", "dir"), name, `relative-${name}`);
	}
	process.chdir(cwd);
});
afterEach(() => {
	process.chdir(saved.cwd);
	process.env.PATH = saved.PATH;
	process.env.HOME = saved.HOME;
	vi.restoreAllMocks();
	fs.rmSync(work, { recursive: true, force: true });
});

/** PATH values whose only entries are the current folder, spelled every way, and relative folders. */
const RELATIVE_PATHS = ["", ":", ".", "./", "relative/dir", ":relative/dir:.", "relative/dir:"];
const SYSTEM = ["/usr/local/bin", "/usr/bin", "/bin"].filter((d) => fs.existsSync(d)).join(":");

describe.skipIf(process.platform === "win32")("programs are found on absolute PATH entries only", () => {
	it("findProgram skips empty and relative entries, takes the first absolute one that holds an executable file", () => {
		for (const PATH of RELATIVE_PATHS) expect(findProgram("pi", { PATH }), JSON.stringify(PATH)).toBeNull();
		const abs = plant(path.join(work, "abs-bin"), "pi", "abs-pi");
		expect(findProgram("pi", { PATH: `:.:relative/dir:${path.dirname(abs)}` })).toBe(abs);
		// Not executable, or a folder named pi: skipped, the next absolute entry is taken.
		const second = plant(path.join(work, "second"), "pi", "second-pi");
		fs.chmodSync(abs, 0o644);
		expect(findProgram("pi", { PATH: `${path.dirname(abs)}:${path.dirname(second)}` })).toBe(second);
		fs.mkdirSync(path.join(work, "dir-bin", "pi"), { recursive: true });
		expect(findProgram("pi", { PATH: `${path.join(work, "dir-bin")}:${path.dirname(second)}` })).toBe(second);
		// A name with a folder in it is not looked up at all.
		expect(findProgram("./pi", { PATH: path.dirname(second) })).toBeNull();
		expect(findProgram("relative/dir/pi", { PATH: cwd })).toBeNull();
		expect(() => programPath("pi", { PATH: "." })).toThrow(/pi is not on PATH \(only absolute PATH entries are searched\)/);
		expect(absolutePathEntries({ PATH: `::.:a/b:/x:/y/` })).toEqual(["/x", "/y/"]);
		// Windows: drive-absolute entries only, PATHEXT extensions tried.
		expect(absolutePathEntries({ PATH: "C:\\pi;;.;bin;\\\\server\\share" }, "win32")).toEqual(["C:\\pi", "\\\\server\\share"]);
		expect(ran()).toEqual([]);
	});

	it("Connect pi never runs a pi from an empty, '.' or relative PATH entry; it runs the one on an absolute entry", async () => {
		const home = path.join(work, "home");
		for (const PATH of RELATIVE_PATHS) {
			const r = await connectPi(EXTENSION, { HOME: home, PATH });
			expect(r, JSON.stringify(PATH)).toEqual({
				ok: false,
				message: `pi is not on Arbor's PATH. Run this in a terminal where pi works: pi install ${EXTENSION}`,
			});
		}
		expect(ran()).toEqual([]);
		const abs = plant(path.join(work, "abs-bin"), "pi", "abs-pi");
		const r = await connectPi(EXTENSION, { HOME: home, PATH: `:.:relative/dir:${path.dirname(abs)}` });
		expect(r.ok, r.message).toBe(true);
		expect(ran()).toEqual(["abs-pi"]);
	});

	it("the tries' pi on PATH is an absolute path, never the working folder's pi", () => {
		for (const PATH of RELATIVE_PATHS) expect(() => piOnPath({ PATH }), JSON.stringify(PATH)).toThrow(/no pi to run the tries/);
		const abs = plant(path.join(work, "abs-bin"), "pi", "abs-pi");
		expect(piOnPath({ PATH: `.:relative/dir::${path.dirname(abs)}` })).toEqual({ command: abs, args: [], origin: "pi on PATH" });
		expect(ran()).toEqual([]);
	});

	it("the tries' git is the one on an absolute PATH entry, not a git in the worktree", async () => {
		for (const PATH of RELATIVE_PATHS) await expect(git(cwd, ["--version"], { env: { PATH } }), JSON.stringify(PATH)).rejects.toThrow(/git is not on PATH/);
		const out = await git(cwd, ["--version"], { env: { PATH: `:.:relative/dir:${SYSTEM}` } });
		expect(out.stdout.toString("utf8")).toMatch(/^git version \d/);
		expect(ran()).toEqual([]);
	});

	it("arbor serve opens the browser with an opener from an absolute PATH entry only", async () => {
		process.env.HOME = path.join(work, "home");
		const session = path.join(work, "a.jsonl");
		fs.copyFileSync(fixture, session);
		let out = "";
		vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
		vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
		const opener = process.platform === "darwin" ? "open" : "xdg-open";
		const serveWith = async (PATH: string, until: () => boolean): Promise<void> => {
			process.env.PATH = PATH;
			out = "";
			// --port 0: a host of its own (no shared record); it opens the browser right after it prints its URL.
			const done = runServe([session, "--port", "0"]);
			await vi.waitFor(() => expect(out).toContain("Arbor is serving on"), { timeout: 20_000 });
			await vi.waitFor(() => expect(until()).toBe(true), { timeout: 10_000 });
			process.emit("SIGTERM");
			expect(await done).toBe(0);
		};
		await serveWith(":.:relative/dir", () => out.includes("Could not open a browser"));
		expect(out).toContain(`Could not open a browser (${opener} is not on PATH): open the URL above yourself.`);
		expect(ran()).toEqual([]);
		plant(path.join(work, "abs-bin"), opener, `abs-${opener}`);
		await serveWith(`:.:relative/dir:${path.join(work, "abs-bin")}`, () => ran().length > 0);
		expect(ran()).toEqual([`abs-${opener}`]);
	});
});
