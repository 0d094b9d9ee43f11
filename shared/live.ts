// The live channel between a running pi (Arbor's pi extension, pi-extension/) and Arbor (the live service in
// electron/services/live/, used by the router and the CLI). Every message either side sends is declared here
// once, as a shape (shared/shape.ts) that both names its type and validates it on receipt: a peer is a
// separate process, its messages are untrusted until they pass. Pure TS: no Node, no pi imports.
//
// Transport (docs/live.md): one JSON message per line (UTF-8, "\n"-terminated) over a Unix socket / Windows
// named pipe. The client speaks first with `hello` carrying the per-launch secret from the registration file;
// the extension answers `welcome` (or `refused` and closes). After that the client sends `request`s (each
// answered by one `response` with the same id, its result checked against the request's result shape) and
// the extension broadcasts `event`s to every client.

import type { AssistantMessage, ContentBlock } from "./entries";
import { isRecord } from "./guards";
import {
	array,
	boolean,
	count,
	type Infer,
	literal,
	nonEmptyString,
	nullable,
	number,
	object,
	optional,
	record,
	type Shape,
	ShapeError,
	string,
	tagged,
} from "./shape";

/** Bumped only for a change an older peer would misread; additions (new fields, requests, events) keep it. */
export const LIVE_PROTOCOL = 1;
/** Longest line either side accepts once the handshake is done (a streamed message with large tool arguments fits). */
export const LIVE_MAX_LINE = 8 * 1024 * 1024;
/** Longest line the extension reads before a client has said hello (a hello is a few hundred bytes). */
export const LIVE_MAX_HELLO_LINE = 4096;

const agent = literal("pi", "omp");
export type LiveAgent = Infer<typeof agent>;

const registration = object({
	protocol: count,
	pid: count,
	agent,
	agentVersion: string,
	extensionVersion: string,
	/** Absolute path of the session file pi holds now (null: an in-memory session, nothing to steer by file). */
	sessionFile: nullable(string),
	/** Unix socket path, or `\\.\pipe\...` on Windows. */
	socket: string,
	/** Per-launch random secret (hex); a client presents it in `hello`. */
	secret: string,
	/** ms since epoch: when this pi started listening (the tie-break when two pis hold one file: newest wins). */
	startedAt: number,
	/**
	 * How to start this pi again (Arbor's tries run with it): its runtime (`process.execPath`) and pi's CLI
	 * script, both real absolute paths; cliPath null when the runtime is pi itself (a compiled pi). Absent from
	 * older extensions and when the extension could not tell that the process runs pi's own CLI. Arbor runs
	 * these paths only under the trust rules of docs/security.md (`liveRuntimeOf`, shared-node/live-files.ts).
	 */
	runtime: optional(object({ execPath: nonEmptyString, cliPath: nullable(nonEmptyString) })),
});
/** What a pi with the extension writes to `~/.arbor/live/<pid>.json` (mode 0600) while it listens. */
export type LiveRegistration = Infer<typeof registration>;

/** Optional abilities the extension reports in `welcome` (omp lacks some; docs/live.md "oh-my-pi"). */
export type LiveCapability = "navigate" | "summarize" | "fork" | "label" | "send" | "abort" | "stream" | "switchSession";
export const LIVE_CAPABILITIES: readonly LiveCapability[] = ["navigate", "summarize", "fork", "label", "send", "abort", "stream", "switchSession"];

const state = object({
	pid: count,
	agent,
	agentVersion: string,
	/** The session file pi holds now (changes after a fork / new session in pi). */
	sessionFile: nullable(string),
	sessionId: nullable(string),
	/** pi's in-memory leaf: sent after every turn and every tree move (pi's own /tree too). */
	leafId: nullable(string),
	model: nullable(object({ provider: string, modelId: string })),
	thinkingLevel: nullable(string),
	/** streaming: a turn (or a tree summary / compaction) runs; navigate then answers `busy`. */
	status: literal("idle", "streaming"),
	cwd: string,
});
/** The running pi as the extension sees it (in memory, so also after moves that wrote nothing). */
export type LiveState = Infer<typeof state>;

