// `arbor tree`: pi's tree-selector text and the JSON tree, equal to what shared/tree-view + tree-text
// compute over the session core, for every filter mode and with a search; deep chains do not overflow.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FILTER_MODES } from "../../../shared/api";
import { buildTreeJson, renderTreeLines } from "../../../shared/tree-text";
import { computeTreeView, indexMask } from "../../../shared/tree-view";
import { SessionManager } from "../../session";
import { Pi16SessionManager } from "../../session/test/helpers/pi16";
import { arbor, buildCli, checkTreeJson, copyFixture, generate, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

const dir = tempDir();
const files = [
	copyFixture("formic__pi-v3-branch-compaction.jsonl", dir),
	copyFixture("kuato__pi-session-orphan-no-eol.jsonl", dir),
	copyFixture("kimchi-dev__statsuline.v3.jsonl", dir),
	copyFixture("pi-mono__large-session.v1.jsonl", dir),
	copyFixture("formic__omp-session-titleslot.jsonl", dir),
	generate(dir, "gen-branchy.jsonl", ["--n", "800", "--seed", "cli", "--branch-every", "6", "--custom-messages", "0.3"]),
];

function expected(file: string, filter: (typeof FILTER_MODES)[number], query?: string) {
	const sm = SessionManager.open(file);
	const s = sm.getSkeleton();
	const matches = query ? indexMask(s.count, sm.search(query, "pi")) : null;
	const v = computeTreeView(s, { filter, matches });
	const text = renderTreeLines(v, sm.getPreviews(Array.from(v.rows)));
	const json = buildTreeJson(v);
	sm.close();
	return { text, json };
}

describe.each(files.map((f) => [f.split("/").pop(), f]))("arbor tree %s", (_name, file) => {
	it.each(FILTER_MODES.map((m) => [m]))("--filter %s prints the tree-view rows, JSON and text", (mode) => {
		const before = sha256(file as string);
		const exp = expected(file as string, mode);
		const text = arbor(["tree", file as string, "--filter", mode]);
		expect(text.status).toBe(0);
		expect(text.stdout).toBe(exp.text.length ? `${exp.text.join("\n")}\n` : "");
		const json = arbor(["tree", file as string, "--filter", mode, "--json"]);
		expect(json.status).toBe(0);
		const parsed: unknown = JSON.parse(json.stdout);
		checkTreeJson(parsed);
		// Types/roles come from the real entries; compare the structure (ids) with the kind-based build. A v1
		// file gets fresh random ids on every load (migration, as in pi), so there only the shape is compared.
		const legacy = (file as string).includes(".v1.");
		const drop = new Set(legacy ? ["type", "role", "id", "leafId", "shownLeafId"] : ["type", "role"]);
		const ids = (t: unknown): string => JSON.stringify(t, (k, v) => (drop.has(k) ? undefined : v));
		expect(ids(parsed) === ids(exp.json)).toBe(true);
		expect(sha256(file as string)).toBe(before);
	});
	it("--search keeps matching entries only", () => {
		const exp = expected(file as string, "all", "user");
		const r = arbor(["tree", file as string, "--filter", "all", "--search", "user"]);
		expect(r.status).toBe(0);
		expect(r.stdout).toBe(exp.text.length ? `${exp.text.join("\n")}\n` : "");
	});
});

describe("arbor tree --search with a quoted phrase", () => {
	it("matches the exact phrase; the same words unquoted keep pi's any-order rule", () => {
		const file = join(tempDir(), "phrase.jsonl");
		const line = (o: object): string => JSON.stringify(o);
		const msg = (id: string, parentId: string | null, text: string) =>
			line({ type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: text, timestamp: 1 } });
		writeFileSync(
			file,
			`${[
				line({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp" }),
				msg("m1", null, "add a null check here"),
				msg("m2", "m1", "check for null there"),
			].join("\n")}\n`,
		);
		const ids = (q: string): string[] => {
			const r = arbor(["tree", file, "--search", q, "--json"]);
			expect(r.status).toBe(0);
			const out: string[] = [];
			const walk = (n: { id: string; children: unknown[] }): void => {
				out.push(n.id);
				for (const c of n.children) walk(c as { id: string; children: unknown[] });
			};
			for (const n of (JSON.parse(r.stdout) as { roots: { id: string; children: unknown[] }[] }).roots) walk(n);
			return out;
		};
		expect(ids("null check")).toEqual(["m1", "m2"]);
		expect(ids('"null check"')).toEqual(["m1"]);
		expect(ids('"check for" null')).toEqual(["m2"]);
	});
});

