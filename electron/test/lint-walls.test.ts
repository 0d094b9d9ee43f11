// `npm run lint` guards the walls: on a scratch copy of the lint setup and two real source files it passes
// unmodified and fails, naming the wall, once the renderer imports `node:fs` or the session core imports
// the services. The copy is formatted first so only the walls decide (Prettier has its own check).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "..", "..");
const RENDERER_FILE = "renderer/graph/layout.ts";
const SESSION_FILE = "electron/session/classify.ts";
const FILES = [
	"package.json",
	"eslint.config.mjs",
	"eslint/layers.mjs",
	"eslint/programs.mjs",
	".prettierrc.json",
	".prettierignore",
	RENDERER_FILE,
	SESSION_FILE,
];

let dir: string;

function lint() {
	const r = spawnSync("npm", ["run", "lint", "--silent"], { cwd: dir, encoding: "utf8" });
	return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

function withLine(file: string, line: string, body: () => void) {
	const p = join(dir, file);
	const before = readFileSync(p, "utf8");
	writeFileSync(p, `${line}\n${before}`);
	try {
		body();
	} finally {
		writeFileSync(p, before);
	}
}

beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), "arbor-lint-walls-"));
	for (const f of FILES) {
		mkdirSync(dirname(join(dir, f)), { recursive: true });
		copyFileSync(join(repo, f), join(dir, f));
	}
	symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"), "dir");
	const fmt = spawnSync(join(repo, "node_modules", ".bin", "prettier"), ["--write", "."], { cwd: dir, encoding: "utf8" });
	expect(fmt.status, fmt.stderr).toBe(0);
}, 120_000);

afterAll(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("npm run lint enforces the layer walls", () => {
	it("passes on the unmodified copy", () => {
		const r = lint();
		expect(r.out).not.toMatch(/Layer wall/);
		expect(r.code, r.out).toBe(0);
	}, 120_000);

	it("fails when the renderer imports node:fs, naming the wall", () => {
		withLine(RENDERER_FILE, 'import "node:fs";', () => {
			const r = lint();
			expect(r.code).not.toBe(0);
			expect(r.out).toContain('Layer wall: renderer/graph/ is pure: no Node built-ins ("node:fs")');
			expect(r.out).toContain("arbor/layers");
		});
	}, 120_000);

	it("fails when the session core imports the services, naming the wall", () => {
		withLine(SESSION_FILE, 'import "../services/index";', () => {
			const r = lint();
			expect(r.code).not.toBe(0);
			expect(r.out).toContain(
				"Layer wall: electron/session/ may not import electron/services/index (electron/session/ may import only electron/session, shared)",
			);
		});
	}, 120_000);
});