// ---- client -> extension ----

const hello = object({ protocol: count, secret: string, client: object({ name: string, version: string }) });
export type LiveHello = { type: "hello" } & Infer<typeof hello>;

/** How to move the leaf: the API's `navigate` and the live channel's carry the same options. */
export interface NavigateOptions {
	summarize?: boolean;
	customInstructions?: string;
	replaceInstructions?: boolean;
	label?: string;
	/** A live pi busy with a turn: wait for it to end instead of failing with `busy`. */
	waitForIdle?: boolean;
}

const entryId = nonEmptyString;
/** Each request's body (without its name) and its result: the two typed maps both ends are checked against. */
const REQUESTS = {
	state: { body: object({}), result: state },
	/** pi's ctx.navigateTree. */
	navigate: {
		body: object({
			targetId: entryId,
			summarize: optional(boolean),
			customInstructions: optional(string),
			replaceInstructions: optional(boolean),
			label: optional(string),
			waitForIdle: optional(boolean),
		}),
		result: object({
			cancelled: boolean,
			oldLeafId: nullable(string),
			newLeafId: nullable(string),
			/** The text pi put in its editor (target was a user message). */
			editorText: optional(string),
			summaryEntryId: optional(string),
		}),
	},
	/** pi's ctx.fork: pi moves to the new file (as pi's own /fork does). */
	fork: {
		body: object({ entryId, position: optional(literal("before", "at")), waitForIdle: optional(boolean) }),
		/** sessionFile: the new file pi now holds. */
		result: object({ cancelled: boolean, sessionFile: nullable(string), editorText: optional(string) }),
	},
	/** pi.setLabel (null clears). */
	label: { body: object({ entryId, label: nullable(string) }), result: object({ ok: literal(true) }) },
	/**
	 * pi.sendUserMessage: a real turn. Idle: answers when the turn ends (`wait: "end"`, default) or when it
	 * started (`"start"`). Streaming: `busy` unless `deliverAs` queues it (answers once queued).
	 */
	send: {
		body: object({ text: nonEmptyString, deliverAs: optional(literal("steer", "followUp")), wait: optional(literal("start", "end")) }),
		/** queued: pi was streaming and took it as steer / followUp; leafId and stopReason: pi's after the turn. */
		result: object({
			outcome: literal("ended", "started", "queued"),
			leafId: nullable(string),
			stopReason: optional(string),
			errorMessage: optional(string),
		}),
	},
	/** ctx.abort(): stops the running turn / summary; a no-op when idle. */
	abort: { body: object({}), result: object({ wasStreaming: boolean }) },
	/** ctx.switchSession: pi leaves its file for another session file (as pi's /resume does); sessionFile: the file pi holds after it. */
	switchSession: {
		body: object({ sessionFile: nonEmptyString, waitForIdle: optional(boolean) }),
		result: object({ cancelled: boolean, sessionFile: nullable(string) }),
	},
} satisfies Record<string, { body: Shape<object>; result: Shape<unknown> }>;

type Requests = typeof REQUESTS;
export type LiveRequestName = keyof Requests;
export type LiveRequestBody = { [K in LiveRequestName]: { name: K } & Infer<Requests[K]["body"]> }[LiveRequestName];
export type LiveRequestOf<K extends LiveRequestName> = Extract<LiveRequestBody, { name: K }>;
export type LiveResults = { [K in LiveRequestName]: Infer<Requests[K]["result"]> };
export type LiveNavigateResult = LiveResults["navigate"];
export type LiveForkResult = LiveResults["fork"];
export type LiveSendResult = LiveResults["send"];
export type LiveSwitchResult = LiveResults["switchSession"];
/** What the extension must implement: one handler per request, returning that request's result (compiler-checked). */
export type LiveHandlers = { [K in LiveRequestName]: (body: LiveRequestOf<K>) => Promise<LiveResults[K]> };
export const LIVE_REQUEST_NAMES = Object.keys(REQUESTS) as LiveRequestName[];

export interface LiveRequest {
	type: "request";
	id: number;
	request: LiveRequestBody;
}

