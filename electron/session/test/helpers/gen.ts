// Generated sessions for tests (../shared/tools/gen-session.mjs), cached per options for the process's
// lifetime so several test files and cases share one generation.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GEN_SESSION } from "./files";

export interface GenOptions {
	n: number;
	seed: string | number;
	profile?: "brief" | "fixture";
	branchEvery?: number;
	branchSummary?: number;
	compactionEvery?: number;
	customMessages?: number;
}

const CACHE_DIR = join(tmpdir(), "arbor-test-gen-cache");

export function genArgs(o: GenOptions): string[] {
	const args = ["--n", String(o.n), "--seed", String(o.seed)];
	if (o.profile) args.push("--profile", o.profile);
	if (o.branchEvery !== undefined) args.push("--branch-every", String(o.branchEvery));
	if (o.branchSummary !== undefined) args.push("--branch-summary", String(o.branchSummary));
	if (o.compactionEvery !== undefined) args.push("--compaction-every", String(o.compactionEvery));
	if (o.customMessages !== undefined) args.push("--custom-messages", String(o.customMessages));
	return args;
}

/**
 * Path of a generated session (read-only by convention: copy it with copyToTemp before opening it with
 * anything that might write).
 */
export function generatedSession(o: GenOptions): string {
	mkdirSync(CACHE_DIR, { recursive: true });
	const args = genArgs(o);
	const file = join(
		CACHE_DIR,
		`${args
			.join("_")
			.replace(/--/g, "")
			.replace(/[^\w.-]+/g, "")}.jsonl`,
	);
	if (!existsSync(file)) {
		// Generate to a private name first: parallel test files may ask for the same session.
		const partial = `${file}.${process.pid}.partial`;
		execFileSync(process.execPath, [GEN_SESSION, ...args, "--out", partial], { stdio: "ignore" });
		renameSync(partial, file);
	}
	return file;
}
