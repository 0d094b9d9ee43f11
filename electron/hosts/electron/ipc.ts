// The request channel: one ipcMain handler in front of the router. Only our own page (arbor://app) may
// call it; a dropped file's path (sent by the preload) is registered as a user choice before opening.

import type { IpcMain, IpcMainInvokeEvent } from "electron";
import type { RouterResponse } from "../../api/contract";
import type { ArborRouter } from "../../api/router";
import { APP_ORIGIN, DROP_REQUEST, REQUEST_CHANNEL } from "./channels";

export interface IpcOptions {
	/** Called after a request succeeded (the host refreshes Open Recent after setSettings). */
	afterRequest?: (name: string) => void;
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
			if (typeof path !== "string" || path.length === 0 || path.length > 4096) return { ok: false, error: { code: "bad_request", message: "dropped file has no path" } };
			await router.allowPath(path);
			return router.handle("openSession", { path });
		}
		const response = await router.handle(typeof name === "string" ? name : "", params);
		if (response.ok && typeof name === "string") options.afterRequest?.(name);
		return response;
	});
}
