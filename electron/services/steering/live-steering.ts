// Steering carried out by the live pi that holds the file (docs/live.md "What goes through pi"): the same
// answers as the file flows give, with `via: "pi"` and its pid. What the pi cannot do by its announced
// capabilities is refused here with `unsupported` before anything is sent, except label and fork, which
// Arbor then does on the file (omp labels no entry from an extension). pi's answers are checked before
// Arbor acts on them (a fork must be a fork of this file). Arbor's own view follows pi: the entries pi
// appended through a catch-up, its leaf moved where pi's is.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ArborErrorCode, NavigateResult, RequestResult } from "../../../shared/api";
import type { LiveCapability } from "../../../shared/live";
import { ArborServiceError } from "../errors";
import { readHeaderFacts } from "../family";
import { type LiveConnection, LiveError } from "../live/connection";
import { sameFile } from "../live/registry";
import type { OpenSession } from "../open-session";
import type { FileSteering } from "./file-steering";
import { forkFolders, notAForkBecause } from "./fork-check";
import type { ForkAnswer, ForkRequest, Steering, SteeringDeps, SwitchAnswer, Via } from "./index";

const CODES: Partial<Record<LiveError["code"], ArborErrorCode>> = {
	busy: "busy",
	not_found: "not_found",
	no_model: "no_model",
	unsupported: "unsupported",
	bad_request: "bad_request",
	unknown_request: "unsupported",
	no_session: "conflict",
	disconnected: "conflict",
	failed: "extension_error",
	// pi did not answer in time (stopped, stuck), or answered what this Arbor cannot read (another extension
	// version): the message says which; the CLI exits 5 as for any refusal.
	timeout: "extension_error",
	bad_answer: "extension_error",
};

/** pi's refusal or failure as the Arbor error the router passes on (busy stays busy: the UI offers wait / stop). */
export function liveFailure(err: unknown, pid: number): ArborServiceError {
	if (err instanceof ArborServiceError) return err;
	if (err instanceof LiveError) {
		const code = CODES[err.code] ?? "extension_error";
		const message = err.code === "disconnected" ? `pi ${pid} went away before it answered (${err.message}); the file shows what was done` : err.message;
		return new ArborServiceError(code, message);
	}
	return new ArborServiceError("internal", err instanceof Error ? err.message : String(err));
}

const WHAT: Record<LiveCapability, string> = {
	navigate: "move in the session tree",
	summarize: "summarize a branch",
	fork: "fork",
	label: "label an entry",
	send: "take a message",
	abort: "stop a turn",
	stream: "stream its messages",
	switchSession: "switch to another session file",
};

export class LiveSteering implements Steering {
	readonly via = "pi" as const;
	readonly pid: number;
	readonly #d: SteeringDeps;
	readonly #s: OpenSession;
	readonly #conn: LiveConnection;
	readonly #file: FileSteering;

	constructor(deps: SteeringDeps, s: OpenSession, conn: LiveConnection, file: FileSteering) {
		this.#d = deps;
		this.#s = s;
		this.#conn = conn;
		this.#file = file;
		this.pid = conn.registration.pid;
	}

