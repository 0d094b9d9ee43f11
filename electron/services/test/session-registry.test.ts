// The session registry on its own (what a flow is handed): one session per file, hooks instead of
// callbacks into ArborServices, catch-up reporting, and the one write door that reports changes even when
// the change it wraps fails.
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../shared/api";
import { EventHub } from "../events";
import { SessionRegistry, type SessionStart } from "../session-registry";
import { branchySession, tempDir, user, writeSession } from "./helpers/entries";

function registry() {
	const events = new EventHub();
	const seen: ArborEvent[] = [];
	events.on((e) => seen.push(e));
	const starts: SessionStart[] = [];
	const opened: string[] = [];
	const renamed: string[] = [];
	const sessions = new SessionRegistry({
		events,
		watch: false,
		pollMs: 500,
		onStart: (_s, start) => starts.push(start),
		onRenamed: (s) => renamed.push(s.id),
		onOpened: (file) => opened.push(file),
	});
	return { sessions, seen, starts, opened, renamed };
}

describe("SessionRegistry", () => {
	it("opens a file once (also two requests at the same time), with pi's start reasons and the open hook", async () => {
		const r = registry();
		const file = writeSession(tempDir(), branchySession());
		const [a, b] = await Promise.all([r.sessions.open(file), r.sessions.open(file)]);
		expect(a).toBe(b);
		expect(await r.sessions.open(file)).toBe(a);
		expect(r.starts).toEqual([{ reason: "startup" }]);
		expect(r.opened).toEqual([file]);
		const other = await r.sessions.open(writeSession(tempDir(), branchySession()));
		expect(r.starts.at(-1)).toEqual({ reason: "resume" });
		expect(r.sessions.all().map((s) => s.id)).toEqual([a.id, other.id]);
		expect(r.sessions.get(a.id)).toBe(a);
		expect(() => r.sessions.get("nope")).toThrow(expect.objectContaining({ code: "not_found" }));
		expect(() => r.sessions.entry(a, "nope")).toThrow(expect.objectContaining({ code: "not_found" }));
		r.sessions.close(a);
		expect(a.closed).toBe(true);
		expect(r.sessions.find(a.id)).toBeUndefined();
		await expect(r.sessions.open(`${file}.missing`)).rejects.toMatchObject({ code: "not_found" });
	});

	it("write catches up first, then reports its own change and what came before it, in file order", async () => {
		const r = registry();
		const file = writeSession(tempDir(), branchySession());
		const s = await r.sessions.open(file);
		fs.appendFileSync(file, `${JSON.stringify(user("u9", "a3", "from pi"))}\n`);
		r.seen.length = 0;
		const id = r.sessions.write(s, (m) => {
			// fn sees the caught-up index.
			expect(m.getEntry("u9")).toBeDefined();
			return m.appendLabelChange("u9", "mine");
		});
		const appended = r.seen.filter((e): e is Extract<ArborEvent, { type: "session_appended" }> => e.type === "session_appended");
		expect(appended.flatMap((e) => e.delta.ids)).toEqual(["u9", id]);
		expect(r.seen.some((e) => e.type === "labels_changed")).toBe(true);
	});

	it("a change that fails still reports what the catch-up found, and the error is a service error", async () => {
		const r = registry();
		const file = writeSession(tempDir(), branchySession());
		const s = await r.sessions.open(file);
		fs.appendFileSync(file, `${JSON.stringify(user("u9", "a3", "from pi"))}\n`);
		r.seen.length = 0;
		expect(() => r.sessions.write(s, (m) => m.appendLabelChange("gone", "x"))).toThrow();
		expect(r.seen.filter((e) => e.type === "session_appended")).toHaveLength(1);
		expect(fs.readFileSync(file, "utf8").includes('"label"')).toBe(false);
	});

	it("a replaced file reaches the client as session_reloaded; flows of one session run one after another", async () => {
		const r = registry();
		const file = writeSession(tempDir(), branchySession());
		const s = await r.sessions.open(file);
		fs.writeFileSync(`${file}.new`, fs.readFileSync(file, "utf8").split("\n").slice(0, 3).join("\n") + "\n");
		fs.renameSync(`${file}.new`, file);
		r.seen.length = 0;
		r.sessions.catchUp(s);
		expect(r.seen.map((e) => e.type)).toEqual(["session_reloaded", "leaf_changed"]);
		const order: string[] = [];
		const slow = r.sessions.exclusive(s, async () => {
			await new Promise((ok) => setImmediate(ok));
			order.push("first");
		});
		const fast = r.sessions.exclusive(s, async () => {
			order.push("second");
		});
		await Promise.all([slow, fast]);
		expect(order).toEqual(["first", "second"]);
	});
});
