// The request channel: one ipcMain handler in front of the router. Only our own page (arbor://app) may
// call it; a dropped file's path (sent by the preload) is registered as a user choice before opening.

import type { IpcMain, IpcMainInvokeEvent } from "electron";
import type { RouterResponse } from "../../api/contract";
import type { ArborRouter } from "../../api/router";
import { APP_ORIGIN, DROP_REQUEST, REQUEST_CHANNEL } from "./channels";

export interface IpcOptions {
	/** Called after a request succeeded (the host refreshes Open Recent after setSettings, records recent documents). */
	afterRequest?: (name: string, response: RouterResponse) => void;
	/** Wraps the handling of a request (the host orders getInitialSessions with its own opens). */
	around?: (name: string, run: () => Promise<RouterResponse>) => Promise<RouterResponse>;
}

export function isTrustedSender(event: Pick<IpcMainInvokeEvent, "senderFrame">): boolean {
	const url = event.senderFrame?.url ?? "";
	return url === APP_ORIGIN || url.startsWith(`${APP_ORIGIN}/`);
}

export function registerIpc(ipcMain: IpcMain, router: ArborRouter, options: IpcOptions = {}): void {
	ipcMain.handle(REQUEST_CHANNEL, async (event, name: unknown, params: unknown): Promise<RouterResponse> => {
		if (!isTrustedSender(event)) return { ok: false, error: { code: "forbidden", message: "request from a frame that is not Arbor's page" } };
		if (name === DROP_REQUEST) {
			const path = (params as { path?: unknown } | null)?.path;
			if (typeof path !== "string" || path.length === 0 || path.length > 4096)
				return { ok: false, error: { code: "bad_request", message: "dropped file has no path" } };
			await router.allowPath(path);
			const opened = await router.handle("openSession", { path });
			if (opened.ok) options.afterRequest?.(DROP_REQUEST, opened);
			return opened;
		}
		const requestName = typeof name === "string" ? name : "";
		const run = (): Promise<RouterResponse> => router.handle(requestName, params);
		const response = await (options.around ? options.around(requestName, run) : run());
		if (response.ok && requestName) options.afterRequest?.(requestName, response);
		return response;
	});
}