describe("arbor tree output details", () => {
	it("marks the active path, labels and the leaf like pi's selector", () => {
		const r = arbor(["tree", files[0]]);
		const lines = r.stdout.trimEnd().split("\n");
		expect(lines[0]).toBe("• user: Inspect the pinned Pi branch fixture.");
		expect(lines).toContain("   • [accepted] assistant: The active branch closes with source-backed evidence.");
		expect(lines.filter((l) => l.endsWith("← active"))).toHaveLength(1);
		expect(lines.at(-2)).toBe("user: This abandoned branch must not become active chat.");
	});
	it("gives real types and roles in JSON, role only on messages and label only when set", () => {
		const r = arbor(["tree", files[0], "--filter", "all", "--json"]);
		const t = JSON.parse(r.stdout) as { leafId: string; roots: { id: string; type: string; children: unknown[] }[] };
		expect(t.leafId).toBe("unknown-active");
		const flat: Record<string, unknown>[] = [];
		const stack: Record<string, unknown>[] = [...(t.roots as unknown as Record<string, unknown>[])];
		while (stack.length) {
			const n = stack.pop() as Record<string, unknown>;
			flat.push(n);
			stack.push(...(n.children as Record<string, unknown>[]));
		}
		expect(flat.find((n) => n.id === "unknown-active")).toEqual({ id: "unknown-active", type: "future_extension_shape", children: [] });
		expect(flat.find((n) => n.id === "assistant-active")).toMatchObject({ type: "message", role: "assistant", label: "accepted" });
		expect(flat.filter((n) => "label" in n)).toHaveLength(1);
	});
	it("prints pi's leaf as leafId when the last line is a usage entry, and the entry the tree marks as shownLeafId", () => {
		const file = join(dir, "usage-last.jsonl");
		const T = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
		const lines = [
			{ type: "session", version: 3, id: "usage-last", timestamp: T(0), cwd: "/x" },
			{ type: "message", id: "u1", parentId: null, timestamp: T(1), message: { role: "user", content: "hi", timestamp: 1 } },
			{
				type: "message",
				id: "a1",
				parentId: "u1",
				timestamp: T(2),
				message: { role: "assistant", content: [{ type: "text", text: "yo" }], stopReason: "stop" },
			},
			{ type: "usage", id: "w1", parentId: "a1", timestamp: T(3), kind: "cache_warm", provider: "p", model: "m", usage: { totalTokens: 1 } },
		];
		writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
		const r = arbor(["tree", file, "--json"]);
		expect(r.status).toBe(0);
		const t = JSON.parse(r.stdout) as { leafId: string; shownLeafId: string };
		checkTreeJson(t);
		// pi 1.6's SessionManager (and the real pi, electron/services/test/real-pi/) resume on the usage line.
		const pi = Pi16SessionManager.open(file);
		expect(t.leafId).toBe(pi.getLeafId());
		expect(t).toMatchObject({ leafId: "w1", shownLeafId: "a1" });
		expect(arbor(["tree", file]).stdout).toContain("assistant: yo ← active");
	});
	it("handles a 100,000-entry chain in text and JSON without overflowing the stack", () => {
		const file = join(dir, "chain.jsonl");
		const lines = [JSON.stringify({ type: "session", version: 3, id: "chain", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/x" })];
		for (let i = 0; i < 100_000; i++) {
			lines.push(
				JSON.stringify({
					type: "message",
					id: `e${i}`,
					parentId: i ? `e${i - 1}` : null,
					timestamp: "2026-01-01T00:00:00.000Z",
					message: { role: "user", content: `m${i}`, timestamp: 0 },
				}),
			);
		}
		writeFileSync(file, `${lines.join("\n")}\n`);
		const json = arbor(["tree", file, "--json"]);
		expect(json.status).toBe(0);
		expect(checkTreeJson(JSON.parse(json.stdout))).toBe(100_000);
		const text = arbor(["tree", file]);
		expect(text.status).toBe(0);
		const out = text.stdout.trimEnd().split("\n");
		expect(out).toHaveLength(100_000);
		expect(out[99_999]).toBe("• user: m99999 ← active");
	});
});
