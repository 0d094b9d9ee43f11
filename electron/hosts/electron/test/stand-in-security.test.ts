// Electron's security settings as far as the stand-in (electron-double.cjs, sandboxed-renderer.cjs) can model
// them, on the BUILT dist/main.cjs and dist/preload.cjs: the preload in an isolated world with a sandboxed
// preload's require, what crosses contextBridge copied as Electron copies it, the page reaching main only
// through window.arbor, and the session's webRequest and permission handlers called as Electron calls them.
// What the stand-in cannot model is a skipped test that says so by name (not a pass).
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { ELECTRON_CSP } from "../security";
import { startDouble, type Double, type DoubleState } from "./double";

const repoRoot = resolve(import.meta.dirname, "..", "..", "..", "..");
const builtMain = join(repoRoot, "dist", "main.cjs");
const require = createRequire(import.meta.url);
const { runSandboxedPreload, crossBridge } = require("./sandboxed-renderer.cjs") as {
	runSandboxedPreload: (
		file: string,
		ipc: { invoke: (c: string, a: unknown[]) => Promise<unknown>; send: () => void },
	) => { problems: string[]; exposedKeys: string[]; evaluate: (code: string) => unknown };
	crossBridge: (v: unknown, into: "page" | "preload") => unknown;
};

const running: Double[] = [];
afterEach(async () => {
	await Promise.all(running.splice(0).map((d) => d.stop()));
});

beforeAll(async () => {
	const { existsSync } = await import("node:fs");
	if (!existsSync(builtMain) || !existsSync(join(repoRoot, "dist", "preload.cjs")))
		throw new Error("dist/ is not built: run `npm run build` first (npm test does)");
});

async function launched(): Promise<Double> {
	const home = mkdtempSync(join(tmpdir(), "arbor-standin-"));
	const d = startDouble({ layout: "dev", main: builtMain, home });
	running.push(d);
	await d.ready();
	await d.until((s: DoubleState) => s.windows[0]?.loaded === true, "loaded the window");
	return d;
}

describe("the built preload in a sandboxed, context-isolated renderer (stand-in)", () => {
	it("runs in its own world, requires only what a sandboxed preload may, and exposes window.arbor alone", async () => {
		const d = await launched();
		const s = await d.state();
		const w = s.windows[0];
		expect(w.preloadProblems).toEqual([]);
		expect(w.renderer?.exposedKeys).toEqual(["arbor"]);
		expect(w.renderer?.requires).toEqual(["electron"]);
		// The page's world: window.arbor, and no Node (require, process, Buffer) leaking into it.
		expect(
			await d.send("page", {
				code: `({ arbor: typeof window.arbor, host: window.arbor.host, require: typeof require, process: typeof process, buffer: typeof Buffer })`,
			}),
		).toEqual({ arbor: "object", host: "electron", require: "undefined", process: "undefined", buffer: "undefined" });
		// window.arbor cannot be replaced by page script (exposeInMainWorld makes it read-only).
		expect(await d.send("page", { code: `"use strict"; try { window.arbor = {}; "replaced" } catch (e) { "refused" }` })).toBe("refused");
	});

	it("the page reaches main only through window.arbor: a request goes preload → ipcRenderer → ipcMain and back, copied each way", async () => {
		const d = await launched();
		const r = (await d.send("page", { code: `window.arbor.invoke("getInitialSessions", {})` })) as { ok: boolean; result: { path: string }[] };
		expect(r.ok).toBe(true);
		expect(r.result.length).toBe(1);
		// A name outside the API never reaches main (the preload refuses it).
		expect(await d.send("page", { code: `window.arbor.invoke("openDroppedPath", { path: "/etc/passwd" })` })).toMatchObject({
			ok: false,
			error: { code: "bad_request" },
		});
		// A function in the parameters cannot cross IPC (structured clone), as in Electron.
		expect(await d.send("page", { code: `window.arbor.invoke("getSettings", { f: () => 1 }).then(() => "sent", (e) => String(e.message))` })).toMatch(
			/could not be cloned/,
		);
		// request() rejects with an Error that kept only its message across the bridge: why the renderer builds
		// its typed error from invoke's envelope (shared/bridge.ts).
		expect(
			await d.send("page", {
				code: `window.arbor.request("getEntry", { sessionId: "nope", id: "x" }).then(() => "resolved", (e) => ({ message: typeof e.message, code: e.code ?? null }))`,
			}),
		).toEqual({ message: "string", code: null });
	});

	it("a preload that requires fs does not run in the sandbox (the require throws; the problem is reported)", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-standin-preload-"));
		const bad = join(dir, "preload.cjs");
		writeFileSync(bad, `const fs = require("fs"); require("electron").contextBridge.exposeInMainWorld("leak", { read: (p) => fs.readFileSync(p, "utf8") });`);
		const r = runSandboxedPreload(bad, { invoke: async () => null, send: () => {} });
		expect(r.problems).toEqual(["a sandboxed preload cannot require fs", "the preload threw: module not found: fs"]);
		expect(r.exposedKeys).toEqual([]);
	});

	it("contextBridge copies as Electron documents: prototypes and custom error fields dropped, functions proxied, symbols refused", async () => {
		class Thing {
			x = 1;
			method(): number {
				return 2;
			}
		}
		const err = Object.assign(new Error("boom"), { code: "E_CUSTOM" });
		const copied = crossBridge({ thing: new Thing(), err, list: [1, { a: "b" }], when: new Date(0) }, "page") as Record<string, unknown>;
		expect(copied.thing).toEqual({ x: 1 });
		expect(Object.getPrototypeOf(copied.thing)).not.toBe(Thing.prototype);
		expect((copied.err as Error).message).toBe("boom");
		expect((copied.err as { code?: string }).code).toBeUndefined();
		expect(copied.when).toEqual(new Date(0));
		const seen: unknown[] = [];
		const fn = crossBridge((arg: unknown) => {
			seen.push(arg);
			return { back: arg };
		}, "page") as (a: unknown) => { back: unknown };
		const arg = { n: 1 };
		const out = fn(arg);
		expect(seen[0]).toEqual(arg);
		expect(seen[0]).not.toBe(arg);
		expect(out).toEqual({ back: { n: 1 } });
		expect(() => crossBridge({ s: Symbol("x") }, "page")).toThrow(/Symbol/);
		expect(await (crossBridge(Promise.resolve(new Thing()), "page") as Promise<unknown>)).toEqual({ x: 1 });
	});
});

