// `arbor context` starts in its lean bundle (dist/cli-context.cjs, electron/cli/context-main.ts): it must
// answer the files the path-only reader reads without loading the whole CLI, and hand every other case to
// the whole CLI without having written anything (cli-context-reader.test.ts checks that the bytes printed
// either way are the same).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli, copyFixture, repo, tempDir } from "./helpers";

beforeAll(buildCli);

interface LeanRun {
	done: boolean;
	wholeCliLoaded: boolean;
	reader: string | null;
	stdout: string;
}

function lean(args: string[]): LeanRun {
	const script = `
		const lean = require(${JSON.stringify(join(repo, "dist", "cli-context.cjs"))});
		lean.contextFast(${JSON.stringify(args)}).then((done) => {
			const wholeCliLoaded = Object.keys(require.cache).some((f) => f.endsWith("cli.cjs") && !f.endsWith("cli-context.cjs"));
			process.stderr.write("@@" + JSON.stringify({ done, wholeCliLoaded, reader: process.env.ARBOR_CONTEXT_READER ?? null }) + "\\n");
		});`;
	const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", env: { ...process.env, ARBOR_CONTEXT_READER: "" } });
	const m = /@@(.*)\n/.exec(r.stderr);
	expect(m, r.stderr).not.toBeNull();
	return { ...(JSON.parse(m![1]) as Omit<LeanRun, "stdout">), stdout: r.stdout };
}

describe("arbor context's lean entry", () => {
	const dir = tempDir();
	const pi = copyFixture("formic__pi-v3-branch-compaction.jsonl", dir);
	const omp = copyFixture("formic__omp-session-titleslot.jsonl", dir);

	it("answers a pi file alone, without loading the whole CLI", () => {
		const r = lean([pi, "--json"]);
		expect(r).toMatchObject({ done: true, wholeCliLoaded: false });
		expect(Array.isArray((JSON.parse(r.stdout) as { messages: unknown }).messages)).toBe(true);
	});

	it("hands an omp file to the whole CLI after the reader's fallback, asking it not to scan the file again", () => {
		expect(lean([omp, "--json"])).toEqual({ done: false, wholeCliLoaded: false, reader: "full", stdout: "" });
	});

	it("hands help, usage errors and --as omp over without reading the file", () => {
		for (const args of [["--help"], [], [pi, "--bogus"], [pi, "--as", "omp"], [pi, "--as", "x"], [pi, "extra"]]) {
			expect(lean(args), args.join(" ")).toEqual({ done: false, wholeCliLoaded: false, reader: "", stdout: "" });
		}
	});
});
