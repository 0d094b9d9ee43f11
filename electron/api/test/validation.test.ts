import { describe, expect, it } from "vitest";
import { REQUEST_NAMES } from "../../../shared/api";
import { createRouter } from "../router";
import { fakeServices } from "./fake-services";

const quiet = () => {};

describe("router validation", () => {
	it("rejects unknown request names, including prototype keys, without calling a service", async () => {
		const fake = fakeServices();
		const router = createRouter({ services: fake.services, log: quiet });
		for (const name of ["nope", "constructor", "__proto__", "toString", "onEvent", "dispose"]) {
			const r = await router.handle(name, {});
			expect(r).toMatchObject({ ok: false, error: { code: "bad_request" } });
		}
		expect(fake.calls).toEqual([]);
	});

	it("names the offending field in bad_request messages", async () => {
		const router = createRouter({ services: fakeServices().services, log: quiet });
		const r = await router.handle("getEntry", { sessionId: "s", id: 42 });
		expect(r.ok).toBe(false);
		if (!r.ok) {
			expect(r.error.code).toBe("bad_request");
			expect(r.error.message).toMatch(/getEntry/);
			expect(r.error.message).toMatch(/\bid\b/);
		}
	});

	it("rejects unknown keys (strict objects)", async () => {
		const router = createRouter({ services: fakeServices().services, log: quiet });
		const r = await router.handle("getSkeleton", { sessionId: "s", extra: 1 });
		expect(r).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});

	it("bounds getPreviews to 2000 indices of non-negative integers", async () => {
		const fake = fakeServices({ getPreviews: () => [] });
		const router = createRouter({ services: fake.services, log: quiet });
		const ok = await router.handle("getPreviews", { sessionId: "s", indices: Array.from({ length: 2000 }, (_, i) => i) });
		expect(ok.ok).toBe(true);
		const tooMany = await router.handle("getPreviews", { sessionId: "s", indices: Array.from({ length: 2001 }, (_, i) => i) });
		expect(tooMany).toMatchObject({ ok: false, error: { code: "bad_request" } });
		const negative = await router.handle("getPreviews", { sessionId: "s", indices: [-1] });
		expect(negative).toMatchObject({ ok: false, error: { code: "bad_request" } });
		const fractional = await router.handle("getPreviews", { sessionId: "s", indices: [1.5] });
		expect(fractional).toMatchObject({ ok: false, error: { code: "bad_request" } });
		expect(fake.calls.filter((c) => c.name === "getPreviews")).toHaveLength(1);
	});

	it("bounds string sizes (huge composer text, huge ids)", async () => {
		const router = createRouter({ services: fakeServices().services, log: quiet });
		const big = await router.handle("appendUserMessage", { sessionId: "s", text: "x".repeat(1_000_001) });
		expect(big).toMatchObject({ ok: false, error: { code: "bad_request" } });
		const bigId = await router.handle("getEntry", { sessionId: "s", id: "x".repeat(5000) });
		expect(bigId).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});

	it("accepts missing params for parameterless requests and rejects non-objects", async () => {
		const fake = fakeServices({ getSettings: () => ({}) });
		const router = createRouter({ services: fake.services, log: quiet });
		expect((await router.handle("getSettings", undefined)).ok).toBe(true);
		expect(await router.handle("getSettings", "x")).toMatchObject({ ok: false, error: { code: "bad_request" } });
		expect(await router.handle("getSkeleton", null)).toMatchObject({ ok: false, error: { code: "bad_request" } });
		expect(await router.handle("getSkeleton", [1])).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});

	it("rejects settings with a non-http baseUrl or unknown fields", async () => {
		const router = createRouter({ services: fakeServices().services, log: quiet });
		expect(await router.handle("setSettings", { settings: { model: { baseUrl: "file:///etc/passwd" } } })).toMatchObject({
			ok: false,
			error: { code: "bad_request" },
		});
		expect(await router.handle("setSettings", { settings: { evil: true } })).toMatchObject({ ok: false, error: { code: "bad_request" } });
		expect(await router.handle("setSettings", { settings: { treeFilterMode: "bogus" } })).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});

	it("setExtensionEnabled takes one path and a boolean; setSettings cannot set enabledExtensions", async () => {
		const fake = fakeServices({ setExtensionEnabled: () => ({ extensions: [], missing: [] }) });
		const router = createRouter({ services: fake.services, log: quiet });
		expect(await router.handle("setExtensionEnabled", { path: "/x/a.ts", enabled: "yes" })).toMatchObject({ ok: false, error: { code: "bad_request" } });
		expect(await router.handle("setExtensionEnabled", { path: "/x/a\0.ts", enabled: true })).toMatchObject({ ok: false, error: { code: "bad_request" } });
		expect(await router.handle("setExtensionEnabled", { path: "/x/a.ts", enabled: true, extra: 1 })).toMatchObject({
			ok: false,
			error: { code: "bad_request" },
		});
		expect(await router.handle("setSettings", { settings: { enabledExtensions: ["/x/evil.ts"] } })).toMatchObject({
			ok: false,
			error: { code: "bad_request" },
		});
		expect(await router.handle("setExtensionEnabled", { path: "/x/a.ts", enabled: true })).toEqual({ ok: true, result: { extensions: [], missing: [] } });
		expect(fake.calls.map((c) => c.name)).toEqual(["setExtensionEnabled"]);
	});

	it("has a schema for every request name", async () => {
		const router = createRouter({ services: fakeServices().services, log: quiet });
		for (const name of REQUEST_NAMES) {
			// A wrong-typed params object must be refused by a schema, never reach a service.
			const r = await router.handle(name, { __bogus__: 1 });
			expect(r, name).toMatchObject({ ok: false, error: { code: "bad_request" } });
		}
	});

	it("passes valid params through to the service of the same name", async () => {
		const fake = fakeServices({ navigate: () => ({ cancelled: false, newLeafId: "b", oldLeafId: "a" }) });
		const router = createRouter({ services: fake.services, log: quiet });
		const params = { sessionId: "s", targetId: "b", summarize: true, customInstructions: "focus" };
		const r = await router.handle("navigate", params);
		expect(r).toEqual({ ok: true, result: { cancelled: false, newLeafId: "b", oldLeafId: "a" } });
		expect(fake.calls).toEqual([{ name: "navigate", params }]);
	});
});
