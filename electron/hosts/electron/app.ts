// The Electron app, assembled: single-instance lock, hardened session and window, the arbor:// protocol
// serving the built renderer, IPC in front of the router, native menus, window state. main.ts only calls
// startElectronApp(); tests call it with the `electron` module replaced by a fake (and run the built
// dist/main.cjs against a stricter one, electron-double.cjs).
//
// Start-up order (Electron's rules, checked by the test double):
// 1. Before `ready`, synchronously: name and user data folder, privileged scheme, sandbox, the
//    single-instance lock, and EVERY app event. macOS sends `open-file` before `ready` on a cold launch
//    through a file, and a second launch can arrive while the first is still starting: both are queued.
// 2. At `ready`: the session is hardened, the window is created and shown at once (the page shows its own
//    loading state) while the launch files open.
// 3. The page asks for getInitialSessions after it subscribed to events; that answer waits for the launch
//    files. Files the host opens before that answer join it; after it, they are sent as session_loaded.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeTheme, protocol, screen, session, shell } from "electron";
import type { ArborEvent, SessionSummary } from "../../../shared/api";
import type { RouterResponse } from "../../api/contract";
import { createRouter, type ArborRouter } from "../../api/router";
import { ArborServices, type ArborServicesOptions } from "../../services";
import { appendPrivateLog, makePrivateDir, PRIVATE_FILE_MODE, writePrivateFile } from "../../services/arbor-files";
import { appExecutable, recordAppInstall } from "../../services/app-install";
import { describeError, installCrashGuard } from "../crash-guard";
import { contentType, resolveRendererFile } from "../renderer-files";
import { sessionFilesFromArgs, userArgs } from "./argv";
import { APP_SCHEME, APP_URL, EVENT_CHANNEL } from "./channels";
import { registerIpc } from "./ipc";
import { appLayout, type AppLayout } from "./layout";
import { buildMenuTemplate, type Appearance } from "./menu";
import { confirmAndOpenExternal, ELECTRON_CSP, hardenSession, hardenWebContents } from "./security";
import { startAutoUpdate } from "./updates";
import { fitToDisplays, loadWindowState, saveWindowState, type WindowState } from "./window-state";
import { errorText } from "../../../shared/guards";

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
	layout: AppLayout;
	window(): BrowserWindow | null;
	/** Open a file the user chose outside the page (command line, second launch, Finder, Open Recent). */
	openFromHost(path: string): Promise<void>;
}

/** The window's background before the page paints (app.css --bg), so there is no white flash in dark mode. */
const BACKGROUND = { light: "#ffffff", dark: "#16181c" };

/**
 * The bundled sample (`npm start` without a file), copied once into the user data folder so the user can
 * try writes on it: the same copy on every launch, never a new temp folder.
 */
function sampleSession(layout: AppLayout, userData: string): string | null {
	const dest = join(userData, "sample", "sample-session.jsonl");
	if (existsSync(dest)) return dest;
	let body: Buffer;
	try {
		body = readFileSync(layout.sample); // works inside app.asar too
	} catch {
		return null;
	}
	makePrivateDir(join(userData, "sample"));
	writeFileSync(dest, body, { flag: "wx", mode: PRIVATE_FILE_MODE });
	return dest;
}

