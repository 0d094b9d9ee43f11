// A strict stand-in for Electron's main process, for running the BUILT dist/main.cjs in plain Node where
// no Electron binary can run. Started with child_process.fork (electron-double.test.ts, packaging.test.ts):
// it shapes process.argv like Electron (dev: [electron, dist/main.cjs, ...files]; packaged: [exe, ...files]),
// answers require("electron") with the API below, then requires the main script.
//
// Faithful where the real thing is strict, and it records what a test needs to see:
// - layouts: app.getAppPath() is the main script's folder in dev (`electron dist/main.cjs`) and the
//   unpacked app root when packaged; app.isPackaged, process.resourcesPath follow;
// - ordering: what Electron refuses before `ready` (windows, protocol.handle, session, screen, dialogs)
//   and after it (registerSchemesAsPrivileged, enableSandbox, setPath('userData') once the
//   single-instance lock was taken) throws, like Electron does, and is recorded as a violation;
// - loadURL goes through the handler registered with protocol.handle and fetches every asset the page
//   names; the preload must exist and may only require what a sandboxed preload can
//   (electron, events, timers, url);
// - app events fired with no listener are recorded as lost (open-file before `ready`, second-instance);
// - webContents.send before the page subscribed is dropped, as the page drops it: Arbor's page subscribes
//   to events first and then makes its first request (renderer/runtime.ts), so "subscribed" is "loaded and
//   has made a request";
// - addRecentDocument, dialogs, shell calls and the menu are recorded;
// - the renderer side (sandboxed-renderer.cjs): the built preload runs in its own vm context with only what a
//   sandboxed preload gets, what it exposes crosses contextBridge copied as Electron copies it, and the page
//   (another context) reaches main only through that; IPC arguments are structured-cloned;
// - the session's hooks are called as Electron calls them: onHeadersReceived on every response the page
//   loads (the headers the page gets are the handler's), onBeforeRequest before each (a cancel blocks it),
//   the permission request and check handlers when the page asks (commands `permission`, `permissionCheck`).
// What it cannot model (the OS sandbox, Chromium enforcing the CSP) is named by skipped tests.
// The test drives it over the fork IPC channel: {id, cmd, ...} → {id, ok, result|error}.
"use strict";

const Module = require("node:module");
const fs = require("node:fs");
const fsp = require("node:fs/promises");
const path = require("node:path");
const { EventEmitter } = require("node:events");
const { runSandboxedPreload } = require("./sandboxed-renderer.cjs");

const LAYOUT = process.env.ARBOR_DOUBLE_LAYOUT === "packaged" ? "packaged" : "dev";
const MAIN = path.resolve(process.env.ARBOR_DOUBLE_MAIN);
const APP_DATA = process.env.ARBOR_DOUBLE_APPDATA;
const LOCK_HELD = process.env.ARBOR_DOUBLE_LOCK === "held";
const HOLD = new Set((process.env.ARBOR_DOUBLE_HOLD ?? "").split(path.delimiter).filter(Boolean));
const SANDBOXED_PRELOAD_MODULES = new Set(require("./sandboxed-renderer.cjs").SANDBOXED_PRELOAD_MODULES);

const rec = {
	calls: [],
	violations: [],
	lost: [],
	ready: false,
	name: "Electron",
	paths: { appData: APP_DATA, userData: path.join(APP_DATA, "Electron"), home: process.env.HOME ?? "", temp: require("node:os").tmpdir() },
	lockTaken: false,
	lockUserData: null,
	lockData: undefined,
	schemes: [],
	sandbox: false,
	recentDocuments: [],
	clearedRecent: 0,
	menu: null,
	dialogs: [],
	opened: [],
	revealed: [],
	windows: [],
	exitCode: null,
	themeSource: "system",
};

function violation(message) {
	rec.violations.push(message);
	throw new Error(`electron double: ${message}`);
}
const needReady = (what) => {
	if (!rec.ready) violation(`${what} before the app is ready`);
};
const needNotReady = (what) => {
	if (rec.ready) violation(`${what} after the app is ready`);
};

