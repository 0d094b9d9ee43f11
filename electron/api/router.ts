// electron/api: the one router between any transport (Electron IPC, the browser host's WebSocket) and the
// services. It validates every request, enforces the path policy, turns every failure into a typed
// ArborErrorData, and fans service events out to subscribers. Transport-agnostic: no `electron`, no sockets.

import { resolve, sep } from "node:path";
import type { ArborErrorCode, ArborErrorData, ArborEvent, RequestName, RequestParams, SessionListItem, SessionSummary } from "../../shared/api";
import type { CompareSideRef } from "../../shared/compare";
import { REQUEST_NAMES } from "../../shared/api";
import { errorDataOf } from "../../shared/errors";
import type { HostHandlers, RouterResponse, RouterServices, ServiceRequestName } from "./contract";
import { PathPolicy } from "./path-policy";
import { describeZodError, requestSchemas } from "./schemas";

export interface RouterOptions {
	services: RouterServices;
	host?: HostHandlers;
	/** When set (`arbor serve DIR`), the session library only ever lists these directories. */
	libraryDirs?: string[];
	/** Where unexpected errors are logged with their stack (never sent to the client). */
	log?: (message: string) => void;
}

export interface ArborRouter {
	handle(name: string, params: unknown): Promise<RouterResponse>;
	/** Subscribe to events (service events plus host events such as menu_command). */
	onEvent(listener: (event: ArborEvent) => void): () => void;
	/** Deliver a host event (menu_command...) to every subscriber. */
	emit(event: ArborEvent): void;
	/** The user chose this file (command line, dialog, drop): it may be opened. */
	allowPath(path: string): Promise<void>;
	/** Files inside this directory may be opened (`arbor serve DIR`). */
	allowDir(path: string): Promise<void>;
	/** Allow and open files at launch; `getInitialSessions` answers with them. Failures are returned, not thrown. */
	openInitial(paths: string[]): Promise<{ opened: SessionSummary[]; failed: { path: string; error: ArborErrorData }[] }>;
	/** Path of an open session (for the host: reveal in folder, window title). */
	pathOf(sessionId: string): string | null;
	dispose(): Promise<void>;
}

class RouteError extends Error {
	constructor(
		readonly code: ArborErrorCode,
		message: string,
	) {
		super(message);
	}
}

