// The preload against a recording fake of the sandboxed `electron` module: what it exposes, which
// channels it uses, and that the page cannot reach IPC except through the API's names.
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { ArborEvent } from "../../../../shared/api";
import type { ArborBridge } from "../../../../shared/bridge";
import { DROP_REQUEST, EVENT_CHANNEL, REQUEST_CHANNEL } from "../channels";

const fake = vi.hoisted(() => ({
	exposed: new Map<string, unknown>(),
	invoked: [] as unknown[][],
	on: new Map<string, (event: unknown, payload: unknown) => void>(),
	paths: new Map<unknown, string>(),
}));

vi.mock("electron", () => ({
	contextBridge: { exposeInMainWorld: (key: string, api: unknown) => fake.exposed.set(key, api) },
	ipcRenderer: {
		invoke: async (...args: unknown[]) => {
			fake.invoked.push(args);
			return { ok: true, result: "answer" };
		},
		on: (channel: string, fn: (event: unknown, payload: unknown) => void) => fake.on.set(channel, fn),
	},
	webUtils: { getPathForFile: (file: unknown) => fake.paths.get(file) ?? "" },
}));

let bridge: ArborBridge;
beforeAll(async () => {
	await import("../preload");
	bridge = fake.exposed.get("arbor") as ArborBridge;
});

describe("preload", () => {
	it("exposes only window.arbor, as the Electron host", () => {
		expect([...fake.exposed.keys()]).toEqual(["arbor"]);
		expect(bridge.host).toBe("electron");
	});

	it("sends API requests on the one request channel", async () => {
		fake.invoked.length = 0;
		expect(await bridge.invoke("getSettings", {})).toEqual({ ok: true, result: "answer" });
		expect(await bridge.request("getSettings", {})).toBe("answer");
		expect(fake.invoked).toEqual([
			[REQUEST_CHANNEL, "getSettings", {}],
			[REQUEST_CHANNEL, "getSettings", {}],
		]);
	});

	it("refuses names outside the API (the page cannot send the drop request itself)", async () => {
		fake.invoked.length = 0;
		expect(await bridge.invoke(DROP_REQUEST as never, { path: "/etc/passwd" })).toMatchObject({ ok: false, error: { code: "bad_request" } });
		await expect(bridge.request("nope" as never, {} as never)).rejects.toThrow(/unknown request/);
		expect(fake.invoked).toEqual([]);
	});

	it("opens a dropped file by the path Electron knows for it, and refuses a File that is not on disk", async () => {
		fake.invoked.length = 0;
		const onDisk = { name: "a.jsonl" };
		fake.paths.set(onDisk, "/home/u/a.jsonl");
		await bridge.openDroppedFile(onDisk);
		expect(fake.invoked).toEqual([[REQUEST_CHANNEL, DROP_REQUEST, { path: "/home/u/a.jsonl" }]]);
		expect(await bridge.openDroppedFile({ name: "made-up" })).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});

	it("delivers events from the event channel to subscribers until they unsubscribe", () => {
		const got: ArborEvent[] = [];
		const off = bridge.onEvent((e) => got.push(e));
		const deliver = fake.on.get(EVENT_CHANNEL);
		expect(deliver).toBeDefined();
		deliver?.({}, { type: "commands_changed" });
		off();
		deliver?.({}, { type: "commands_changed" });
		expect(got).toEqual([{ type: "commands_changed" }]);
		expect([...fake.on.keys()]).toEqual([EVENT_CHANNEL]);
	});
});
