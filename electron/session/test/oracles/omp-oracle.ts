// The omp 18.3.4 oracle for tests: runs scripts/oracles/omp-oracle.mjs under Bun (omp's own session code,
// installed by scripts/runtimes.mjs) and hands back what omp's SessionManager saw in each file.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/files";

export interface OmpView {
	file: string;
	error?: string;
	header?: Record<string, unknown>;
	entries: { id: string; parentId: string | null; type: string }[];
	roots: string[];
	tree: { id: string; children: string[]; label: string | null }[];
	leafId: string | null;
	branch: string[];
	sessionName: string | null;
	context: { messages: Record<string, unknown>[]; models: Record<string, string>; thinkingLevel?: string; [k: string]: unknown };
	nativeCalls: string[];
}

const SCRIPT = join(REPO_ROOT, "scripts", "oracles", "omp-oracle.mjs");

/** Bun and omp's source folder, installing them when missing (the cache folder of scripts/runtimes.mjs). */
export function ompRuntime(): { bun: string; omp: string } {
	const out = execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "runtimes.mjs"), "bun", "omp"], { encoding: "utf8", timeout: 900_000 });
	return JSON.parse(out) as { bun: string; omp: string };
}

/** omp's environment: its home and agent folder in `home`, so nothing of the machine's own omp is read. */
function ompEnv(home: string): NodeJS.ProcessEnv {
	return { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, ".omp", "agent"), NO_COLOR: "1" };
}

/** omp's view of each file (pass copies: omp may rewrite a file it opens). */
export function ompRead(rt: { bun: string; omp: string }, home: string, files: string[]): OmpView[] {
	const out = execFileSync(rt.bun, [SCRIPT, rt.omp, "read", ...files], { encoding: "utf8", env: ompEnv(home), maxBuffer: 1 << 30, timeout: 300_000 });
	return out
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l) as OmpView);
}

/** Sessions omp's own SessionManager writes into `dir` (scripts/oracles/omp-writes.mjs). */
export function ompWrite(rt: { bun: string; omp: string }, home: string, dir: string): { files: string[]; nativeCalls: string[] } {
	const out = execFileSync(rt.bun, [SCRIPT, rt.omp, "write", dir], { encoding: "utf8", env: ompEnv(home), timeout: 300_000 });
	return JSON.parse(out.trim().split("\n").pop()!) as { files: string[]; nativeCalls: string[] };
}

type Loose = Record<string, any>;

/**
 * Arbor's context messages as the oracle can check them: two fields of omp 18.3.4's own pi-agent-core that
 * the newest published one (18.2.11, which the oracle loads) does not write are left out of the comparison
 * (an Anthropic summary's `historyRewriteAt` and its payload's `signature`; omp-compaction.test.ts pins them).
 */
export function comparableArborMessages(messages: readonly unknown[]): unknown[] {
	return messages.map((m) => {
		const x = m as Loose;
		if (x.role !== "compactionSummary") return m;
		const { historyRewriteAt: _h, ...rest } = x;
		if (rest.providerPayload?.type !== "anthropicCompaction") return rest;
		const { signature: _s, ...payload } = rest.providerPayload;
		return { ...rest, providerPayload: payload };
	});
}

/** omp's context messages as compared: its snapcompact `blocks` on the summary are a deliberate difference. */
export function comparableOmpMessages(messages: readonly unknown[]): unknown[] {
	return messages.map((m) => {
		const x = m as Loose;
		if (x.role !== "compactionSummary" || x.blocks === undefined) return m;
		const { blocks: _b, ...rest } = x;
		return rest;
	});
}
