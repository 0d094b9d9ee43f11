// A recording stand-in for ArborServices: every request method records its params and answers from
// `answers` (or undefined). Lets router tests check validation and policy without the session core.
import type { ArborEvent, SessionSummary } from "../../../shared/api";
import type { RouterServices } from "../contract";

export interface FakeServices {
	services: RouterServices;
	calls: { name: string; params: unknown }[];
	emit(event: ArborEvent): void;
	disposed: boolean;
}

export function fakeServices(answers: Record<string, (params: never) => unknown> = {}): FakeServices {
	const calls: { name: string; params: unknown }[] = [];
	const listeners = new Set<(e: ArborEvent) => void>();
	const state: FakeServices = {
		calls,
		disposed: false,
		emit: (e) => {
			for (const l of listeners) l(e);
		},
		services: new Proxy({} as RouterServices, {
			get(_t, prop) {
				if (prop === "onEvent") return (l: (e: ArborEvent) => void) => (listeners.add(l), () => listeners.delete(l));
				if (prop === "dispose") return () => void (state.disposed = true);
				if (typeof prop !== "string") return undefined;
				// Open Recent's check, from the fake's settings (the real check is in recent-swap.test.ts).
				if (prop === "checkRecentFile" && !answers.checkRecentFile)
					return async (path: string) => {
						const settings = (answers.getSettings?.(undefined as never) ?? { recentFiles: [] }) as { recentFiles: string[] };
						return settings.recentFiles.includes(path) ? { kind: "same", path } : { kind: "not_recent" };
					};
				return async (params: unknown) => {
					calls.push({ name: prop, params });
					const answer = answers[prop];
					return answer ? answer(params as never) : undefined;
				};
			},
		}),
	};
	return state;
}

export function summary(sessionId: string, path: string | null): SessionSummary {
	return {
		sessionId,
		path,
		header: { type: "session", id: sessionId },
		fileVersion: 3,
		needsUpgrade: false,
		title: null,
		warnings: [],
		warningCount: 0,
		fileSize: 0,
	};
}