describe("the session's handlers, called as Electron calls them (stand-in)", () => {
	it("onHeadersReceived sets Arbor's CSP on the page's response (the headers the page gets are the handler's)", async () => {
		const d = await launched();
		const s = await d.state();
		expect(s.windows[0].assets[0].csp).toBe(ELECTRON_CSP);
		const r = (await d.send("pageRequest", { url: "arbor://app/index.html" })) as { status: number; headers: Record<string, string> };
		expect(r.status).toBe(200);
		expect(r.headers["content-security-policy"]).toBe(ELECTRON_CSP);
		expect(r.headers["x-content-type-options"]).toBe("nosniff");
		// The handler itself adds it, also to a response that came without one (the protocol handler sets it
		// too; this pins the session hook on its own).
		const bare = (await d.send("headersReceived", { url: "arbor://app/other.html", responseHeaders: { "Content-Type": ["text/html"] } })) as {
			handler: boolean;
			responseHeaders: Record<string, string[]>;
		};
		expect(bare).toEqual({
			handler: true,
			cancel: false,
			responseHeaders: { "Content-Type": ["text/html"], "Content-Security-Policy": [ELECTRON_CSP], "X-Content-Type-Options": ["nosniff"] },
		});
	});

	it("onBeforeRequest blocks every request that leaves the app; the app's own files load", async () => {
		const d = await launched();
		for (const url of ["https://example.invalid/x.png", "http://127.0.0.1:9/", "file:///etc/passwd", "ws://127.0.0.1:1/"])
			expect(await d.send("pageRequest", { url }), url).toMatchObject({ blocked: true });
		expect(await d.send("pageRequest", { url: "arbor://app/index.html" })).toMatchObject({ blocked: false, status: 200 });
	});

	it("permission requests: only clipboard-sanitized-write is granted; camera, geolocation, notifications... refused", async () => {
		const d = await launched();
		for (const permission of ["media", "geolocation", "notifications", "midi", "openExternal", "clipboard-read", "display-capture"])
			expect(await d.send("permission", { permission }), permission).toEqual({ handler: true, granted: false });
		expect(await d.send("permission", { permission: "clipboard-sanitized-write" })).toEqual({ handler: true, granted: true });
		expect(await d.send("permissionCheck", { permission: "media" })).toEqual({ handler: true, granted: false });
	});

	// Not modelled: said by name and reported as skipped, never counted as a pass.
	it.skip("CSP enforcement inside a real Chromium renderer: not modelled by the stand-in (it only checks the header is set); see e2e/electron.spec.ts and the XSS walk of bench/reliability/xss.mjs", () => {});
	it.skip("the OS sandbox of the renderer process (seccomp, namespaces): not modelled by the stand-in; see e2e/electron.spec.ts where an Electron binary exists", () => {});
	it.skip("separate JS heaps of the isolated and main worlds: not modelled by the stand-in (vm contexts share one heap and event loop; it models the copying only)", () => {});
});
