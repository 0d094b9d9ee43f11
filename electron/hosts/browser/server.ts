// electron/hosts/browser: `arbor serve`. The built renderer and the Arbor API (WebSocket, binary wire
// frames) on 127.0.0.1 only; the API behind a per-launch token (auth.ts). Same router and same renderer as
// the Electron app.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import type { RouterServices } from "../../api/contract";
import { createRouter, type ArborRouter } from "../../api/router";
import { ArborServices, type ArborServicesOptions } from "../../services";
import { defaultRendererDir, findAppRoot } from "../app-root";
import { checkRequest, newToken } from "./auth";
import { type ControlAnswer, type ControlRequest, controlDoor } from "./control";
import { send, serveStatic } from "./static";
import { serveConnection } from "./socket";
import { errorText } from "../../../shared/guards";

export interface BrowserHostOptions {
	/** 0 or undefined: any free port. */
	port?: number;
	/** Session files to open at launch (getInitialSessions). */
	files?: string[];
	/** Session directories: files in them may be opened, and the library lists only them. */
	dirs?: string[];
	/** Extension files or folders (`--extension PATH`), on top of ~/.arbor/extensions. */
	extensions?: string[];
	/** Options for the services this host creates (settings folder, pi folder, watcher...). */
	servicesOptions?: ArborServicesOptions;
	/** Serve these services instead of creating them (tests). They are disposed on close either way. */
	services?: RouterServices;
	/** Folder holding the built renderer (index.html); defaults to dist/renderer of this install. */
	rendererDir?: string;
	/** Largest request frame accepted (default 16 MiB). */
	maxPayload?: number;
	log?: (message: string) => void;
	/**
	 * The control door (control.ts) for later `arbor serve`s of this user: its secret, and how to show the page
	 * in the browser when one of them asks and no page is connected.
	 */
	control?: { secret: string; showPage(): void };
}

export interface BrowserHost {
	/** http://127.0.0.1:PORT/#token=…: the token rides in the fragment, which no HTTP request carries. */
	url: string;
	token: string;
	port: number;
	router: ArborRouter;
	/** Launch files that could not be opened (printed by `arbor serve`). */
	failed: { path: string; message: string }[];
	/** Folders the loaded extensions' code lives in (empty when the host serves given services). */
	extensionFolders(): string[];
	/** Pages connected now (WebSocket clients). */
	pages(): number;
	/** A live pi holds one of the sessions this host opened (at launch, through the control door, or a page's). */
	anyLive(): Promise<boolean>;
	/** Open more files after launch: allowed, opened, and sent to every connected page as new tabs. */
	openLater(files: string[]): Promise<Omit<ControlAnswer, "shown">>;
	close(): Promise<void>;
}

/** Only the path the WebSocket lives on; everything else is static files. */
export const API_PATH = "/api";

