// The lint rule `arbor/program-path` (eslint/programs.mjs) through the project's real ESLint config, run once by
// the real `eslint` on a scratch copy of the lint setup: product code that hands child_process a program written
// in the source (a bare name such as "git", or any fixed string) fails lint, so every program goes through
// shared-node/programs.ts (docs/security.md "Programs"); a variable holding the absolute path it found,
// process.execPath, a RegExp's exec and test files pass.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "..", "..");
const HEAD = `import { spawn, spawnSync, execFile, execFileSync, execSync } from "node:child_process";\nimport * as cp from "node:child_process";\n`;
const BAD = [
	`spawn("pi", ["install"]);`,
	`spawnSync("git", ["status"]);`,
	`execFile("xdg-open", ["f"], () => {});`,
	`execFileSync("open", ["f"]);`,
	`execSync("npm --version");`,
	"cp.spawn(`bwrap`, []);",
	`cp.execFile("/usr/bin/git", []);`,
];
const GOOD = [`const pi = "/x";\nspawn(pi, []);`, `spawnSync(process.execPath, ["-v"]);`, `/a(b)/.exec("ab");`, `const re = /x/;\nre.exec("x");`];
const FOLDERS = ["electron/services", "electron/cli", "shared-node", "pi-extension"];

let dir: string;
/** File (relative to the copy) → the arbor/program-path messages eslint gave it. */
let flagged: Map<string, string[]>;

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "arbor-program-rule-"));
	for (const f of ["package.json", "eslint.config.mjs", "eslint/layers.mjs", "eslint/programs.mjs", "eslint/raw-records.mjs"]) {
		mkdirSync(dirname(join(dir, f)), { recursive: true });
		copyFileSync(join(repo, f), join(dir, f));
	}
	symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"), "dir");
	const write = (file: string, code: string): void => {
		mkdirSync(dirname(join(dir, file)), { recursive: true });
		writeFileSync(join(dir, file), HEAD + code + "\n");
	};
	FOLDERS.forEach((folder) => BAD.forEach((code, i) => write(`${folder}/bad-${i}.ts`, code)));
	GOOD.forEach((code, i) => write(`electron/services/good-${i}.ts`, code));
	write("electron/services/test/spawns.test.ts", `spawn("pi", []);`);
	const r = spawnSync(process.execPath, [join(repo, "node_modules", "eslint", "bin", "eslint.js"), "--format", "json", "."], { cwd: dir, encoding: "utf8" });
	// A config that does not load (a rule file missing from the copy) prints nothing on stdout: say why.
	if (!r.stdout.trim()) throw new Error(`eslint gave no report (exit ${r.status}): ${r.stderr}`);
	const reports = JSON.parse(r.stdout) as { filePath: string; messages: { ruleId: string | null; message: string }[] }[];
	flagged = new Map(reports.map((x) => [relative(dir, x.filePath), x.messages.filter((m) => m.ruleId === "arbor/program-path").map((m) => m.message)]));
}, 120_000);

afterAll(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("arbor/program-path", () => {
	it("flags a program name or fixed path given to any spawn-family call in product code", () => {
		for (const folder of FOLDERS)
			BAD.forEach((code, i) =>
				expect(flagged.get(`${folder}/bad-${i}.ts`), `${folder}: ${code}`).toEqual([expect.stringMatching(/^Run .* by its absolute path: findProgram/)]),
			);
	});

	it("lets through a found path, process.execPath, a RegExp's exec, and tests", () => {
		GOOD.forEach((code, i) => expect(flagged.get(`electron/services/good-${i}.ts`), code).toEqual([]));
		expect(flagged.get("electron/services/test/spawns.test.ts")).toEqual([]);
	});
});