export function createRouter(options: RouterOptions): ArborRouter {
	const { services, host = {} } = options;
	const log = options.log ?? ((m: string) => console.error(m));
	const policy = new PathPolicy();
	const listeners = new Set<(event: ArborEvent) => void>();
	const sessionPaths = new Map<string, string | null>();
	let initialSessions: SessionSummary[] | null = null;
	const libraryDirs = options.libraryDirs ?? null;

	// Every file a session was opened from in this process: the only new paths Open Recent may list.
	const openedPaths = new Set<string>();
	const remember = (s: SessionSummary | null | undefined): void => {
		if (s && typeof s.sessionId === "string") sessionPaths.set(s.sessionId, s.path);
		if (s && typeof s.path === "string") openedPaths.add(s.path);
	};

	const emit = (event: ArborEvent): void => {
		for (const l of [...listeners]) {
			try {
				l(event);
			} catch (err) {
				log(`arbor: event listener failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
			}
		}
	};

	const unsubscribeServices = services.onEvent((event) => {
		// Files Arbor creates become openable, and the router learns every session's path, before the
		// renderer hears about them (it may open the new file in response). allowFile records the literal
		// path synchronously, so the event keeps its place in the stream.
		if (event.type === "session_loaded" || event.type === "session_reloaded") remember(event.session);
		if (event.type === "session_closed") {
			sessionPaths.delete(event.sessionId);
			if (initialSessions) initialSessions = initialSessions.filter((s) => s.sessionId !== event.sessionId);
		}
		if (event.type === "session_branch" && event.newPath) void policy.allowFile(event.newPath);
		emit(event);
	});

	const openChecked = async (path: string): Promise<SessionSummary> => {
		let allowed = await policy.check(path);
		// Open Recent lists files the user opened in an earlier run (setSettings only accepts files this process
		// opened), so reopening one is the user's choice too, while the path still leads to that very file.
		if (allowed === null && services.checkRecentFile) {
			const recent = await services.checkRecentFile(path);
			if (recent.kind === "changed")
				throw new RouteError(
					"forbidden",
					`${path} is in Open Recent but is no longer the file you opened (${recent.reason}): nothing was opened; choose it again with File ▸ Open or the command line if you trust it`,
				);
			if (recent.kind === "same") {
				await policy.allowFile(recent.path);
				allowed = await policy.check(recent.path);
			}
		}
		if (allowed === null)
			throw new RouteError("forbidden", `not allowed to open ${path}: open it with File ▸ Open, the command line or the session library first`);
		const summary = await services.openSession({ path: allowed });
		remember(summary);
		return summary;
	};

	const listSessions = async (dirs: string[] | undefined): Promise<SessionListItem[]> => {
		let chosen = dirs;
		if (chosen && chosen.length > 0) {
			for (const d of chosen) {
				if (!(await policy.isDirAllowed(d))) throw new RouteError("forbidden", `not allowed to list ${d}`);
			}
		} else if (libraryDirs) {
			chosen = libraryDirs;
		}
		const items = await services.listSessions(chosen ? { dirs: chosen } : {});
		// Listed files are the library's offer to the user: opening one of them is a user choice.
		const roots = (chosen ?? []).map((d) => resolve(d));
		for (const item of items) {
			if (typeof item.path !== "string") continue;
			const p = resolve(item.path);
			policy.allowListedFile(
				p,
				roots.find((r) => p.startsWith(r.endsWith(sep) ? r : r + sep)),
			);
		}
		return items;
	};

	// Requests with host or policy logic; everything else goes straight to the service of the same name.
	const special: Partial<Record<RequestName, (params: never) => Promise<unknown>>> = {
		openSession: (p: { path: string }) => openChecked(p.path),
		listSessions: (p: { dirs?: string[] }) => listSessions(p.dirs),
		getFamily: async (p: { path: string }) => {
			const allowed = await policy.check(p.path);
			if (allowed === null) throw new RouteError("forbidden", `not allowed to read ${p.path}: open it first`);
			// The family reads only what the policy already allows (plus, in the app, the library's own folders,
			// which listSessions offers anyway); a header naming another file never makes it readable or openable.
			const scope = { mayRead: async (f: string) => (await policy.check(f)) !== null, library: libraryDirs === null };
			const family = await services.getFamily({ path: allowed, scope });
			// Members from the library's folders are offered as the library offers them; `outside` ones never.
			for (const m of family.members) if (!m.outside) policy.allowListedFile(m.path);
			return family;
		},
		searchAllSessions: async (p: { query: string; limit?: number; dirs?: string[] }) => {
			let dirs = p.dirs;
			if (dirs && dirs.length > 0) {
				for (const d of dirs) if (!(await policy.isDirAllowed(d))) throw new RouteError("forbidden", `not allowed to search ${d}`);
			} else if (libraryDirs) dirs = libraryDirs;
			const result = await services.searchAllSessions({ ...p, dirs });
			for (const s of result.sessions) policy.allowListedFile(s.path);
			return result;
		},
		getInitialSessions: async () => {
			if (initialSessions !== null) return initialSessions;
			const list = await services.getInitialSessions({});
			for (const s of list) {
				remember(s);
				if (s.path) await policy.allowFile(s.path);
			}
			return list;
		},
		branchToFile: async (p: { sessionId: string; entryId: string }) => {
			const result = await services.branchToFile(p);
			if (result.path) await policy.allowFile(result.path);
			remember(result.session);
			return result;
		},
		startTries: async (p: never) => {
			const result = await services.startTries(p);
			// The forks are the user's session files too: they may be opened (Compare, the graph).
			for (const t of result.tries) await policy.allowFile(t.sessionFile);
			return result;
		},
		compareBranches: async (p: RequestParams<"compareBranches">) => {
			if ("sessionId" in p) return services.compareBranches(p);
			// Across files: each side's file must be one the user may open (opened, listed, a try of theirs, its family).
			const side = async (ref: CompareSideRef): Promise<CompareSideRef> => {
				const allowed = await policy.check(ref.path);
				if (allowed === null) throw new RouteError("forbidden", `not allowed to read ${ref.path}: open it first`);
				return { ...ref, path: allowed };
			};
			return services.compareBranches({ a: await side(p.a), b: await side(p.b) });
		},
		keepTry: async (p: never) => {
			const result = await services.keepTry(p);
			remember(result.session);
			return result;
		},
		savePrunedCopy: async (p: { sessionId: string; dropIds: string[] }) => {
			const result = await services.savePrunedCopy(p);
			// The user made this file: opening it from the notice is their choice.
			await policy.allowFile(result.path);
			return result;
		},
		setSettings: async (p: { settings: { recentFiles?: string[] } & Record<string, unknown> }) => {
			// Open Recent opens these without asking again, so only paths a session was really opened from may
			// be listed. Being openable is not enough: the policy admits a file that does not exist yet inside
			// an allowed folder, and a symlink created there later could point anywhere.
			if (p.settings.recentFiles) {
				const current = new Set((await services.getSettings({})).recentFiles);
				for (const f of p.settings.recentFiles) {
					if (!current.has(f) && !openedPaths.has(f)) throw new RouteError("forbidden", `recentFiles: ${f} was not opened by the user`);
				}
			}
			return services.setSettings(p as never);
		},
		showOpenDialog: async () => {
			if (!host.showOpenDialog) throw new RouteError("unsupported", "this host has no native open dialog: use the session library");
			const chosen = await host.showOpenDialog();
			if (chosen === null) return null;
			await policy.allowFile(chosen);
			return openChecked(chosen);
		},
		revealInFolder: async (p: { sessionId: string }) => {
			if (!host.revealInFolder) throw new RouteError("unsupported", "this host cannot reveal files in the file manager");
			const path = sessionPaths.get(p.sessionId);
			if (path === undefined) throw new RouteError("not_found", `no open session ${p.sessionId}`);
			if (path === null) throw new RouteError("unsupported", "this session has no file");
			await host.revealInFolder(path);
		},
	};

	const handle = async (name: string, params: unknown): Promise<RouterResponse> => {
		if (typeof name !== "string" || !(REQUEST_NAMES as readonly string[]).includes(name)) {
			return { ok: false, error: { code: "bad_request", message: `unknown request ${JSON.stringify(String(name)).slice(0, 100)}` } };
		}
		const requestName = name as RequestName;
		const parsed = requestSchemas[requestName].safeParse(params === undefined ? {} : params);
		if (!parsed.success) return { ok: false, error: { code: "bad_request", message: describeZodError(requestName, parsed.error) } };
		try {
			const own = special[requestName];
			const result = own
				? await own(parsed.data as never)
				: await (services[requestName as ServiceRequestName] as (p: unknown) => Promise<unknown>)(parsed.data);
			if (requestName === "closeSession") sessionPaths.delete((parsed.data as { sessionId: string }).sessionId);
			return { ok: true, result };
		} catch (err) {
			if (err instanceof RouteError) return { ok: false, error: { code: err.code, message: err.message } };
			// Core and service errors keep their meaning (conflict, bad file, not found…) with file and line.
			const known = errorDataOf(err);
			if (known) return { ok: false, error: known };
			log(`arbor: ${requestName} failed unexpectedly: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
			return { ok: false, error: { code: "internal", message: `${requestName} failed because of an internal error (details are in the host's log)` } };
		}
	};

	return {
		handle,
		emit,
		onEvent(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		allowPath: (path) => policy.allowFile(path),
		allowDir: (path) => policy.allowDir(path),
		async openInitial(paths) {
			const opened: SessionSummary[] = [];
			const failed: { path: string; error: ArborErrorData }[] = [];
			for (const p of paths) {
				await policy.allowFile(p);
				const r = await handle("openSession", { path: p });
				if (r.ok) opened.push(r.result as SessionSummary);
				else failed.push({ path: p, error: r.error });
			}
			initialSessions = [...(initialSessions ?? []), ...opened];
			return { opened, failed };
		},
		pathOf: (sessionId) => sessionPaths.get(sessionId) ?? null,
		async dispose() {
			unsubscribeServices();
			listeners.clear();
			await services.dispose();
		},
	};
}
