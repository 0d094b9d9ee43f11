// The live wire's readers (shared/live.ts): what each end accepts from the other, and the plain errors it
// gives for the rest.

import { describe, expect, it } from "vitest";
import {
	LIVE_REQUEST_NAMES,
	LiveProtocolError,
	readClientMessage,
	readLiveRegistration,
	readLiveRequestBody,
	readLiveResult,
	readServerMessage,
} from "../live";

const state = {
	pid: 1,
	agent: "pi",
	agentVersion: "1.6.0",
	sessionFile: "/s.jsonl",
	sessionId: "x",
	leafId: null,
	model: null,
	thinkingLevel: null,
	status: "idle",
	cwd: "/",
};

describe("readLiveRequestBody", () => {
	it("accepts each request with its fields and drops unknown extra fields", () => {
		expect(readLiveRequestBody({ name: "navigate", targetId: "a1", summarize: true, extra: 1 })).toEqual({
			name: "navigate",
			targetId: "a1",
			summarize: true,
			customInstructions: undefined,
			replaceInstructions: undefined,
			label: undefined,
			waitForIdle: undefined,
		});
		expect(readLiveRequestBody({ name: "label", entryId: "e", label: null })).toEqual({ name: "label", entryId: "e", label: null });
		expect(readLiveRequestBody({ name: "send", text: "hi", deliverAs: "steer" })).toMatchObject({ name: "send", text: "hi", deliverAs: "steer" });
		expect(readLiveRequestBody({ name: "abort" })).toEqual({ name: "abort" });
	});

	it("names the known requests when the request is unknown", () => {
		const err = (() => {
			try {
				readLiveRequestBody({ name: "shell", cmd: "rm -rf /" });
			} catch (e) {
				return e;
			}
		})() as LiveProtocolError;
		expect(err).toBeInstanceOf(LiveProtocolError);
		expect(err.code).toBe("unknown_request");
		expect(err.message).toMatch(/unknown request "shell".*navigate, fork, label, send, abort/);
	});

	it("refuses wrong field types with the field named", () => {
		expect(() => readLiveRequestBody({ name: "navigate", targetId: 5 })).toThrow(/navigate: targetId/);
		expect(() => readLiveRequestBody({ name: "send", text: "   " })).toThrow(/send: text/);
		expect(() => readLiveRequestBody({ name: "fork", entryId: "e", position: "after" })).toThrow(/position/);
		expect(() => readLiveRequestBody({ name: "label", entryId: "e", label: 3 })).toThrow(/label: label must be a string or null/);
		expect(() => readLiveRequestBody([])).toThrow(/no name/);
	});
});

describe("readClientMessage / readServerMessage", () => {
	it("reads a hello and a request, refuses anything else", () => {
		expect(readClientMessage({ type: "hello", protocol: 1, secret: "s", client: { name: "arbor", version: "1" } })).toMatchObject({ type: "hello" });
		expect(readClientMessage({ type: "request", id: 3, request: { name: "state" } })).toEqual({ type: "request", id: 3, request: { name: "state" } });
		expect(() => readClientMessage({ type: "request", id: -1, request: { name: "state" } })).toThrow(/id/);
		expect(() => readClientMessage({ type: "hello", protocol: 1 })).toThrow(/secret/);
		expect(() => readClientMessage({ type: "exec" })).toThrow(/unknown message type/);
	});

	it("skips an event type it does not know (a newer extension) silently, a malformed known one with a warning", () => {
		expect(readServerMessage({ type: "event", event: { type: "future_thing", x: 1 } })).toEqual({ type: "skip" });
		expect(readServerMessage({ type: "event", event: { type: "state", state } })).toMatchObject({ type: "event" });
		expect(readServerMessage({ type: "event", event: { type: "state", state: { ...state, status: "dancing" } } })).toEqual({
			type: "skip",
			warning: expect.stringMatching(/^malformed state event dropped \(state\.status must be "idle" or "streaming"\)/),
		});
		expect(() => readServerMessage({ type: "welcome", protocol: 1 })).toThrow(/malformed welcome/);
		expect(readServerMessage({ type: "response", id: 2, ok: false, error: { code: "busy", message: "m" } })).toEqual({
			type: "response",
			id: 2,
			ok: false,
			error: { code: "busy", message: "m" },
		});
	});

	it("keeps only the capabilities it knows from a welcome", () => {
		const w = readServerMessage({
			type: "welcome",
			protocol: 1,
			agent: "omp",
			agentVersion: "18.3.4",
			extensionVersion: "1",
			capabilities: ["navigate", "teleport"],
			state,
		});
		expect(w).toMatchObject({ type: "welcome", agent: "omp", capabilities: ["navigate"] });
	});
});

describe("readLiveRegistration", () => {
	it("reads a registration and refuses a partial one", () => {
		const reg = { protocol: 1, pid: 5, agent: "pi", agentVersion: "1.6.0", extensionVersion: "1", sessionFile: null, socket: "/s", secret: "ab", startedAt: 1 };
		expect(readLiveRegistration(reg)).toEqual(reg);
		expect(readLiveRegistration({ ...reg, secret: undefined })).toBeNull();
		expect(readLiveRegistration("x")).toBeNull();
	});

	it("reads the runtime a newer extension registers, and refuses a malformed one (older ones have none)", () => {
		const reg = { protocol: 1, pid: 5, agent: "pi", agentVersion: "1.6.0", extensionVersion: "1", sessionFile: null, socket: "/s", secret: "ab", startedAt: 1 };
		const runtime = { execPath: "/usr/bin/node", cliPath: "/opt/pi/dist/bundle/cli.js" };
		expect(readLiveRegistration({ ...reg, runtime })).toEqual({ ...reg, runtime });
		expect(readLiveRegistration({ ...reg, runtime: { execPath: "/opt/pi/pi", cliPath: null } })?.runtime).toEqual({ execPath: "/opt/pi/pi", cliPath: null });
		expect(readLiveRegistration({ ...reg, runtime: { execPath: "", cliPath: null } })).toBeNull();
		expect(readLiveRegistration({ ...reg, runtime: { execPath: "/usr/bin/node" } })).toBeNull();
		expect(readLiveRegistration({ ...reg, runtime: "node cli.js" })).toBeNull();
	});
});

describe("readLiveResult (each request's result, checked on receipt)", () => {
	it("keeps a well-formed result's known fields and drops the rest", () => {
		expect(readLiveResult("navigate", { cancelled: false, oldLeafId: "a", newLeafId: "b", editorText: "hi", extra: 1 })).toEqual({
			cancelled: false,
			oldLeafId: "a",
			newLeafId: "b",
			editorText: "hi",
		});
		expect(readLiveResult("send", { outcome: "queued", leafId: null })).toEqual({ outcome: "queued", leafId: null });
		expect(readLiveResult("label", { ok: true })).toEqual({ ok: true });
	});

	it("names the field an answer of another version gets wrong", () => {
		expect(() => readLiveResult("fork", { cancelled: false })).toThrow("fork result: sessionFile must be a string or null");
		expect(() => readLiveResult("send", { outcome: "done", leafId: null })).toThrow('send result: outcome must be "ended" or "started" or "queued"');
		expect(() => readLiveResult("state", { ...state, model: { provider: 1 } })).toThrow("state result: model.provider must be a string");
		expect(() => readLiveResult("abort", undefined)).toThrow("abort result: value must be an object");
	});

	it("knows every request by its typed map (no hand-kept list)", () => {
		expect([...LIVE_REQUEST_NAMES].sort()).toEqual(["abort", "fork", "label", "navigate", "send", "state", "switchSession"]);
	});
});