// Electron passes an Event object first to app/webContents listeners.
class Emitter extends EventEmitter {
	fire(event, ...args) {
		let prevented = false;
		const ev = { preventDefault: () => void (prevented = true), defaultPrevented: false };
		const n = this.listenerCount(event);
		this.emit(event, ev, ...args);
		return { listeners: n, prevented };
	}
}

const appEmitter = new Emitter();
let readyResolve;
const readyPromise = new Promise((ok) => (readyResolve = ok));

const protocolHandlers = new Map();

const app = {
	get isPackaged() {
		return LAYOUT === "packaged";
	},
	getAppPath() {
		return LAYOUT === "packaged" ? process.env.ARBOR_DOUBLE_APP_ROOT : path.dirname(MAIN);
	},
	getVersion: () => "0.0.0-double",
	setName(name) {
		rec.calls.push(`setName ${name}`);
		rec.name = name;
	},
	getName: () => rec.name,
	getPath(name) {
		if (!(name in rec.paths)) throw new Error(`electron double: no path named ${name}`);
		return rec.paths[name];
	},
	setPath(name, value) {
		if (name === "userData" && rec.lockTaken) violation("setPath('userData') after requestSingleInstanceLock (the lock lives in the old folder)");
		if (!path.isAbsolute(value)) violation(`setPath(${name}) with a relative path`);
		rec.calls.push(`setPath ${name}`);
		rec.paths[name] = value;
	},
	isReady: () => rec.ready,
	whenReady: () => readyPromise,
	enableSandbox() {
		needNotReady("app.enableSandbox()");
		rec.sandbox = true;
	},
	requestSingleInstanceLock(data) {
		rec.calls.push("requestSingleInstanceLock");
		rec.lockTaken = true;
		rec.lockUserData = rec.paths.userData;
		rec.lockData = data;
		return !LOCK_HELD;
	},
	addRecentDocument(p) {
		rec.recentDocuments.push(p);
	},
	clearRecentDocuments() {
		rec.clearedRecent++;
	},
	on(event, fn) {
		rec.calls.push(`app.on ${event}`);
		appEmitter.on(event, fn);
		return app;
	},
	once(event, fn) {
		appEmitter.once(event, fn);
		return app;
	},
	quit() {
		rec.calls.push("quit");
		setImmediate(() => appEmitter.fire("will-quit"));
	},
	exit(code) {
		rec.exitCode = code ?? 0;
	},
};

const protocol = {
	registerSchemesAsPrivileged(schemes) {
		needNotReady("protocol.registerSchemesAsPrivileged()");
		rec.calls.push("registerSchemesAsPrivileged");
		rec.schemes.push(...schemes);
	},
	handle(scheme, handler) {
		needReady("protocol.handle()");
		protocolHandlers.set(scheme, handler);
	},
};

const ipcHandlers = new Map();
const ipcMain = {
	handle(channel, fn) {
		if (ipcHandlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
		ipcHandlers.set(channel, fn);
	},
};

const webRequest = { headers: null, before: null };
const permissions = { request: null, check: null, device: null };
const defaultSession = {
	webRequest: {
		onHeadersReceived: (fn) => void (webRequest.headers = fn),
		onBeforeRequest: (fn) => void (webRequest.before = fn),
	},
	setPermissionRequestHandler: (fn) => void (permissions.request = fn),
	setPermissionCheckHandler: (fn) => void (permissions.check = fn),
	setDevicePermissionHandler: (fn) => void (permissions.device = fn),
};

/** Electron calls a webRequest listener with (details, callback); the callback may come later. */
function callWebRequest(fn, details) {
	return new Promise((ok) => fn(details, (answer) => ok(answer ?? {})));
}
const session = {
	get defaultSession() {
		needReady("session.defaultSession");
		return defaultSession;
	},
};

const screen = {
	getAllDisplays() {
		needReady("screen.getAllDisplays()");
		return [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }];
	},
};