function refuse(socket: Duplex, status: 401 | 403 | 404, reason: string): void {
	const text = status === 401 ? "Unauthorized" : status === 403 ? "Forbidden" : "Not Found";
	socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`);
}

export async function startBrowserHost(options: BrowserHostOptions): Promise<BrowserHost> {
	const log = options.log ?? ((m: string) => console.error(m));
	const token = newToken();
	const dirs = options.dirs ?? [];
	const services =
		options.services ??
		new ArborServices({
			piExtensionDir: join(findAppRoot(), "pi-extension"),
			...options.servicesOptions,
			extensionPaths: [...(options.servicesOptions?.extensionPaths ?? []), ...(options.extensions ?? [])],
		});
	const rendererDir = options.rendererDir ?? defaultRendererDir();
	const router = createRouter({ services, libraryDirs: dirs.length > 0 ? dirs : undefined, log });
	for (const d of dirs) await router.allowDir(d);
	const { opened: atLaunch, failed } = await router.openInitial(options.files ?? []);
	// Sessions to ask about live pis (idle.ts): the ones opened here, and the ones pages opened.
	const sessionIds = new Set(atLaunch.map((s) => s.sessionId));
	router.onEvent((e) => {
		if (e.type === "session_loaded") sessionIds.add(e.session.sessionId);
		if (e.type === "session_closed") sessionIds.delete(e.sessionId);
	});
	const openLater = async (files: string[]): Promise<Omit<ControlAnswer, "shown">> => {
		const { opened, failed: bad } = await router.openInitial(files);
		for (const session of opened) {
			sessionIds.add(session.sessionId);
			router.emit({ type: "session_loaded", session });
		}
		return { opened: opened.map((o) => o.path ?? ""), failed: bad.map((f) => ({ path: f.path, message: f.error.message })), pages: wss.clients.size };
	};
	const control = options.control;
	const runControl = async (r: ControlRequest): Promise<ControlAnswer> => {
		const a = await openLater(r.files);
		const shown = r.show && a.pages === 0;
		if (shown) control?.showPage();
		return { ...a, shown };
	};

	let port = 0;
	const door = control ? controlDoor(control.secret, () => port, runControl) : null;
	const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload ?? 16 * 1024 * 1024 });
	wss.on("connection", (ws) => serveConnection(ws, router, log));

	const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
		// Static files are the app's own code (no session data): Host and Origin checks, no token. No cookie
		// is ever set, so the token cannot leak to other servers on 127.0.0.1.
		const verdict = checkRequest(req, port, null);
		if (!verdict.ok) {
			send(res, port, verdict.status, `403 Forbidden: ${verdict.reason}\n`);
			return;
		}
		if (door?.handles(new URL(req.url ?? "/", "http://127.0.0.1").pathname)) return door.handle(req, res);
		if (req.method !== "GET" && req.method !== "HEAD") {
			send(res, port, 405, "method not allowed\n", undefined, { Allow: "GET, HEAD" });
			return;
		}
		const pathname = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
		if (pathname === API_PATH) {
			send(res, port, 426, "upgrade required\n");
			return;
		}
		serveStatic(res, port, rendererDir, pathname, req.method === "HEAD", {}).catch((err: unknown) => {
			log(`arbor serve: ${errorText(err)}`);
			if (!res.headersSent) send(res, port, 500, "internal error\n");
		});
	};

	const server: Server = createServer(onRequest);
	server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
		socket.on("error", () => socket.destroy());
		const verdict = checkRequest(req, port, token);
		if (!verdict.ok) return refuse(socket, verdict.status, verdict.reason);
		if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== API_PATH) return refuse(socket, 404, "no such endpoint");
		wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
	});

	try {
		await new Promise<void>((ok, fail) => {
			server.once("error", fail);
			// Loopback only: the API reads and writes session files, it must never face the network.
			server.listen(options.port ?? 0, "127.0.0.1", () => {
				server.off("error", fail);
				ok();
			});
		});
	} catch (err) {
		wss.close();
		await router.dispose();
		throw err;
	}
	const address = server.address();
	port = typeof address === "object" && address ? address.port : 0;

	let closed: Promise<void> | null = null;
	return {
		url: `http://127.0.0.1:${port}/#token=${token}`,
		token,
		port,
		router,
		failed: failed.map((f) => ({ path: f.path, message: f.error.message })),
		extensionFolders: () => (services instanceof ArborServices ? services.extensionFolders() : []),
		pages: () => wss.clients.size,
		async anyLive() {
			for (const sessionId of sessionIds) {
				const r = await router.handle("getLiveState", { sessionId });
				if (r.ok && r.result !== null) return true;
			}
			return false;
		},
		openLater,
		close() {
			closed ??= (async () => {
				for (const client of wss.clients) client.terminate();
				wss.close();
				const stopped = new Promise<void>((ok) => server.close(() => ok()));
				server.closeAllConnections();
				await stopped;
				await router.dispose();
			})();
			return closed;
		},
	};
}
