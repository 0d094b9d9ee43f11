// `npm run lint` guards the walls: on a scratch copy of the lint setup and a few real source files it passes
// unmodified and fails, naming the wall, once the renderer imports `node:fs` or the session core imports
// the services, or once a raw record name of an agent's files or a format-id comparison appears outside the
// session formats (arbor/raw-records, docs/formats.md). The copy is formatted first so only the walls decide
// (Prettier has its own check).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "..", "..");
const RENDERER_FILE = "renderer/graph/layout.ts";
const SESSION_FILE = "electron/session/classify.ts";
const FORMAT_FILE = "electron/session/formats/omp/title-slot.ts";
const FILES = [
	"package.json",
	"eslint.config.mjs",
	"eslint/layers.mjs",
	"eslint/raw-records.mjs",
	".prettierrc.json",
	".prettierignore",
	RENDERER_FILE,
	SESSION_FILE,
	FORMAT_FILE,
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

	it("fails when a raw record name or a format-id comparison leaves the session formats, naming the rule", () => {
		const cases: [string, string, string][] = [
			[SESSION_FILE, "export const parentOf = (h: Record<string, unknown>) => h.parentSession;", 'Raw record name "parentSession" of the pi format'],
			[
				RENDERER_FILE,
				'export const isFork = (r: { [k: string]: unknown }) => r["forked_from_id"] !== undefined;',
				'Raw record name "forked_from_id" of the codex format',
			],
			[SESSION_FILE, "export const { parentUuid } = { parentUuid: 1 };", 'Raw record name "parentUuid" of the claude format'],
			[SESSION_FILE, 'export const kinds = ["session_meta"];', 'Raw record name "session_meta" of the codex format'],
			[RENDERER_FILE, 'export const isOmp = (w: string) => w === "omp";', 'Comparison with the format id "omp"'],
			[SESSION_FILE, 'export const who = (w: string) => { switch (w) { case "claude": return 1; } return 0; };', 'Comparison with the format id "claude"'],
		];
		for (const [file, line, message] of cases) {
			withLine(file, line, () => {
				const r = lint();
				expect(r.code, line).not.toBe(0);
				expect(r.out, line).toContain(message);
				expect(r.out, line).toContain("arbor/raw-records");
			});
		}
	}, 600_000);

	it("passes when the same names stay inside a format module, or are only Arbor's own keys and types", () => {
		const inside = 'export const parentOf = (h: Record<string, unknown>) => (h.parentSession ?? h.parentUuid) === "omp";';
		withLine(FORMAT_FILE, inside, () => {
			const r = lint();
			expect(r.out).not.toMatch(/arbor\/raw-records/);
			expect(r.code, r.out).toBe(0);
		});
		// An object key or a type member declares Arbor's own shape (a CLI JSON key), not a read of a raw record.
		withLine(SESSION_FILE, "export const out: { parentSession: string | null } = { parentSession: null };", () => {
			const r = lint();
			expect(r.out).not.toMatch(/arbor\/raw-records/);
			expect(r.code, r.out).toBe(0);
		});
	}, 240_000);
});