function templateOf(items) {
	return items.map((i) => ({
		label: i.label,
		role: i.role,
		type: i.type,
		checked: i.checked,
		submenu: Array.isArray(i.submenu) ? templateOf(i.submenu) : undefined,
		click: i.click,
	}));
}
const Menu = {
	buildFromTemplate: (template) => ({ template: templateOf(template) }),
	setApplicationMenu(menu) {
		rec.menu = menu;
	},
};

const dialog = {
	async showOpenDialog() {
		needReady("dialog.showOpenDialog()");
		return { canceled: true, filePaths: [] };
	},
	showErrorBox(title, content) {
		rec.dialogs.push({ kind: "errorBox", message: title, detail: content });
	},
	async showMessageBox(win, options) {
		needReady("dialog.showMessageBox()");
		const o = options ?? win;
		rec.dialogs.push({ kind: "messageBox", message: o.message, detail: o.detail, buttons: o.buttons });
		return { response: Number(process.env.ARBOR_DOUBLE_MESSAGEBOX_RESPONSE ?? 0) };
	},
};

const shell = {
	async openExternal(url) {
		rec.opened.push(url);
	},
	showItemInFolder(p) {
		rec.revealed.push(p);
	},
};

const nativeTheme = {
	get themeSource() {
		return rec.themeSource;
	},
	set themeSource(v) {
		if (!["system", "light", "dark"].includes(v)) violation(`nativeTheme.themeSource = ${v}`);
		rec.themeSource = v;
	},
	get shouldUseDarkColors() {
		return rec.themeSource === "dark";
	},
};

/** The modules a bundled preload requires (esbuild writes require("x")). */
function preloadRequires(file) {
	const text = fs.readFileSync(file, "utf8");
	return [...new Set([...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]))];
}

class WebContents extends Emitter {
	constructor(win) {
		super();
		this.win = win;
		this.url = null;
		this.loaded = false;
		this.subscribed = false;
		this.delivered = [];
		this.dropped = [];
		this.windowOpenHandler = null;
		this.assets = [];
	}
	setWindowOpenHandler(fn) {
		this.windowOpenHandler = fn;
	}
	send(channel, payload) {
		if (this.loaded && this.subscribed) {
			this.delivered.push({ channel, payload });
			this.win.renderer?.deliver(channel, payload);
		} else this.dropped.push({ channel, payload });
	}
	reload() {
		rec.calls.push("reload");
		this.loaded = false;
		this.subscribed = false;
		void this.win.loadURL(this.url);
	}
	getURL() {
		return this.url ?? "";
	}
	isDestroyed() {
		return false;
	}
}

async function fetchThroughProtocol(url) {
	const scheme = new URL(url).protocol.replace(/:$/, "");
	// onBeforeRequest first: a cancelled request never reaches a protocol handler or the network.
	if (webRequest.before) {
		const answer = await callWebRequest(webRequest.before, { url, method: "GET", resourceType: "other" });
		if (answer.cancel) return { status: -3, error: "ERR_BLOCKED_BY_CLIENT", blocked: true };
	}
	const handler = protocolHandlers.get(scheme);
	// The stand-in has no network: a request it lets through to another scheme answers "no handler".
	if (!handler) return { status: -1, error: `no handler for ${scheme}://` };
	const res = await handler(new Request(url));
	const body = Buffer.from(await res.arrayBuffer());
	// Then onHeadersReceived: the headers the page gets are the ones its callback gives back (Electron's shape:
	// each header an array of values).
	const fromHandler = Object.fromEntries([...res.headers].map(([k, v]) => [k, [v]]));
	let headers = fromHandler;
	if (webRequest.headers) {
		const answer = await callWebRequest(webRequest.headers, { url, method: "GET", statusCode: res.status, responseHeaders: fromHandler });
		if (answer.responseHeaders) headers = answer.responseHeaders;
	}
	const flat = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(", ") : String(v)]));
	return { status: res.status, headers: flat, protocolHeaders: Object.fromEntries(res.headers), body };
}

