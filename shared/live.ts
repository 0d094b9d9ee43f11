// The live channel between a running pi (Arbor's pi extension, pi-extension/) and Arbor (the live service in
// electron/services/live/, used by the router and the CLI). Every message either side sends is declared here
// once, and each side validates what it receives with the readers below (a peer is a separate process: its
// messages are untrusted until they pass). Pure TS: no Node, no pi imports.
//
// Transport (docs/live.md): one JSON message per line (UTF-8, "\n"-terminated) over a Unix socket / Windows
// named pipe. The client speaks first with `hello` carrying the per-launch secret from the registration file;
// the extension answers `welcome` (or `refused` and closes). After that the client sends `request`s (each
// answered by one `response` with the same id) and the extension broadcasts `event`s to every client.

import type { AssistantMessage } from "./entries";
import { isRecord } from "./guards";

/** Bumped only for a change an older peer would misread; additions (new fields, requests, events) keep it. */
export const LIVE_PROTOCOL = 1;
/** Longest line either side accepts (a streamed message with large tool arguments fits; a runaway peer does not). */
export const LIVE_MAX_LINE = 8 * 1024 * 1024;
/** Folder under Arbor's home (~/.arbor) holding registrations and (on POSIX) sockets; mode 0700. */
export const LIVE_DIR_NAME = "live";

export type LiveAgent = "pi" | "omp";

/** What a pi with the extension writes to `~/.arbor/live/<pid>.json` (mode 0600) while it listens. */
export interface LiveRegistration {
	protocol: number;
	pid: number;
	agent: LiveAgent;
	agentVersion: string;
	extensionVersion: string;
	/** Absolute path of the session file pi holds now (null: an in-memory session, nothing to steer by file). */
	sessionFile: string | null;
	/** Unix socket path, or `\\.\pipe\...` on Windows. */
	socket: string;
	/** Per-launch random secret (hex); a client presents it in `hello`. */
	secret: string;
	/** ms since epoch: when this pi started listening (the tie-break when two pis hold one file: newest wins). */
	startedAt: number;
}

/** Optional abilities the extension reports in `welcome` (omp lacks some; docs/live.md "oh-my-pi"). */
export type LiveCapability = "navigate" | "summarize" | "fork" | "label" | "send" | "abort" | "stream" | "switchSession";
export const LIVE_CAPABILITIES: readonly LiveCapability[] = ["navigate", "summarize", "fork", "label", "send", "abort", "stream", "switchSession"];

/** The running pi as the extension sees it (in memory, so also after moves that wrote nothing). */
export interface LiveState {
	pid: number;
	agent: LiveAgent;
	agentVersion: string;
	/** The session file pi holds now (changes after a fork / new session in pi). */
	sessionFile: string | null;
	sessionId: string | null;
	/** pi's in-memory leaf. */
	leafId: string | null;
	model: { provider: string; modelId: string } | null;
	thinkingLevel: string | null;
	/** streaming: a turn (or a tree summary / compaction) runs; navigate then answers `busy`. */
	status: "idle" | "streaming";
	cwd: string;
}

// ---- client -> extension ----

export interface LiveHello {
	type: "hello";
	protocol: number;
	secret: string;
	client: { name: string; version: string };
}

/** How to move the leaf: the API's `navigate` and the live channel's carry the same options. */
export interface NavigateOptions {
	summarize?: boolean;
	customInstructions?: string;
	replaceInstructions?: boolean;
	label?: string;
	/** A live pi busy with a turn: wait for it to end instead of failing with `busy`. */
	waitForIdle?: boolean;
}

export type LiveRequestBody =
	| { name: "state" }
	/** pi's ctx.navigateTree. */
	| ({ name: "navigate"; targetId: string } & NavigateOptions)
	/** pi's ctx.fork: pi moves to the new file (as pi's own /fork does). */
	| { name: "fork"; entryId: string; position?: "before" | "at"; waitForIdle?: boolean }
	/** pi.setLabel (null clears). */
	| { name: "label"; entryId: string; label: string | null }
	/**
	 * pi.sendUserMessage: a real turn. Idle: answers when the turn ends (`wait: "end"`, default) or when it
	 * started (`"start"`). Streaming: `busy` unless `deliverAs` queues it (answers once queued).
	 */
	| { name: "send"; text: string; deliverAs?: "steer" | "followUp"; wait?: "start" | "end" }
	/** ctx.abort(): stops the running turn / summary; a no-op when idle. */
	| { name: "abort" }
	/** ctx.switchSession: pi leaves its file for another session file (as pi's /resume does). */
	| { name: "switchSession"; sessionFile: string; waitForIdle?: boolean };

