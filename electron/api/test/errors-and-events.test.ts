import { describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../shared/api";
import { ArborServiceError } from "../../services/errors";
import { createRouter } from "../router";
import { fakeServices, summary } from "./fake-services";

describe("router errors", () => {
	it("maps ArborServiceError to its code, message, file and line", async () => {
		const fake = fakeServices({
			getSkeleton: () => {
				throw new ArborServiceError("bad_file", "line 3 is not JSON", "/tmp/a.jsonl", 3);
			},
		});
		const router = createRouter({ services: fake.services, log: () => {} });
		const r = await router.handle("getSkeleton", { sessionId: "s" });
		expect(r).toEqual({ ok: false, error: { code: "bad_file", message: "line 3 is not JSON", file: "/tmp/a.jsonl", line: 3 } });
	});

	it("answers internal without the stack for unexpected errors, and logs the stack", async () => {
		const logged: string[] = [];
		const fake = fakeServices({
			getEntry: () => {
				throw new TypeError("cannot read properties of undefined (secret detail at /home/u/x.ts:1)");
			},
		});
		const router = createRouter({ services: fake.services, log: (m) => logged.push(m) });
		const r = await router.handle("getEntry", { sessionId: "s", id: "a" });
		expect(r.ok).toBe(false);
		if (!r.ok) {
			expect(r.error.code).toBe("internal");
			expect(r.error.message).not.toMatch(/secret|TypeError|\.ts:/);
		}
		expect(logged.join("\n")).toMatch(/TypeError/);
	});

	it("answers unsupported for host-only requests when the host has no handler (browser host)", async () => {
		const router = createRouter({ services: fakeServices().services, log: () => {} });
		expect(await router.handle("showOpenDialog", {})).toMatchObject({ ok: false, error: { code: "unsupported" } });
		expect(await router.handle("revealInFolder", { sessionId: "s" })).toMatchObject({ ok: false, error: { code: "unsupported" } });
	});

	it("reveals the file of an open session through the host handler", async () => {
		const revealed: string[] = [];
		const fake = fakeServices();
		const router = createRouter({ services: fake.services, host: { revealInFolder: async (p) => void revealed.push(p) }, log: () => {} });
		fake.emit({ type: "session_loaded", session: summary("s1", "/x/a.jsonl") });
		expect(await router.handle("revealInFolder", { sessionId: "s1" })).toEqual({ ok: true, result: undefined });
		expect(revealed).toEqual(["/x/a.jsonl"]);
		expect(await router.handle("revealInFolder", { sessionId: "other" })).toMatchObject({ ok: false, error: { code: "not_found" } });
	});
});

describe("router events", () => {
	it("forwards service events to every subscriber until it unsubscribes", async () => {
		const fake = fakeServices();
		const router = createRouter({ services: fake.services, log: () => {} });
		const a: ArborEvent[] = [];
		const b: ArborEvent[] = [];
		const offA = router.onEvent((e) => a.push(e));
		router.onEvent((e) => b.push(e));
		fake.emit({ type: "labels_changed", sessionId: "s" });
		offA();
		fake.emit({ type: "commands_changed" });
		expect(a).toEqual([{ type: "labels_changed", sessionId: "s" }]);
		expect(b).toEqual([{ type: "labels_changed", sessionId: "s" }, { type: "commands_changed" }]);
	});

	it("delivers host events (menu_command) and survives a throwing listener", () => {
		const router = createRouter({ services: fakeServices().services, log: () => {} });
		const got: ArborEvent[] = [];
		router.onEvent(() => {
			throw new Error("listener bug");
		});
		router.onEvent((e) => got.push(e));
		router.emit({ type: "menu_command", command: "view.fit" });
		expect(got).toEqual([{ type: "menu_command", command: "view.fit" }]);
	});

	it("stops forwarding and disposes the services on dispose", async () => {
		const fake = fakeServices();
		const router = createRouter({ services: fake.services, log: () => {} });
		const got: ArborEvent[] = [];
		router.onEvent((e) => got.push(e));
		await router.dispose();
		fake.emit({ type: "commands_changed" });
		expect(got).toEqual([]);
		expect(fake.disposed).toBe(true);
	});
});