function readAppearance(file: string): Appearance {
	try {
		const v = (JSON.parse(readFileSync(file, "utf8")) as { theme?: unknown }).theme;
		return v === "light" || v === "dark" ? v : "system";
	} catch {
		return "system";
	}
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

	// --- 1. Before ready (synchronous up to whenReady) ---
	const layout = appLayout(app.getAppPath(), app.isPackaged);
	app.setName(layout.name);
	// Its own folder (and with it its own single-instance lock), for dev runs and packaged ones alike.
	app.setPath("userData", join(app.getPath("appData"), layout.dataFolderName));
	const userData = app.getPath("userData");
	const logFile = join(userData, "logs", "main.log");
	const logError = (what: string, err?: unknown): void => {
		const line = `${new Date().toISOString()} ${what}${err === undefined ? "" : `: ${describeError(err)}`}\n`;
		console.error(`Arbor: ${line.trimEnd()}`);
		try {
			appendPrivateLog(logFile, line);
		} catch {
			// the console line above still says it
		}
	};
	let errorShown = false;
	const reportError = (what: string, err: unknown): void => {
		logError(what, err);
		if (errorShown || !app.isReady()) return;
		errorShown = true; // one dialog per launch; the log has every error
		void dialog.showMessageBox({
			type: "warning",
			message: "Arbor hit an unexpected error and keeps running.",
			detail: `${errorText(err)}\n\nDetails are in ${logFile}`,
		});
	};

	const launchFiles = sessionFilesFromArgs(userArgs(argv, app.isPackaged), cwd);
	registerScheme();
	// Every renderer sandboxed, including any a future feature might create without thinking of it.
	app.enableSandbox();
	// The second launch hands its files to the first instance and quits.
	if (!app.requestSingleInstanceLock({ files: launchFiles })) {
		app.quit();
		return null;
	}

	// Files that arrive before the window and router exist; drained once they do.
	const early: string[] = [];
	let openFromHost: ((path: string) => Promise<void>) | null = null;
	let win: BrowserWindow | null = null;
	const hostOpen = (path: string): void => {
		if (openFromHost) void openFromHost(path);
		else early.push(path);
	};
	const focusWindow = (): void => {
		if (!win || win.isDestroyed()) return;
		if (win.isMinimized()) win.restore();
		win.focus();
	};
	// macOS: Finder double-click, Open With, a drop on the Dock icon, the Recent menu.
	app.on("open-file", (event, path) => {
		event.preventDefault();
		hostOpen(path);
	});
	app.on("second-instance", (_event, secondArgv, secondCwd, data) => {
		const files = Array.isArray((data as { files?: unknown } | null)?.files)
			? (data as { files: unknown[] }).files.filter((f): f is string => typeof f === "string")
			: sessionFilesFromArgs(userArgs(secondArgv, app.isPackaged), secondCwd);
		for (const f of files) hostOpen(f);
		focusWindow();
	});
	app.on("web-contents-created", (_event, contents) => hardenWebContents(contents));
	app.on("render-process-gone", (_event, _contents, details) => logError(`the window's page stopped (${details.reason}, exit code ${details.exitCode})`));
	app.on("child-process-gone", (_event, details) => {
		if (details.reason !== "clean-exit") logError(`${details.type} process stopped (${details.reason})`);
	});
	let router: ArborRouter | null = null;
	app.on("window-all-closed", () => app.quit());
	app.on("will-quit", () => void router?.dispose());

	// An extension's detached callback that throws must not quit the app (see crash-guard.ts); any other
	// uncaught error is a bug of Arbor's: logged, shown, and the app closes rather than run half-broken
	// (session files are whole-line appends and atomic renames: nothing is left half-written).
	let services: ArborServices | null = null;
	installCrashGuard((kind, err) => reportError(`${kind} from an extension, still running`, err), {
		extensionRoots: () => [join(homedir(), ".arbor", "extensions"), ...(services?.extensionFolders() ?? [])],
		onFatal: (kind, err) => {
			logError(`${kind} (a bug in Arbor), closing`, err);
			if (app.isReady()) dialog.showErrorBox("Arbor hit an unexpected error and has to close", `${errorText(err)}\n\nDetails are in ${logFile}`);
			app.exit(1);
		},
	});

	const appearanceFile = join(userData, "appearance.json");
	let appearance = readAppearance(appearanceFile);
	nativeTheme.themeSource = appearance;

	await app.whenReady();

	// --- 2. Ready: harden, then the window at once ---
	hardenSession(session.defaultSession);
	serveRenderer(layout.rendererDir);
	const stateFile = options.windowStateFile ?? join(homedir(), ".arbor", "window-state.json");
	services = new ArborServices({ piExtensionDir: layout.piExtension, ...options.servicesOptions });
	if (app.isPackaged) {
		// `/arbor` in pi opens this app (docs/hosts.md "Finding the desktop app").
		try {
			const extension = existsSync(layout.piExtension) ? layout.piExtension : null;
			recordAppInstall(join(homedir(), ".arbor"), { executable: appExecutable(process.execPath, process.env), version: app.getVersion(), extension });
		} catch (err) {
			logError("could not record where the app is installed", err);
		}
	}
	const activeRouter = createRouter({
		services,
		host: {
			async showOpenDialog() {
				const opts = {
					title: "Open a pi session",
					properties: ["openFile" as const],
					filters: [
						{ name: "pi / omp sessions", extensions: ["jsonl"] },
						{ name: "All files", extensions: ["*"] },
					],
				};
				const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
				return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0];
			},
			async revealInFolder(path) {
				shell.showItemInFolder(path);
			},
		},
		log: (m) => logError(m),
	});
	router = activeRouter;

	const send = (event: ArborEvent): void => {
		if (win && !win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, event);
	};
	activeRouter.onEvent(send);

	// Host opens and the page's getInitialSessions run one at a time, so a file is either in that answer
	// or sent as an event after it, never neither.
	let queue: Promise<unknown> = Promise.resolve();
	const serial = <T>(task: () => Promise<T>): Promise<T> => {
		const run = queue.then(task, task);
		queue = run.catch(() => undefined);
		return run;
	};
	let pageSubscribed = false;
	let sample: string | null = null;

	const recordRecent = (summary: SessionSummary | null | undefined): void => {
		if (summary?.path && summary.path !== sample) app.addRecentDocument(summary.path);
	};
	const refreshMenu = async (): Promise<void> => {
		const settings = await activeRouter.handle("getSettings", {});
		const recent = settings.ok ? (settings.result as { recentFiles: string[] }).recentFiles.filter((p) => p !== sample) : [];
		Menu.setApplicationMenu(
			Menu.buildFromTemplate(
				buildMenuTemplate(
					{
						command: (command) => activeRouter.emit({ type: "menu_command", command }),
						openRecent: (path) => hostOpen(path),
						clearRecent: () => {
							app.clearRecentDocuments();
							void activeRouter.handle("setSettings", { settings: { recentFiles: [] } }).then(refreshMenu);
						},
						setAppearance: (next) => {
							appearance = next;
							nativeTheme.themeSource = next;
							try {
								makePrivateDir(userData);
								writePrivateFile(appearanceFile, `${JSON.stringify({ theme: next })}\n`);
							} catch (err) {
								logError("could not save the appearance", err);
							}
							void refreshMenu();
						},
						quit: () => app.quit(),
					},
					recent,
					process.platform,
					appearance,
				),
			),
		);
	};
	/** Keep the sample out of Open Recent: it is not a file the user chose. */
	const forgetSample = async (): Promise<void> => {
		const s = await activeRouter.handle("getSettings", {});
		if (!s.ok || !sample) return;
		const recentFiles = (s.result as { recentFiles: string[] }).recentFiles;
		if (recentFiles.includes(sample)) await activeRouter.handle("setSettings", { settings: { recentFiles: recentFiles.filter((p) => p !== sample) } });
	};

	registerIpc(ipcMain, activeRouter, {
		around: (name, run) =>
			name === "getInitialSessions"
				? serial(async () => {
						const r = await run();
						pageSubscribed = true;
						return r;
					})
				: run(),
		afterRequest: (name, response) => {
			if (name === "setSettings") void refreshMenu();
			if (response.ok && (name === "openSession" || name === "showOpenDialog" || name === "host:openDroppedFile")) {
				recordRecent(response.result as SessionSummary | null);
				void refreshMenu();
			}
		},
	});

	void refreshMenu();

	const state = fitToDisplays(
		loadWindowState(stateFile),
		screen.getAllDisplays().map((d) => d.workArea),
	);
	win = new BrowserWindow({
		...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
		width: state.width,
		height: state.height,
		minWidth: 640,
		minHeight: 400,
		show: false,
		title: "Arbor",
		backgroundColor: nativeTheme.shouldUseDarkColors ? BACKGROUND.dark : BACKGROUND.light,
		webPreferences: {
			// PRELOAD_JS_CHECK asks to review the preload: it is the bridge itself, exposing only window.arbor
			// (shared/bridge.ts), never ipcRenderer; request names are allow-listed there and the sender is
			// checked in ipc.ts; contextIsolation and sandbox stay on.
			preload: layout.preload, // eng-disable PRELOAD_JS_CHECK -- reviewed, see the comment above
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
			// Middle-click would open links in a new window; window.open is handled in security.ts.
			disableBlinkFeatures: "Auxclick",
		},
	});
	const current = win;
	// Shown as soon as the page has painted (its loading state), maximized then: maximizing a hidden window
	// shows it before anything is painted.
	current.once("ready-to-show", () => {
		if (state.maximized) current.maximize();
		current.show();
	});
	// Links in session content: the user confirms, then the system browser opens them (http/https/mailto).
	current.webContents.setWindowOpenHandler(({ url }) => {
		void confirmAndOpenExternal(url, {
			confirm: async (message, detail) =>
				(await dialog.showMessageBox(current, { type: "question", buttons: ["Open", "Cancel"], defaultId: 0, cancelId: 1, message, detail })).response === 0,
			openExternal: (u) => shell.openExternal(u), // eng-disable OPEN_EXTERNAL_JS_CHECK -- only http/https/mailto (externalLink), after the user confirmed
		});
		return { action: "deny" };
	});
	current.webContents.on("render-process-gone", (_event, details) => {
		pageSubscribed = false;
		if (details.reason === "clean-exit" || current.isDestroyed()) return;
		void dialog
			.showMessageBox(current, {
				type: "error",
				buttons: ["Reload", "Quit"],
				defaultId: 0,
				cancelId: 1,
				message: "Arbor's window stopped working.",
				detail: `Reason: ${details.reason}. Your session files are not affected. Details are in ${logFile}`,
			})
			.then(({ response }) => (response === 0 && !current.isDestroyed() ? current.webContents.reload() : app.quit()));
	});
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
	const loaded = current.loadURL(APP_URL).catch((err: unknown) => logError(`could not load ${APP_URL}`, err));

	// --- 3. The launch files (while the page loads) ---
	const fromLaunch = [...launchFiles, ...early.splice(0)];
	if (fromLaunch.length === 0) {
		try {
			sample = sampleSession(layout, userData);
		} catch (err) {
			logError("could not copy the sample session", err);
		}
	}
	const initial = fromLaunch.length > 0 ? fromLaunch : sample ? [sample] : [];
	const launchOpened = serial(async () => {
		const { opened, failed } = await activeRouter.openInitial(initial);
		for (const s of opened) recordRecent(s);
		if (sample) await forgetSample();
		return failed;
	});
	openFromHost = (path) =>
		serial(async () => {
			if (!pageSubscribed) {
				// Not subscribed yet: the page's getInitialSessions (queued behind this) will include it.
				const { opened, failed } = await activeRouter.openInitial([path]);
				for (const s of opened) recordRecent(s);
				for (const f of failed) showOpenError(f.path, f.error.message);
			} else {
				await activeRouter.allowPath(path);
				const r: RouterResponse = await activeRouter.handle("openSession", { path });
				if (r.ok) {
					recordRecent(r.result as SessionSummary);
					send({ type: "session_loaded", session: r.result as never });
				} else send({ type: "error", sessionId: null, error: r.error });
			}
			void refreshMenu();
			focusWindow();
		});
	const showOpenError = (path: string, message: string): void => {
		logError(`could not open ${path}: ${message}`);
		if (win && !win.isDestroyed()) void dialog.showMessageBox(win, { type: "error", message: `Arbor could not open ${path}`, detail: message });
	};
	for (const f of early.splice(0)) void openFromHost(f);
	const failedAtLaunch = await launchOpened;

	await refreshMenu();
	await loaded;
	// The page learns of bad launch files from a dialog: it may not have subscribed to events yet.
	for (const f of failedAtLaunch) showOpenError(f.path, f.error.message);
	startAutoUpdate(app.isPackaged, logError);
	return { router: activeRouter, layout, window: () => win, openFromHost: (p) => (openFromHost ? openFromHost(p) : Promise.resolve()) };
}
