// Seeded random requests against the router over the real services: wrong types, unknown ids, hostile
// paths. Every answer must be a result or a typed error (never `internal`), and no file outside what
// the user chose may be opened.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REQUEST_NAMES, type SessionSummary } from "../../../shared/api";
import { ArborServices } from "../../services";
import { createRouter } from "../router";

const fixtures = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");

describe("router under random requests", () => {
	it("answers every request with a result or a typed error, and opens nothing the user did not choose", async () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-fuzz-"));
		const file = join(dir, "s.jsonl");
		copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), file);
		const outside = join(dir, "outside.jsonl");
		copyFileSync(join(fixtures, "kimchi-dev__statsuline.v3.jsonl"), outside);
		writeFileSync(join(dir, "secret.txt"), "secret");
		const outsideBytes = readFileSync(outside);

		const services = new ArborServices({ settingsDir: join(dir, "arbor"), piAgentDir: join(dir, "pi"), env: {}, watch: false });
		const logged: string[] = [];
		const router = createRouter({ services, log: (m) => logged.push(m) });
		const { opened } = await router.openInitial([file]);
		const sid = opened[0].sessionId;

		const values: unknown[] = [
			undefined,
			null,
			0,
			-1,
			2 ** 40,
			1.5,
			Number.NaN,
			"",
			"x",
			sid,
			"user-first",
			"unknown-active",
			"../../etc/passwd",
			outside,
			join(dir, "secret.txt"),
			`${dir}/../${dir.split("/").pop()}/outside.jsonl`,
			[],
			[0, 1, 99_999],
			{},
			{ $t: "x" },
			true,
			"é".repeat(300),
		];
		const shape: Record<string, string[]> = {
			openSession: ["path"],
			getEntry: ["id"],
			getContext: ["leafId"],
			previewNavigation: ["targetId"],
			navigate: ["targetId", "label", "summarize"],
			branchToFile: ["entryId"],
			setLabel: ["entryId", "label"],
			appendUserMessage: ["text"],
			leafHistory: ["direction"],
			runExtensionCommand: ["name", "entryId", "args"],
			getPreviews: ["indices"],
			search: ["query", "scope"],
			listSessions: ["dirs"],
		};
		const noSession = new Set([
			"openSession",
			"getInitialSessions",
			"getSettings",
			"getActiveModel",
			"listCommands",
			"showOpenDialog",
			"listSessions",
			"setSettings",
		]);
		let seed = 7;
		const rnd = (n: number) => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed % n;
		};

		const codes = new Map<string, number>();
		for (let i = 0; i < 800; i++) {
			const name = REQUEST_NAMES[rnd(REQUEST_NAMES.length)];
			if (name === "closeSession" || name === "upgradeLegacy") continue;
			const params: Record<string, unknown> = {};
			if (!noSession.has(name)) params.sessionId = rnd(4) ? sid : values[rnd(values.length)];
			for (const k of shape[name] ?? []) {
				const v = values[rnd(values.length)];
				if (v !== undefined) params[k] = v;
			}
			if (name === "leafHistory" && rnd(2)) params.direction = rnd(2) ? "back" : "forward";
			if (name === "search" && rnd(2)) params.scope = rnd(2) ? "pi" : "full";
			const r = await router.handle(name, rnd(20) === 0 ? values[rnd(values.length)] : params);
			const code = r.ok ? "ok" : r.error.code;
			codes.set(code, (codes.get(code) ?? 0) + 1);
			expect(code, `${name} ${JSON.stringify(params)}`).not.toBe("internal");
			if (name === "openSession" && r.ok) expect((r.result as SessionSummary).path).toBe(file);
		}
		expect(logged).toEqual([]);
		expect(readFileSync(outside).equals(outsideBytes)).toBe(true);
		expect(codes.get("ok")).toBeGreaterThan(0);
		expect(codes.get("bad_request")).toBeGreaterThan(0);
		await router.dispose();
	});
});