class BrowserWindow extends Emitter {
	constructor(options = {}) {
		super();
		needReady("new BrowserWindow()");
		this.options = options;
		this.shown = false;
		this.maximized = false;
		this.destroyed = false;
		this.webContents = new WebContents(this);
		rec.windows.push(this);
		rec.calls.push("new BrowserWindow");
		const preload = options.webPreferences?.preload;
		this.preloadProblems = [];
		if (preload !== undefined) {
			if (!path.isAbsolute(preload)) this.preloadProblems.push(`preload path is not absolute: ${preload}`);
			else if (!fs.existsSync(preload)) this.preloadProblems.push(`preload not found: ${preload}`);
			else if (options.webPreferences?.sandbox !== false) {
				for (const m of preloadRequires(preload)) if (!SANDBOXED_PRELOAD_MODULES.has(m)) this.preloadProblems.push(`a sandboxed preload cannot require ${m}`);
			}
		}
		appEmitter.fire("web-contents-created", this.webContents);
		appEmitter.fire("browser-window-created", this);
	}
	async loadURL(url) {
		rec.calls.push(`loadURL ${url}`);
		this.webContents.url = url;
		const page = await fetchThroughProtocol(url);
		this.webContents.assets = [
			{
				url,
				status: page.status,
				csp: page.headers?.["content-security-policy"] ?? null,
				protocolCsp: page.protocolHeaders?.["content-security-policy"] ?? null,
			},
		];
		if (page.status !== 200) {
			this.webContents.fire("did-fail-load", -6, "ERR_FILE_NOT_FOUND", url);
			throw new Error(`ERR_FILE_NOT_FOUND (-6) loading '${url}'`);
		}
		const html = page.body.toString("utf8");
		const refs = [...html.matchAll(/<(?:script|link|img)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]);
		for (const ref of refs) {
			if (/^data:/i.test(ref)) continue; // Chromium decodes data: URLs itself
			const assetUrl = new URL(ref, url).href;
			const r = await fetchThroughProtocol(assetUrl);
			this.webContents.assets.push({ url: assetUrl, status: r.status, type: r.headers?.["content-type"] ?? null });
		}
		this.startRenderer();
		this.webContents.loaded = this.preloadProblems.length === 0;
		this.webContents.fire("did-finish-load");
		this.painted = true;
		this.fire("ready-to-show");
	}
	/** The page's renderer: the preload in its isolated world, then the page's own world (sandboxed-renderer.cjs). */
	startRenderer() {
		const prefs = this.options.webPreferences ?? {};
		this.renderer = null;
		if (prefs.preload === undefined || this.preloadProblems.length > 0) return;
		if (prefs.sandbox === false || prefs.contextIsolation === false || prefs.nodeIntegration === true) {
			this.preloadProblems.push("the stand-in models only sandboxed, context-isolated renderers without Node integration");
			return;
		}
		const wc = this.webContents;
		this.renderer = runSandboxedPreload(prefs.preload, {
			invoke: async (channel, args) => {
				const handler = ipcHandlers.get(channel);
				if (!handler) throw new Error(`Error invoking remote method '${channel}': No handler registered for '${channel}'`);
				return handler({ senderFrame: { url: wc.url ?? "" }, sender: wc }, ...args);
			},
			send: () => {},
		});
		this.preloadProblems.push(...this.renderer.problems);
	}
	show() {
		rec.calls.push("show");
		this.shown = true;
	}
	maximize() {
		// Electron shows a hidden window to maximize it: before the page painted, that is an empty window.
		rec.calls.push(this.painted ? "maximize" : "maximize (before ready-to-show)");
		this.maximized = true;
		this.shown = true;
	}
	isMaximized() {
		return this.maximized;
	}
	isMinimized() {
		return false;
	}
	restore() {}
	focus() {
		rec.calls.push("focus");
	}
	isDestroyed() {
		return this.destroyed;
	}
	getNormalBounds() {
		return { x: 10, y: 20, width: 900, height: 700 };
	}
}

