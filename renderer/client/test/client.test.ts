import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { afterEach, describe, expect, it } from "vitest";
import { type ArborEvent, ArborRequestError } from "../../../shared/api";
import type { ArborBridge } from "../../../shared/bridge";
import { fakeServices } from "../../../electron/api/test/fake-services";
import { startBrowserHost, type BrowserHost } from "../../../electron/hosts/browser/server";
import { clientFromBridge, connectBrowserClient, createArborClient, socketUrlFromLocation, type WebSocketLike } from "../index";
import { tokenFromLocation } from "../browser-client";

let host: BrowserHost | undefined;
afterEach(async () => {
	await host?.close();
	host = undefined;
	delete (globalThis as { arbor?: unknown }).arbor;
});

const wsFactory = (url: string): WebSocketLike => new WebSocket(url) as unknown as WebSocketLike;

describe("browser client", () => {
	it("derives the socket URL from the page URL and its token", () => {
		expect(socketUrlFromLocation({ protocol: "http:", host: "127.0.0.1:5000", search: "?token=abc" })).toBe("ws://127.0.0.1:5000/api?token=abc");
		expect(socketUrlFromLocation({ protocol: "http:", host: "localhost:5000", search: "" })).toBe("ws://localhost:5000/api");
	});

	it("takes the token from the URL fragment, keeps it in the tab's storage for reloads, and needs no cookie", () => {
		const store = new Map<string, string>();
		const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
		expect(socketUrlFromLocation({ protocol: "http:", host: "127.0.0.1:5000", search: "", hash: "#token=t0k" }, storage)).toBe(
			"ws://127.0.0.1:5000/api?token=t0k",
		);
		// After the address bar was cleaned (and on a reload): the stored token.
		expect(socketUrlFromLocation({ protocol: "http:", host: "127.0.0.1:5000", search: "", hash: "" }, storage)).toBe("ws://127.0.0.1:5000/api?token=t0k");
		expect(tokenFromLocation({ search: "", hash: "" }, null)).toBeNull();
	});

	it("sends requests queued before the socket opens, gets typed results, errors with codes, and events", async () => {
		const fake = fakeServices({
			getSkeleton: () => ({
				count: 1,
				ids: ["a"],
				parent: Int32Array.of(-1),
				kind: Uint8Array.of(0),
				flags: Uint16Array.of(0),
				time: Float64Array.of(Number.NaN),
				tokens: Float64Array.of(0),
				labels: [],
				leaf: 0,
				resumeLeaf: 0,
			}),
		});
		host = await startBrowserHost({ services: fake.services, rendererDir: mkdtempSync(join(tmpdir(), "arbor-r-")), log: () => {} });
		const client = connectBrowserClient({ url: `ws://127.0.0.1:${host.port}/api?token=${host.token}`, createSocket: wsFactory });
		expect(client.host).toBe("browser");
		const events: ArborEvent[] = [];
		client.onEvent((e) => events.push(e));
		const sk = await client.request("getSkeleton", { sessionId: "s" });
		expect(sk.parent).toBeInstanceOf(Int32Array);
		expect(Number.isNaN(sk.time[0])).toBe(true);
		const err = await client.request("openSession", { path: "/etc/passwd" }).catch((e: unknown) => e);
		expect(err).toBeInstanceOf(ArborRequestError);
		expect((err as ArborRequestError).code).toBe("forbidden");
		fake.emit({ type: "labels_changed", sessionId: "s" });
		await expect.poll(() => events).toContainEqual({ type: "labels_changed", sessionId: "s" });
		client.close();
	});

	it("fails pending and later requests with an io error when the host goes away", async () => {
		host = await startBrowserHost({
			services: fakeServices({ getSettings: () => new Promise(() => {}) }).services,
			rendererDir: mkdtempSync(join(tmpdir(), "arbor-r-")),
			log: () => {},
		});
		const client = connectBrowserClient({ url: `ws://127.0.0.1:${host.port}/api?token=${host.token}`, createSocket: wsFactory });
		const events: ArborEvent[] = [];
		client.onEvent((e) => events.push(e));
		await client.request("getActiveModel", {});
		const hanging = client.request("getSettings", {});
		await host.close();
		host = undefined;
		await expect(hanging).rejects.toMatchObject({ code: "io" });
		await expect(client.request("getSettings", {})).rejects.toMatchObject({ code: "io" });
		// The page learns its host is gone (issue 38): what it showed live is dropped, and the notice says how to start one.
		expect(events.filter((e) => e.type === "host_lost")).toHaveLength(1);
		expect(events.find((e) => e.type === "host_lost")).toMatchObject({ message: expect.stringContaining("/arbor in pi again") });
	});

	it("is refused without the token", async () => {
		host = await startBrowserHost({ services: fakeServices().services, rendererDir: mkdtempSync(join(tmpdir(), "arbor-r-")), log: () => {} });
		const client = connectBrowserClient({ url: `ws://127.0.0.1:${host.port}/api`, createSocket: wsFactory });
		await expect(client.request("getSettings", {})).rejects.toMatchObject({ code: "io" });
	});
});

describe("Electron bridge client", () => {
	function fakeBridge(): ArborBridge {
		return {
			host: "electron",
			request: () => Promise.reject(new Error("message only")),
			onEvent: () => () => {},
			invoke: async (name) =>
				name === "getSettings" ? { ok: true, result: { recentFiles: [] } } : { ok: false, error: { code: "forbidden", message: "no", file: "/x" } },
			openDroppedFile: async () => ({ ok: false, error: { code: "bad_file", message: "not a session", line: 2 } }),
		};
	}

	it("createArborClient uses window.arbor when the preload put it there, keeping error codes", async () => {
		(globalThis as { arbor?: unknown }).arbor = fakeBridge();
		const client = createArborClient();
		expect(client.host).toBe("electron");
		expect(await client.request("getSettings", {})).toEqual({ recentFiles: [] });
		await expect(client.request("openSession", { path: "/x" })).rejects.toMatchObject({ code: "forbidden", file: "/x" });
		await expect(client.openDroppedFile?.(new File(["x"], "a.jsonl"))).rejects.toMatchObject({ code: "bad_file", line: 2 });
	});

	it("clientFromBridge throws ArborRequestError instances", async () => {
		const err = await clientFromBridge(fakeBridge())
			.request("openSession", { path: "/x" })
			.catch((e: unknown) => e);
		expect(err).toBeInstanceOf(ArborRequestError);
	});
});