export type ClientMessage = LiveHello | LiveRequest;

// ---- extension -> client ----

const welcome = object({
	protocol: count,
	agent,
	agentVersion: string,
	extensionVersion: string,
	capabilities: array(string),
	state,
});
export type LiveWelcome = { type: "welcome" } & Omit<Infer<typeof welcome>, "capabilities"> & { capabilities: LiveCapability[] };

const refusedCode = literal("bad_secret", "protocol", "bad_request", "busy");
/** busy: the extension serves as many clients as it allows already (docs/live.md "Security"). */
export interface LiveRefused {
	type: "refused";
	code: Infer<typeof refusedCode>;
	message: string;
}

/**
 * busy: pi runs a turn / summary / compaction (navigateTree and fork reject then); not_found: no such entry;
 * unknown_request / bad_request: the request did not validate; unsupported: this agent lacks the call (omp);
 * no_model: send or summarize without a model; failed: pi's call threw (message says why).
 */
export type LiveErrorCode = "busy" | "not_found" | "unknown_request" | "bad_request" | "unsupported" | "no_model" | "no_session" | "failed";
export interface LiveErrorData {
	code: LiveErrorCode;
	message: string;
}

export type LiveResponse =
	{ type: "response"; id: number; ok: true; result: LiveResults[LiveRequestName] } | { type: "response"; id: number; ok: false; error: LiveErrorData };

// A content block: its type a string; the fields of the types the app reads checked (text, thinking, tool
// calls, images); other types (a newer pi's) kept as they are.
const KNOWN_BLOCKS: Record<string, Shape<unknown>> = {
	text: object({ type: string, text: string }, { rest: true }),
	thinking: object({ type: string, thinking: string }, { rest: true }),
	toolCall: object({ type: string, id: string, name: string, arguments: record }, { rest: true }),
	image: object({ type: string, data: string, mimeType: string }, { rest: true }),
};
const block: Shape<ContentBlock> = (v, path = "") => {
	const b = object({ type: string }, { rest: true })(v, path);
	const known = Object.hasOwn(KNOWN_BLOCKS, b.type) ? KNOWN_BLOCKS[b.type] : undefined;
	return (known ? known(b, path) : b) as ContentBlock;
};
const assistantMessage: Shape<AssistantMessage> = object(
	{ role: literal("assistant"), content: array(block), stopReason: optional(string), errorMessage: optional(string) },
	{ rest: true },
);

const streamMessage = object({
	/** Stable per message within one turn (the turn's index + the message's index). */
	key: string,
	/** The entry it will hang under when written (pi's leaf when the message started). */
	parentId: nullable(string),
	message: assistantMessage,
});
/** A streamed assistant message as pi has it so far (text, thinking, tool calls with partial arguments). */
export type LiveStreamMessage = Infer<typeof streamMessage>;

const EVENTS = {
	/** pi's state: after every turn, tree move, model / thinking change, session change and when it settles. */
	state: object({ state }),
	message_update: object({ phase: literal("start", "update", "end"), stream: streamMessage }),
	/** pi is shutting down or switched away; the channel closes after this. */
	bye: object({ reason: string }),
};
const unknownEvent = (): never => {
	throw new UnknownEvent();
};
class UnknownEvent extends Error {}
const event = tagged("type", EVENTS, unknownEvent);
export type LiveEvent = Infer<typeof event>;

export type ServerMessage = LiveWelcome | LiveRefused | LiveResponse | { type: "event"; event: LiveEvent };

// ---- readers (validate on receipt) ----

export class LiveProtocolError extends Error {
	constructor(
		readonly code: "bad_request" | "unknown_request",
		message: string,
	) {
		super(message);
		this.name = "LiveProtocolError";
	}
}

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** Run a shape; its failure becomes a LiveProtocolError whose message starts with `what`. */
function check<T>(s: Shape<T>, v: unknown, what: string): T {
	try {
		return s(v);
	} catch (err) {
		if (err instanceof ShapeError) throw new LiveProtocolError("bad_request", `${what}: ${err.message}`);
		throw err;
	}
}