const electron = { app, protocol, ipcMain, session, screen, Menu, dialog, shell, nativeTheme, BrowserWindow };

// A slow disk for chosen files: their first realpath waits for a `release` command, so a test can look at
// the app while a launch file is still opening (no timing involved).
const held = new Map();
const realRealpath = fsp.realpath;
fsp.realpath = async (p, ...rest) => {
	if (HOLD.has(String(p))) {
		HOLD.delete(String(p));
		await new Promise((ok) => held.set(String(p), ok));
	}
	return realRealpath(p, ...rest);
};

const realResolve = Module._resolveFilename;
const ELECTRON_ID = "electron-double:electron";
Module._resolveFilename = function resolve(request, ...rest) {
	return request === "electron" ? ELECTRON_ID : realResolve.call(this, request, ...rest);
};
const cached = new Module(ELECTRON_ID);
cached.exports = electron;
cached.loaded = true;
Module._cache[ELECTRON_ID] = cached;

function serializeMenu(menu) {
	const strip = (items) => items?.map((i) => ({ label: i.label, role: i.role, type: i.type, checked: i.checked, submenu: strip(i.submenu) }));
	return menu ? strip(menu.template) : null;
}
function findMenuItem(items, label) {
	for (const i of items ?? []) {
		if (i.label === label) return i;
		const inner = findMenuItem(i.submenu, label);
		if (inner) return inner;
	}
	return null;
}

function state() {
	return {
		...rec,
		menu: serializeMenu(rec.menu),
		held: [...held.keys()],
		windows: rec.windows.map((w) => ({
			options: { ...w.options, webPreferences: { ...w.options.webPreferences } },
			shown: w.shown,
			maximized: w.maximized,
			url: w.webContents.url,
			loaded: w.webContents.loaded,
			subscribed: w.webContents.subscribed,
			assets: w.webContents.assets,
			preloadProblems: w.preloadProblems,
			renderer: w.renderer ? { exposedKeys: w.renderer.exposedKeys, requires: w.renderer.requires } : null,
			delivered: w.webContents.delivered,
			dropped: w.webContents.dropped,
		})),
	};
}