	#can(c: LiveCapability): boolean {
		return this.#conn.welcome.capabilities.includes(c);
	}

	/** Refuse before sending what this pi said it cannot do. */
	#need(c: LiveCapability): void {
		if (this.#can(c)) return;
		const w = this.#conn.welcome;
		throw new ArborServiceError(
			"unsupported",
			`${w.agent} ${w.agentVersion} (pid ${this.pid}, Arbor extension ${w.extensionVersion}) cannot ${WHAT[c]} from its extension: nothing was sent. Update Arbor's extension in that pi; on the command line, --no-live acts on the file instead`,
		);
	}

	async #ask<K extends Parameters<LiveConnection["request"]>[0]["name"]>(body: Extract<Parameters<LiveConnection["request"]>[0], { name: K }>) {
		try {
			return await this.#conn.request<K>(body);
		} catch (err) {
			throw liveFailure(err, this.pid);
		}
	}

	/** Arbor's copy of the file catches up with what pi wrote, and its leaf goes where pi's is. */
	#follow(leafId: string | null): void {
		this.#d.sessions.write(this.#s, (m) => {
			if (leafId === null) m.resetLeaf();
			else if (m.getEntry(leafId) !== undefined) m.branch(leafId);
		});
	}

	async navigate(p: Parameters<Steering["navigate"]>[0]): Promise<NavigateResult & Via> {
		this.#need("navigate");
		if (p.summarize) this.#need("summarize");
		return this.#d.sessions.exclusive(this.#s, async () => {
			const r = await this.#ask({
				name: "navigate",
				targetId: p.targetId,
				summarize: p.summarize,
				customInstructions: p.customInstructions,
				replaceInstructions: p.replaceInstructions,
				label: p.label,
				waitForIdle: p.waitForIdle,
			});
			if (!r.cancelled) this.#follow(r.newLeafId);
			return {
				cancelled: r.cancelled,
				...(r.cancelled ? { reason: "cancelled in pi (an extension of pi, or the summary was stopped)" } : {}),
				newLeafId: r.newLeafId,
				oldLeafId: r.oldLeafId,
				...(r.editorText !== undefined ? { editorText: r.editorText } : {}),
				...(r.summaryEntryId ? { summaryEntryId: r.summaryEntryId } : {}),
				...(r.oldLeafId === r.newLeafId && !r.summaryEntryId ? { noop: true } : {}),
				via: "pi" as const,
				pid: this.pid,
			};
		});
	}

	/** pi forks and moves to the new file, as its own /fork does; the caller opens that file (now live). */
	async fork(p: ForkRequest): Promise<ForkAnswer> {
		// A pi that cannot fork from its extension: Arbor writes the branch file, the pi stays where it is.
		if (!this.#can("fork")) return this.#file.fork(p);
		const s = this.#s;
		return this.#d.sessions.exclusive(s, async () => {
			const r = await this.#ask({ name: "fork", entryId: p.entryId, ...(p.position ? { position: p.position } : {}), waitForIdle: p.waitForIdle });
			const editorText = r.editorText ?? "";
			if (r.cancelled || !r.sessionFile) return { cancelled: true, path: null, editorText, session: null, via: "pi", pid: this.pid };
			const original = s.manager.getSessionFile();
			if (!original) throw new ArborServiceError("conflict", "this session has no file: pi cannot have forked it");
			const folders = forkFolders(original, [s.manager.getCwd(), this.#conn.welcome.state.cwd], this.#d.piAgentDir, this.#d.env);
			const why = notAForkBecause(r.sessionFile, { path: original, id: s.manager.getSessionId() || null }, folders);
			if (why)
				throw new ArborServiceError(
					"extension_error",
					`pi ${this.pid} answered that it forked to ${r.sessionFile}, but ${why}: Arbor opens only a fork of ${original} in pi's session folders, so it opened nothing`,
				);
			return { cancelled: false, path: r.sessionFile, editorText, session: null, via: "pi", pid: this.pid };
		});
	}

	async label(entryId: string, label: string | null): Promise<Via> {
		// omp cannot label an entry from an extension: Arbor labels the file then, as without a live agent.
		if (!this.#can("label")) return this.#file.label(entryId, label);
		this.#d.sessions.entry(this.#s, entryId);
		await this.#ask({ name: "label", entryId, label: label?.trim() ? label.trim() : null });
		this.#d.sessions.catchUp(this.#s);
		return { via: "pi", pid: this.pid };
	}

	async send(p: Parameters<Steering["send"]>[0]): Promise<RequestResult<"send">> {
		this.#need("send");
		const r = await this.#ask({ name: "send", text: p.text, deliverAs: p.deliverAs, wait: p.wait ?? "start" });
		if (r.outcome === "ended") this.#follow(r.leafId);
		return {
			via: "pi",
			pid: this.pid,
			outcome: r.outcome,
			leafId: r.leafId,
			...(r.stopReason !== undefined ? { stopReason: r.stopReason } : {}),
			...(r.errorMessage !== undefined ? { errorMessage: r.errorMessage } : {}),
		};
	}

	async abort(): Promise<RequestResult<"abort">> {
		this.#need("abort");
		const r = await this.#ask({ name: "abort" });
		return { via: "pi", pid: this.pid, wasStreaming: r.wasStreaming };
	}

	async switchSession(sessionFile: string, opts: { waitForIdle?: boolean } = {}): Promise<SwitchAnswer> {
		this.#need("switchSession");
		const target = resolve(sessionFile);
		if (!existsSync(target) || !readHeaderFacts(target))
			throw new ArborServiceError("bad_request", `${target} is not a session file: pi was not asked to switch`);
		const r = await this.#ask({ name: "switchSession", sessionFile: target, ...(opts.waitForIdle ? { waitForIdle: true } : {}) });
		if (r.cancelled) return { cancelled: true, sessionFile: null, via: "pi", pid: this.pid };
		if (!r.sessionFile || !sameFile(r.sessionFile, target))
			throw new ArborServiceError("extension_error", `pi ${this.pid} answered that it switched to ${r.sessionFile ?? "no file"}, not ${target}`);
		return { cancelled: false, sessionFile: r.sessionFile, via: "pi", pid: this.pid };
	}
}
