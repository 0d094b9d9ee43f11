// Other agents' files through the real `arbor` command: a Claude Code session and a Codex rollout read as trees
// (docs/formats-claude.md, docs/formats-codex.md), listed by `arbor sessions` from the agents' own folders, and
// never written: every write command is refused with one line naming the agent, and not a byte changes.

import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, checkTreeJson, repo, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

const AGENTS = resolve(repo, "..", "shared", "fixtures", "agents");
const CLAUDE = "agent-history__claude-forked-session.jsonl";
const CODEX = "agent-history__codex-session-with-compaction.jsonl";

/** A throwaway HOME holding the fixture where the agent keeps its sessions. */
function home(): { home: string; claude: string; codex: string } {
	const h = tempDir();
	const claudeDir = join(h, ".claude", "projects", "-home-dev-proj");
	mkdirSync(claudeDir, { recursive: true });
	const claude = join(claudeDir, "5f0c1c9e-1111-4222-8333-444455556666.jsonl");
	copyFileSync(join(AGENTS, CLAUDE), claude);
	const codexDir = join(h, ".codex", "sessions", "2026", "01", "02");
	mkdirSync(codexDir, { recursive: true });
	const codex = join(codexDir, "rollout-2026-01-02T10-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl");
	copyFileSync(join(AGENTS, CODEX), codex);
	return { home: h, claude, codex };
}

describe("arbor on other agents' files", () => {
	it("tree: a Claude Code session with its in-file fork as two branches under fa1-fork", () => {
		const { claude } = home();
		const r = arbor(["tree", claude, "--json"]);
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		const tree = JSON.parse(r.stdout) as { leafId: string; roots: { id: string; children: unknown[] }[] };
		expect(checkTreeJson(tree)).toBeGreaterThan(10);
		expect(tree.roots.map((n) => n.id)).toEqual(["fu1-fork"]);
		expect(tree.leafId).toBe("fa5b-fork");
		expect(r.stdout).toContain('"fu2a-fork"');
		const text = arbor(["tree", claude]);
		expect(text.status).toBe(0);
		expect(text.stdout).toContain("Let's go with QuickSort");
		expect(text.stdout).toContain("Actually, let's try MergeSort");
	});
	it("tree: a Codex rollout as one chain through its compaction", () => {
		const { codex } = home();
		const r = arbor(["tree", codex, "--filter", "all", "--json"]);
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		// 20 lines: not the header, the token count (a usage row) nor the two reasonings and two calls (tool-only
		// answers: hidden in every filter, as pi's); the turn context written before the first item is a root of its own.
		expect(checkTreeJson(JSON.parse(r.stdout))).toBe(14);
		const shown = JSON.parse(arbor(["tree", codex, "--json"]).stdout) as { roots: unknown[] };
		expect(shown.roots).toHaveLength(1);
		expect(arbor(["tree", codex]).stdout).toContain("Now add the authentication middleware");
	});
	it("sessions: lists the Claude Code sessions from Claude's own folder", () => {
		const h = home();
		const r = arbor(["sessions", "--json"], { HOME: h.home, PI_CODING_AGENT_DIR: join(h.home, ".pi", "agent"), CLAUDE_CONFIG_DIR: "", CODEX_HOME: "" });
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toContain(h.claude);
	});
	it.each([
		["Claude Code", "claude"],
		["Codex", "codex"],
	] as const)("every write to a %s file is refused with one line naming the agent, and no byte changes", (agent, which) => {
		const h = home();
		const file = h[which];
		const before = sha256(file);
		const bytes = readFileSync(file);
		const tree = JSON.parse(arbor(["tree", file, "--filter", "all", "--json"]).stdout) as { roots: { id: string }[] };
		const id = tree.roots[0]!.id;
		for (const args of [
			["label", file, id, "mine"],
			["branch", file, id],
		]) {
			const r = arbor(args);
			expect(r.status, args.join(" ")).not.toBe(0);
			expect(r.stderr.trim().split("\n")).toHaveLength(1);
			expect(r.stderr).toContain(agent);
		}
		expect(sha256(file)).toBe(before);
		expect(readFileSync(file).equals(bytes)).toBe(true);
	});
});