const commands = {
	state,
	ready() {
		rec.ready = true;
		rec.calls.push("ready");
		appEmitter.fire("ready", {});
		readyResolve();
		return true;
	},
	fire({ event, args }) {
		const r = appEmitter.fire(event, ...(args ?? []));
		if (r.listeners === 0) rec.lost.push(event);
		return r;
	},
	release({ file }) {
		const ok = held.get(file);
		if (!ok) return false;
		held.delete(file);
		ok();
		return true;
	},
	/** The page: a request over the one IPC channel, from the window's own frame. */
	async invoke({ channel, args, senderUrl }) {
		const handler = ipcHandlers.get(channel);
		if (!handler) throw new Error(`no ipcMain handler for ${channel}`);
		const win = rec.windows[0];
		if (win?.webContents.loaded) win.webContents.subscribed = true;
		return handler({ senderFrame: { url: senderUrl ?? win?.webContents.url ?? "" }, sender: win?.webContents }, ...args);
	},
	/**
	 * Code run in the page's own world (the main world of the first window): it sees only what the preload
	 * exposed. A promise is awaited; the result comes back structured-cloned.
	 */
	async page({ code }) {
		const r = rec.windows[0]?.renderer;
		if (!r) throw new Error("no renderer: the window has no preload running");
		const wc = rec.windows[0].webContents;
		if (wc.loaded) wc.subscribed = true;
		return await r.evaluate(code);
	},
	/** The page asks for a permission (a notification, the camera ...): Electron calls the request handler. */
	permission({ permission, url }) {
		if (!permissions.request) return { handler: false, granted: null };
		const wc = rec.windows[0]?.webContents;
		return new Promise((ok) =>
			permissions.request(wc, permission, (granted) => ok({ handler: true, granted }), { requestingUrl: url ?? wc?.url ?? "", isMainFrame: true }),
		);
	},
	/** A synchronous permission check (navigator.permissions.query and the like). */
	permissionCheck({ permission, url }) {
		if (!permissions.check) return { handler: false, granted: null };
		const wc = rec.windows[0]?.webContents;
		return { handler: true, granted: permissions.check(wc, permission, url ?? wc?.url ?? "", { isMainFrame: true }) };
	},
	/** Electron calls the onHeadersReceived listener for any response (also one no protocol handler of Arbor's made). */
	async headersReceived({ url, responseHeaders }) {
		if (!webRequest.headers) return { handler: false, responseHeaders };
		const answer = await callWebRequest(webRequest.headers, { url, method: "GET", statusCode: 200, responseHeaders });
		return { handler: true, responseHeaders: answer.responseHeaders ?? responseHeaders, cancel: answer.cancel === true };
	},
	/** A request the page makes (an image, a fetch): through onBeforeRequest, the protocol, onHeadersReceived. */
	async pageRequest({ url }) {
		const r = await fetchThroughProtocol(url);
		return { status: r.status, blocked: r.blocked === true, headers: r.headers ?? {} };
	},
	/** The page opens a link in a new window (window.open / target=_blank). */
	windowOpen({ url }) {
		const h = rec.windows[0]?.webContents.windowOpenHandler;
		return h ? h({ url, frameName: "", features: "noopener,noreferrer", disposition: "new-window" }) : null;
	},
	willNavigate({ url }) {
		return rec.windows[0]?.webContents.fire("will-navigate", url).prevented ?? null;
	},
	clickMenu({ label }) {
		const item = findMenuItem(rec.menu?.template, label);
		if (!item?.click) return false;
		item.click({}, rec.windows[0], {});
		return true;
	},
	rendererGone({ reason }) {
		const wc = rec.windows[0]?.webContents;
		if (!wc) return false;
		wc.loaded = false;
		wc.subscribed = false;
		appEmitter.fire("render-process-gone", wc, { reason, exitCode: 9 });
		wc.fire("render-process-gone", { reason, exitCode: 9 });
		return true;
	},
	closeWindow() {
		const w = rec.windows[0];
		w.fire("close");
		w.destroyed = true;
		w.fire("closed");
		appEmitter.fire("window-all-closed");
		return true;
	},
	throwLater({ message }) {
		setTimeout(() => {
			throw new Error(message);
		}, 0);
		return true;
	},
	async quit() {
		appEmitter.fire("before-quit");
		appEmitter.fire("will-quit");
		setTimeout(() => process.exit(0), 50);
		return true;
	},
};

process.on("message", async (msg) => {
	try {
		const result = await commands[msg.cmd](msg);
		process.send({ id: msg.id, ok: true, result });
	} catch (err) {
		process.send({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) });
	}
});

// Electron's process.argv: the executable, then (dev) the app path Electron was given, then the user's.
const user = process.argv.slice(2);
process.argv =
	LAYOUT === "packaged" ? [path.join(path.dirname(process.env.ARBOR_DOUBLE_APP_ROOT), "..", "arbor"), ...user] : ["/usr/bin/electron", MAIN, ...user];
if (LAYOUT === "packaged") process.resourcesPath = path.dirname(process.env.ARBOR_DOUBLE_APP_ROOT);
appEmitter.fire("will-finish-launching");
try {
	// eslint-disable-next-line arbor/layers -- the built main bundle the double runs
	require(MAIN);
	process.send({ event: "main-loaded" });
} catch (err) {
	process.send({ event: "main-failed", error: err instanceof Error ? err.stack : String(err) });
}