export type LiveRequestName = LiveRequestBody["name"];
export const LIVE_REQUEST_NAMES: readonly LiveRequestName[] = ["state", "navigate", "fork", "label", "send", "abort", "switchSession"];

export interface LiveRequest {
	type: "request";
	id: number;
	request: LiveRequestBody;
}

export type ClientMessage = LiveHello | LiveRequest;

// ---- extension -> client ----

export interface LiveWelcome {
	type: "welcome";
	protocol: number;
	agent: LiveAgent;
	agentVersion: string;
	extensionVersion: string;
	capabilities: LiveCapability[];
	state: LiveState;
}

export interface LiveRefused {
	type: "refused";
	code: "bad_secret" | "protocol" | "bad_request";
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

export interface LiveNavigateResult {
	cancelled: boolean;
	oldLeafId: string | null;
	newLeafId: string | null;
	/** The text pi put in its editor (target was a user message). */
	editorText?: string;
	summaryEntryId?: string;
}
export interface LiveForkResult {
	cancelled: boolean;
	/** The new file pi now holds. */
	sessionFile: string | null;
	editorText?: string;
}
export interface LiveSendResult {
	/** queued: pi was streaming and took it as steer / followUp. */
	outcome: "ended" | "started" | "queued";
	/** When the turn ended: pi's leaf after it, the stop reason of the last assistant message. */
	leafId: string | null;
	stopReason?: string;
	errorMessage?: string;
}
export interface LiveSwitchResult {
	cancelled: boolean;
	/** The file pi holds after the switch. */
	sessionFile: string | null;
}
export interface LiveResults {
	state: LiveState;
	navigate: LiveNavigateResult;
	fork: LiveForkResult;
	label: { ok: true };
	send: LiveSendResult;
	abort: { wasStreaming: boolean };
	switchSession: LiveSwitchResult;
}

export type LiveResponse =
	{ type: "response"; id: number; ok: true; result: LiveResults[LiveRequestName] } | { type: "response"; id: number; ok: false; error: LiveErrorData };

/** A streamed assistant message as pi has it so far (text, thinking, tool calls with partial arguments). */
export interface LiveStreamMessage {
	/** Stable per message within one turn (the turn's index + the message's index). */
	key: string;
	/** The entry it will hang under when written (pi's leaf when the message started). */
	parentId: string | null;
	message: AssistantMessage;
}

export type LiveEvent =
	| { type: "state"; state: LiveState }
	| { type: "agent_start" }
	| { type: "agent_end"; leafId: string | null }
	| { type: "turn_start"; turnIndex: number }
	| { type: "turn_end"; turnIndex: number }
	| { type: "message_update"; phase: "start" | "update" | "end"; stream: LiveStreamMessage }
	/** An entry pi appended (the file watcher brings the entry itself). */
	| { type: "entry_appended"; entryId: string; parentId: string | null; entryType: string }
	/** pi moved its leaf (session_tree): after navigateTree from anyone (TUI /tree, Arbor). */
	| { type: "tree"; oldLeafId: string | null; newLeafId: string | null; summaryEntryId?: string }
	| { type: "error"; message: string }
	/** pi is shutting down or switched away; the channel closes after this. */
	| { type: "bye"; reason: string };

export const LIVE_EVENT_TYPES: readonly LiveEvent["type"][] = [
	"state",
	"agent_start",
	"agent_end",
	"turn_start",
	"turn_end",
	"message_update",
	"entry_appended",
	"tree",
	"error",
	"bye",
];

export type ServerMessage = LiveWelcome | LiveRefused | LiveResponse | { type: "event"; event: LiveEvent };

// ---- readers (validate on receipt) ----

const str = (v: unknown): v is string => typeof v === "string";
const optStr = (v: unknown) => v === undefined || typeof v === "string";
const optBool = (v: unknown) => v === undefined || typeof v === "boolean";
const strOrNull = (v: unknown) => v === null || typeof v === "string";
const int = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

export class LiveProtocolError extends Error {
	constructor(
		readonly code: "bad_request" | "unknown_request",
		message: string,
	) {
		super(message);
		this.name = "LiveProtocolError";
	}
}

/** One request body, checked field by field; throws LiveProtocolError with a plain message. */
export function readLiveRequestBody(v: unknown): LiveRequestBody {
	if (!isRecord(v) || !str(v.name)) throw new LiveProtocolError("bad_request", "request has no name");
	const bad = (what: string) => new LiveProtocolError("bad_request", `${v.name}: ${what}`);
	switch (v.name) {
		case "state":
		case "abort":
			return { name: v.name };
		case "navigate":
			if (!str(v.targetId) || !v.targetId) throw bad("targetId must be an entry id");
			if (!optBool(v.summarize) || !optBool(v.replaceInstructions) || !optBool(v.waitForIdle))
				throw bad("summarize, replaceInstructions, waitForIdle are booleans");
			if (!optStr(v.customInstructions) || !optStr(v.label)) throw bad("customInstructions and label are strings");
			return {
				name: "navigate",
				targetId: v.targetId,
				summarize: v.summarize as boolean | undefined,
				customInstructions: v.customInstructions as string | undefined,
				replaceInstructions: v.replaceInstructions as boolean | undefined,
				label: v.label as string | undefined,
				waitForIdle: v.waitForIdle as boolean | undefined,
			};
		case "fork":
			if (!str(v.entryId) || !v.entryId) throw bad("entryId must be an entry id");
			if (v.position !== undefined && v.position !== "before" && v.position !== "at") throw bad('position is "before" or "at"');
			if (!optBool(v.waitForIdle)) throw bad("waitForIdle is a boolean");
			return { name: "fork", entryId: v.entryId, position: v.position, waitForIdle: v.waitForIdle as boolean | undefined };
		case "label":
			if (!str(v.entryId) || !v.entryId) throw bad("entryId must be an entry id");
			if (!strOrNull(v.label)) throw bad("label is a string or null");
			return { name: "label", entryId: v.entryId, label: v.label as string | null };
		case "switchSession":
			if (!str(v.sessionFile) || !v.sessionFile) throw bad("sessionFile must be a path");
			if (!optBool(v.waitForIdle)) throw bad("waitForIdle is a boolean");
			return { name: "switchSession", sessionFile: v.sessionFile, waitForIdle: v.waitForIdle as boolean | undefined };
		case "send":
			if (!str(v.text) || !v.text.trim()) throw bad("text must be a non-empty string");
			if (v.deliverAs !== undefined && v.deliverAs !== "steer" && v.deliverAs !== "followUp") throw bad('deliverAs is "steer" or "followUp"');
			if (v.wait !== undefined && v.wait !== "start" && v.wait !== "end") throw bad('wait is "start" or "end"');
			return { name: "send", text: v.text, deliverAs: v.deliverAs, wait: v.wait };
		default:
			throw new LiveProtocolError("unknown_request", `unknown request "${v.name.slice(0, 80)}" (this pi knows: ${LIVE_REQUEST_NAMES.join(", ")})`);
	}
}

/** A line from a client (extension side). */
export function readClientMessage(v: unknown): ClientMessage {
	if (!isRecord(v)) throw new LiveProtocolError("bad_request", "message is not a JSON object");
	if (v.type === "hello") {
		if (!int(v.protocol) || !str(v.secret) || !isRecord(v.client) || !str(v.client.name) || !str(v.client.version))
			throw new LiveProtocolError("bad_request", "hello needs protocol, secret and client {name, version}");
		return { type: "hello", protocol: v.protocol, secret: v.secret, client: { name: v.client.name, version: v.client.version } };
	}
	if (v.type === "request") {
		if (!int(v.id)) throw new LiveProtocolError("bad_request", "request id must be a non-negative integer");
		return { type: "request", id: v.id, request: readLiveRequestBody(v.request) };
	}
	throw new LiveProtocolError("bad_request", `unknown message type ${JSON.stringify(String(v.type)).slice(0, 80)}`);
}

function isLiveState(v: unknown): v is LiveState {
	return (
		isRecord(v) &&
		int(v.pid) &&
		(v.agent === "pi" || v.agent === "omp") &&
		str(v.agentVersion) &&
		strOrNull(v.sessionFile) &&
		strOrNull(v.sessionId) &&
		strOrNull(v.leafId) &&
		(v.model === null || (isRecord(v.model) && str(v.model.provider) && str(v.model.modelId))) &&
		strOrNull(v.thinkingLevel) &&
		(v.status === "idle" || v.status === "streaming") &&
		str(v.cwd)
	);
}

function isLiveEvent(v: unknown): v is LiveEvent {
	if (!isRecord(v) || !str(v.type)) return false;
	switch (v.type) {
		case "state":
			return isLiveState(v.state);
		case "agent_start":
			return true;
		case "agent_end":
			return strOrNull(v.leafId);
		case "turn_start":
		case "turn_end":
			return int(v.turnIndex);
		case "message_update":
			return (
				(v.phase === "start" || v.phase === "update" || v.phase === "end") &&
				isRecord(v.stream) &&
				str(v.stream.key) &&
				strOrNull(v.stream.parentId) &&
				isRecord(v.stream.message) &&
				v.stream.message.role === "assistant" &&
				Array.isArray(v.stream.message.content)
			);
		case "entry_appended":
			return str(v.entryId) && strOrNull(v.parentId) && str(v.entryType);
		case "tree":
			return strOrNull(v.oldLeafId) && strOrNull(v.newLeafId) && optStr(v.summaryEntryId);
		case "error":
			return str(v.message);
		case "bye":
			return str(v.reason);
		default:
			return false;
	}
}

/**
 * A line from the extension (Arbor side). Events of a type this Arbor does not know (a newer extension)
 * come back as null so the caller skips them; anything else malformed throws.
 */
export function readServerMessage(v: unknown): ServerMessage | null {
	if (!isRecord(v)) throw new LiveProtocolError("bad_request", "message is not a JSON object");
	switch (v.type) {
		case "welcome":
			if (
				!int(v.protocol) ||
				!(v.agent === "pi" || v.agent === "omp") ||
				!str(v.agentVersion) ||
				!str(v.extensionVersion) ||
				!Array.isArray(v.capabilities) ||
				!isLiveState(v.state)
			)
				throw new LiveProtocolError("bad_request", "malformed welcome");
			return {
				type: "welcome",
				protocol: v.protocol,
				agent: v.agent,
				agentVersion: v.agentVersion,
				extensionVersion: v.extensionVersion,
				capabilities: v.capabilities.filter((c): c is LiveCapability => LIVE_CAPABILITIES.includes(c as LiveCapability)),
				state: v.state,
			};
		case "refused":
			if (!str(v.message) || !(v.code === "bad_secret" || v.code === "protocol" || v.code === "bad_request"))
				throw new LiveProtocolError("bad_request", "malformed refusal");
			return { type: "refused", code: v.code, message: v.message };
		case "response":
			if (!int(v.id)) throw new LiveProtocolError("bad_request", "response without id");
			if (v.ok === true) return { type: "response", id: v.id, ok: true, result: v.result as LiveResults[LiveRequestName] };
			if (v.ok === false && isRecord(v.error) && str(v.error.code) && str(v.error.message))
				return { type: "response", id: v.id, ok: false, error: { code: v.error.code as LiveErrorCode, message: v.error.message } };
			throw new LiveProtocolError("bad_request", "malformed response");
		case "event":
			if (!isRecord(v.event) || !str(v.event.type)) throw new LiveProtocolError("bad_request", "malformed event");
			if (isLiveEvent(v.event)) return { type: "event", event: v.event };
			if (LIVE_EVENT_TYPES.includes(v.event.type as LiveEvent["type"])) throw new LiveProtocolError("bad_request", `malformed ${v.event.type} event`);
			return null;
		default:
			throw new LiveProtocolError("bad_request", `unknown message type ${JSON.stringify(String(v.type)).slice(0, 80)}`);
	}
}

/** A registration file's contents, or null when it is not one (a half-written or foreign file). */
export function readLiveRegistration(v: unknown): LiveRegistration | null {
	if (!isRecord(v)) return null;
	if (!int(v.protocol) || !int(v.pid) || !(v.agent === "pi" || v.agent === "omp") || !str(v.agentVersion) || !str(v.extensionVersion)) return null;
	if (!strOrNull(v.sessionFile) || !str(v.socket) || !str(v.secret) || typeof v.startedAt !== "number") return null;
	return {
		protocol: v.protocol,
		pid: v.pid,
		agent: v.agent,
		agentVersion: v.agentVersion,
		extensionVersion: v.extensionVersion,
		sessionFile: v.sessionFile as string | null,
		socket: v.socket,
		secret: v.secret,
		startedAt: v.startedAt,
	};
}