/** One request body, checked field by field; throws LiveProtocolError with a plain message. */
export function readLiveRequestBody(v: unknown): LiveRequestBody {
	if (!isRecord(v) || typeof v.name !== "string") throw new LiveProtocolError("bad_request", "request has no name");
	const name = v.name;
	if (!Object.hasOwn(REQUESTS, name))
		throw new LiveProtocolError("unknown_request", `unknown request "${name.slice(0, 80)}" (this pi knows: ${LIVE_REQUEST_NAMES.join(", ")})`);
	const body = check(REQUESTS[name as LiveRequestName].body as Shape<object>, v, name);
	return { ...body, name } as LiveRequestBody;
}

/** The result of a `name` request as the extension answered it: throws LiveProtocolError naming what is off. */
export function readLiveResult<K extends LiveRequestName>(name: K, v: unknown): LiveResults[K] {
	return check(REQUESTS[name].result as Shape<LiveResults[K]>, v, `${name} result`);
}

/** A line from a client (extension side). */
export function readClientMessage(v: unknown): ClientMessage {
	if (!isRecord(v)) throw new LiveProtocolError("bad_request", "message is not a JSON object");
	if (v.type === "hello") return { type: "hello", ...check(hello, v, "hello") };
	if (v.type === "request") {
		if (!isCount(v.id)) throw new LiveProtocolError("bad_request", "request id must be a non-negative integer");
		return { type: "request", id: v.id as number, request: readLiveRequestBody(v.request) };
	}
	throw new LiveProtocolError("bad_request", `unknown message type ${JSON.stringify(String(v.type)).slice(0, 80)}`);
}

/** What a line from the extension is: a message, or one to skip (`warning` set when it was a malformed event). */
export type ServerLine = ServerMessage | { type: "skip"; warning?: string };

/**
 * A line from the extension (Arbor side). An event of a type this Arbor does not know (a newer extension) is
 * skipped silently; a malformed event of a known type is skipped with a warning (one bad stream update must
 * not end the channel or reach the app); anything else malformed throws. A response's result is checked
 * by the caller, who knows which request it answers (`readLiveResult`).
 */
export function readServerMessage(v: unknown): ServerLine {
	if (!isRecord(v)) throw new LiveProtocolError("bad_request", "message is not a JSON object");
	switch (v.type) {
		case "welcome": {
			const w = check(welcome, v, "malformed welcome");
			return { type: "welcome", ...w, capabilities: w.capabilities.filter((c): c is LiveCapability => LIVE_CAPABILITIES.includes(c as LiveCapability)) };
		}
		case "refused":
			return { type: "refused", ...check(object({ code: refusedCode, message: string }), v, "malformed refusal") };
		case "response": {
			if (!isCount(v.id)) throw new LiveProtocolError("bad_request", "response without id");
			const id = v.id as number;
			if (v.ok === true) return { type: "response", id, ok: true, result: v.result as LiveResults[LiveRequestName] };
			const error = check(object({ code: string, message: string }), v.error, "malformed response");
			if (v.ok === false) return { type: "response", id, ok: false, error: { code: error.code as LiveErrorCode, message: error.message } };
			throw new LiveProtocolError("bad_request", "malformed response");
		}
		case "event":
			if (!isRecord(v.event) || typeof v.event.type !== "string") throw new LiveProtocolError("bad_request", "malformed event");
			try {
				return { type: "event", event: event(v.event) };
			} catch (err) {
				if (err instanceof UnknownEvent) return { type: "skip" };
				if (err instanceof ShapeError) return { type: "skip", warning: `malformed ${v.event.type.slice(0, 40)} event dropped (${err.message})` };
				throw err;
			}
		default:
			throw new LiveProtocolError("bad_request", `unknown message type ${JSON.stringify(String(v.type)).slice(0, 80)}`);
	}
}

/** A registration file's contents, or null when it is not one (a half-written or foreign file). */
export function readLiveRegistration(v: unknown): LiveRegistration | null {
	try {
		return registration(v);
	} catch {
		return null;
	}
}
