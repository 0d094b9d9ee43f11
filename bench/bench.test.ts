// Keeps `npm run bench` from rotting: the measurement worker is bundled and each task runs once on a small
// generated session, with Arbor and pi agreeing on what they loaded. No timing is asserted.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildSync } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "arbor-bench-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const worker = join(dir, "worker.mjs");
buildSync({
	entryPoints: [join(root, "bench/worker.ts")],
	outfile: worker,
	bundle: true,
	platform: "node",
	format: "esm",
	target: "node20",
	logLevel: "silent",
});

function gen(args: string[]): string {
	const file = join(dir, `${args.join("_").replace(/--/g, "")}.jsonl`);
	const r = spawnSync(process.execPath, [join(root, "../shared/tools/gen-session.mjs"), ...args, "--seed", "bench-test", "--out", file]);
	expect(r.status).toBe(0);
	return file;
}

function run(task: string, file: string, extra: string[] = []): Record<string, unknown> {
	const r = spawnSync(process.execPath, [worker, task, file, ...extra], { encoding: "utf8", env: { ...process.env, ARBOR_BENCH_ROOT: root } });
	const out = JSON.parse(r.stdout.trim().split("\n").pop() as string) as Record<string, unknown>;
	expect(out.ok, JSON.stringify(out)).toBe(true);
	expect(typeof out.rssMiB).toBe("number");
	return out;
}

describe("bench worker tasks", () => {
	it("floor, arbor-open and pi-open load the same session", () => {
		const file = gen(["--n", "600"]);
		const floor = run("floor", file);
		const arbor = run("arbor-open", file);
		const pi = run("pi-open", file);
		const pi16 = run("pi16-open", file);
		expect(floor.lines).toBe(601);
		expect(arbor.entries).toBe(600);
		expect(pi.entries).toBe(600);
		expect(pi16.entries).toBe(600);
		expect(arbor.messages).toBe(pi.messages);
		expect(arbor.messages).toBe(pi16.messages);
	});

	it("deep and branch tasks run for both implementations on a linear session", () => {
		const file = gen(["--n", "300", "--branch-every", "0", "--profile", "fixture"]);
		for (const task of ["arbor-deep", "pi-deep"]) expect(run(task, file).depth).toBe(300);
		for (const task of ["arbor-branch", "pi-branch"]) expect(run(task, file, ["300"]).bytes).toBeGreaterThan(0);
	});
});
