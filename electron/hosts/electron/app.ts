// The Electron app, assembled: single-instance lock, hardened session and window, the arbor:// protocol
// serving the built renderer, IPC in front of the router, native menus, window state. main.ts only calls
// startElectronApp(); tests call it with the `electron` module replaced by a recording fake.

import { copyFileSync, existsSync, mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { app, BrowserWindow, dialog, ipcMain, Menu, protocol, screen, session, shell } from "electron";
import type { ArborEvent } from "../../../shared/api";
import { createRouter, type ArborRouter } from "../../api/router";
import { ArborServices, type ArborServicesOptions } from "../../services";
import { contentType, resolveRendererFile } from "../renderer-files";
import { sessionFilesFromArgs, userArgs } from "./argv";
import { APP_SCHEME, APP_URL, EVENT_CHANNEL } from "./channels";
import { registerIpc } from "./ipc";
import { buildMenuTemplate } from "./menu";
import { ELECTRON_CSP, hardenSession, hardenWebContents } from "./security";
import { fitToDisplays, loadWindowState, saveWindowState, type WindowState } from "./window-state";
import { describeError, installCrashGuard } from "../crash-guard";

export interface ElectronAppOptions {
	/** Defaults to process.argv. */
	argv?: string[];
	cwd?: string;
	servicesOptions?: ArborServicesOptions;
	/** Defaults to ~/.arbor/window-state.json. */
	windowStateFile?: string;
}

export interface ElectronApp {
	router: ArborRouter;
	window(): BrowserWindow | null;
	/** Open a file the user chose outside the page (command line, second launch, Open Recent). */
	openFromHost(path: string): Promise<void>;
}

/** The bundled sample (`npm start` without a file), copied so the user can try writes on it. */
function sampleSession(appRoot: string): string | null {
	const src = join(appRoot, "build", "sample-session.jsonl");
	if (!existsSync(src)) return null;
	const dest = join(mkdtempSync(join(tmpdir(), "arbor-sample-")), "sample-session.jsonl");
	copyFileSync(src, dest);
	return dest;
}

// Must run before the app is ready: arbor:// is a secure, standard origin, so 'self' in the CSP means
// exactly the app's own files.
function registerScheme(): void {
	protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

function serveRenderer(rendererDir: string): void {
	// Read with fs, not net.fetch(file://): the session's onBeforeRequest cancels every file:// request.
	protocol.handle(APP_SCHEME, async (request) => {
		const url = new URL(request.url);
		const file = url.host === "app" ? resolveRendererFile(rendererDir, url.pathname) : null;
		let body: Buffer;
		try {
			if (!file) throw new Error("outside the renderer");
			body = await readFile(file);
		} catch {
			return new Response("not found", { status: 404 });
		}
		return new Response(new Uint8Array(body), {
			status: 200,
			headers: { "Content-Type": contentType(file), "Content-Security-Policy": ELECTRON_CSP, "X-Content-Type-Options": "nosniff" },
		});
	});
}

export async function startElectronApp(options: ElectronAppOptions = {}): Promise<ElectronApp | null> {
	const argv = options.argv ?? process.argv;
	const cwd = options.cwd ?? process.cwd();
	const launchFiles = sessionFilesFromArgs(userArgs(argv, app.isPackaged), cwd);

	registerScheme();
	// Every renderer sandboxed, including any a future feature might create without thinking of it.
	app.enableSandbox();
	// The second launch hands its files to the first instance and quits.
	if (!app.requestSingleInstanceLock({ files: launchFiles })) {
		app.quit();
		return null;
	}
	app.on("web-contents-created", (_event, contents) => hardenWebContents(contents));

	// An extension's detached callback that throws must not quit the app (see crash-guard.ts).
	installCrashGuard((kind, err) => console.error(`Arbor: ${kind} (probably from an extension), still running: ${describeError(err)}`));
	await app.whenReady();
	const appRoot = app.getAppPath();
	const stateFile = options.windowStateFile ?? join(homedir(), ".arbor", "window-state.json");
	const services = new ArborServices(options.servicesOptions);
	let win: BrowserWindow | null = null;

	const router = createRouter({
		services,
		host: {
			async showOpenDialog() {
				const opts = { title: "Open a pi session", properties: ["openFile" as const], filters: [{ name: "pi / omp sessions", extensions: ["jsonl"] }, { name: "All files", extensions: ["*"] }] };
				const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
				return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0];
			},
			async revealInFolder(path) {
				shell.showItemInFolder(path);
			},
		},
	});

	const send = (event: ArborEvent): void => {
		if (win && !win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, event);
	};
	router.onEvent(send);

	const openFromHost = async (path: string): Promise<void> => {
		await router.allowPath(path);
		const r = await router.handle("openSession", { path });
		if (r.ok) send({ type: "session_loaded", session: r.result as never });
		else send({ type: "error", sessionId: null, error: r.error });
	};

	const refreshMenu = async (): Promise<void> => {
		const settings = await router.handle("getSettings", {});
		const recent = settings.ok ? (settings.result as { recentFiles: string[] }).recentFiles : [];
		Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate({
			command: (command) => router.emit({ type: "menu_command", command }),
			openRecent: (path) => void openFromHost(path),
			clearRecent: () => void router.handle("setSettings", { settings: { recentFiles: [] } }).then(refreshMenu),
			quit: () => app.quit(),
		}, recent)));
	};

	hardenSession(session.defaultSession);
	serveRenderer(join(appRoot, "dist", "renderer"));
	registerIpc(ipcMain, router, { afterRequest: (name) => void (name === "setSettings" ? refreshMenu() : undefined) });

	const initial = launchFiles.length > 0 ? launchFiles : [sampleSession(appRoot)].filter((p): p is string => p !== null);
	const { failed } = await router.openInitial(initial);

	app.on("second-instance", (_event, secondArgv, secondCwd, data) => {
		const files = Array.isArray((data as { files?: unknown } | null)?.files)
			? ((data as { files: unknown[] }).files.filter((f): f is string => typeof f === "string"))
			: sessionFilesFromArgs(userArgs(secondArgv, app.isPackaged), secondCwd);
		for (const f of files) void openFromHost(f);
		if (win) {
			if (win.isMinimized()) win.restore();
			win.focus();
		}
	});

	const state = fitToDisplays(loadWindowState(stateFile), screen.getAllDisplays().map((d) => d.workArea));
	win = new BrowserWindow({
		...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
		width: state.width,
		height: state.height,
		minWidth: 640,
		minHeight: 400,
		show: false,
		title: "Arbor",
		webPreferences: {
			// PRELOAD_JS_CHECK asks to review the preload: it is the bridge itself, exposing only window.arbor
			// (shared/bridge.ts), never ipcRenderer; request names are allow-listed there and the sender is
			// checked in ipc.ts; contextIsolation and sandbox stay on.
			preload: join(appRoot, "dist", "preload.cjs"), // eng-disable PRELOAD_JS_CHECK -- reviewed, see the comment above
			contextIsolation: true,
			sandbox: true,
			nodeIntegration: false,
			nodeIntegrationInWorker: false,
			nodeIntegrationInSubFrames: false,
			webSecurity: true,
			allowRunningInsecureContent: false,
			experimentalFeatures: false,
			webviewTag: false,
			navigateOnDragDrop: false,
			safeDialogs: true,
			spellcheck: false,
			// Middle-click would open links in a new window; window.open is denied too (security.ts).
			disableBlinkFeatures: "Auxclick",
		},
	});
	if (state.maximized) win.maximize();
	const current = win;
	current.once("ready-to-show", () => current.show());
	current.on("close", () => {
		const b = current.getNormalBounds();
		const next: WindowState = { x: b.x, y: b.y, width: b.width, height: b.height, maximized: current.isMaximized() };
		try {
			saveWindowState(stateFile, next);
		} catch {
			// losing the window position is not worth an error dialog on quit
		}
	});
	current.on("closed", () => {
		win = null;
	});

	await refreshMenu();
	app.on("window-all-closed", () => app.quit());
	app.on("will-quit", () => void router.dispose());
	await current.loadURL(APP_URL);
	// The page cannot have subscribed to events before it loaded: tell the user about bad launch files here.
	for (const f of failed) {
		void dialog.showMessageBox(current, { type: "error", message: `Arbor could not open ${f.path}`, detail: f.error.message });
	}
	return { router, window: () => win, openFromHost };
}
