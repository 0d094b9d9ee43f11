// `arbor info` (facts about one file, matching the fixture table in SOURCES.md) and `arbor sessions`
// (the library, grouped by project, newest first). Both only read.
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

describe("arbor info", () => {
	it("reports counts by type and role, branch points, depth, leaves and roots", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const before = sha256(file);
		const r = arbor(["info", file, "--json"]);
		expect(r.status).toBe(0);
		const info = JSON.parse(r.stdout) as Record<string, unknown>;
		expect(info).toMatchObject({
			file,
			fileVersion: 3,
			needsUpgrade: false,
			entries: 18,
			branchPoints: 1,
			maxDepth: 14,
			leaves: 2,
			roots: 1,
			leafId: "unknown-active",
			labels: 1,
			title: "Pinned Pi authored title",
			types: { message: 7, model_change: 3, thinking_level_change: 3, compaction: 1, custom: 1, label: 1, session_info: 1, future_extension_shape: 1 },
			roles: { user: 3, assistant: 2, toolResult: 2 },
		});
		const text = arbor(["info", file]);
		expect(text.stdout).toContain("branch points: 1");
		expect(text.stdout).toContain("by role:       user 3, assistant 2, toolResult 2");
		expect(sha256(file)).toBe(before);
	});
	it("shows the legacy version, orphans as extra roots, and warnings with their lines", () => {
		const v1 = JSON.parse(arbor(["info", copyFixture("pi-mono__large-session.v1.jsonl"), "--json"]).stdout) as Record<string, unknown>;
		expect(v1).toMatchObject({ fileVersion: 1, needsUpgrade: true, entries: 1018, maxDepth: 1018, leaves: 1, branchPoints: 0 });
		const orphan = arbor(["info", copyFixture("kuato__pi-session-orphan-no-eol.jsonl"), "--json"]);
		const o = JSON.parse(orphan.stdout) as { roots: number; leaves: number; warnings: { line: number }[] };
		expect(o.roots).toBe(2);
		expect(o.leaves).toBe(2);
		expect(o.warnings.map((w) => w.line)).toContain(3);
	});
});

describe("arbor info: pi's resume point", () => {
	it("says when the last line (a usage line from an old leaf) sits on another branch than the newest conversation", () => {
		const t = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
		const file = join(tempDir(), "stale.jsonl");
		const m = (id: string, parentId: string | null, s: number, role: string, text: string) => ({
			type: "message",
			id,
			parentId,
			timestamp: t(s),
			message:
				role === "user"
					? { role, content: text, timestamp: s }
					: { role, content: [{ type: "text", text }], provider: "p", model: "m", stopReason: "stop", timestamp: s },
		});
		writeFileSync(
			file,
			[
				{ type: "session", version: 3, id: "s", timestamp: t(0), cwd: "/p" },
				m("u1", null, 1, "user", "a"),
				m("a1", "u1", 2, "assistant", "b"),
				m("u2", "u1", 3, "user", "c"),
				m("a2", "u2", 4, "assistant", "d"),
				{ type: "usage", id: "w", parentId: "a1", timestamp: t(5), kind: "cache_warm", provider: "p", model: "m", usage: { totalTokens: 3 } },
			]
				.map((l) => `${JSON.stringify(l)}\n`)
				.join(""),
		);
		const info = JSON.parse(arbor(["info", file, "--json"]).stdout) as { resumePoint: unknown };
		expect(info.resumePoint).toEqual({ leafId: "w", stale: true, suggestedId: "a2" });
		expect(arbor(["info", file]).stdout).toContain("resume point:  w is on another branch than the newest conversation (a2)");
		const fine = JSON.parse(arbor(["info", copyFixture("formic__pi-v3-branch-compaction.jsonl"), "--json"]).stdout) as { resumePoint: { stale: boolean } };
		expect(fine.resumePoint.stale).toBe(false);
	});
});

describe("arbor sessions", () => {
	it("lists sessions in the given folders grouped by project, newest first, without changing them", () => {
		const root = tempDir();
		mkdirSync(join(root, "--home-me-alpha--"));
		mkdirSync(join(root, "--home-me-beta--"));
		const a = copyFixture("kimchi-dev__statsuline.v3.jsonl", join(root, "--home-me-alpha--"));
		const b = copyFixture("formic__pi-v3-branch-compaction.jsonl", join(root, "--home-me-beta--"));
		const bad = join(root, "--home-me-beta--", "broken.jsonl");
		writeFileSync(bad, "not json\n");
		// The mtimes say a is newest; the conversations (pi's `modified`) say b (August 2026), then a (April 2026).
		// The unreadable file has only its mtime (1970) and goes last.
		utimesSync(a, 3000, 3000);
		utimesSync(b, 1000, 1000);
		utimesSync(bad, 2000, 2000);
		const hashes = [a, b, bad].map(sha256);
		const r = arbor(["sessions", root, "--json"]);
		expect(r.status).toBe(0);
		const items = JSON.parse(r.stdout) as { path: string; entryCount: number; entryCountExact: boolean; error?: string; firstUserMessage: string | null }[];
		expect(items.map((i) => i.path)).toEqual([b, a, bad]);
		expect(items[0]).toMatchObject({ entryCount: 18, entryCountExact: true, firstUserMessage: "Inspect the pinned Pi branch fixture." });
		expect(items[2].error).toMatch(/line 1/);
		const text = arbor(["sessions", root]);
		expect(text.status).toBe(0);
		const groups = text.stdout.split("\n").filter((l) => l && !l.startsWith(" "));
		expect(groups).toEqual([
			"/tmp/formic-pi-fixture/project  (1 session)",
			expect.stringMatching(/kimchi-dev {2}\(1 session\)$/),
			"/home/me/beta  (1 session)",
		]);
		expect(text.stdout).toContain("(unreadable: line 1: not a session header)");
		expect([a, b, bad].map(sha256)).toEqual(hashes);
	});
	it("reads pi's default folder from $PI_CODING_AGENT_DIR when no folder is given", () => {
		const home = tempDir();
		const agent = join(home, "agent");
		mkdirSync(join(agent, "sessions", "--w--"), { recursive: true });
		const f = copyFixture("kimchi-dev__statsuline.v3.jsonl", join(agent, "sessions", "--w--"));
		const r = arbor(["sessions", "--json"], { PI_CODING_AGENT_DIR: agent, HOME: home, XDG_DATA_HOME: join(home, "xdg") });
		expect(r.status).toBe(0);
		expect((JSON.parse(r.stdout) as { path: string; source: string }[]).map((i) => [i.path, i.source])).toEqual([[f, "pi"]]);
	});
});
