// A recording stand-in for the `electron` module (no Electron binary can run here). Tests swap it in
// with vi.mock("electron") and inspect what the host asked Electron to do.

import { join } from "node:path";

type Fn = (...args: never[]) => unknown;

export class FakeEmitter {
	readonly listeners = new Map<string, Fn[]>();
	on(event: string, fn: Fn): this {
		this.listeners.set(event, [...(this.listeners.get(event) ?? []), fn]);
		return this;
	}
	once(event: string, fn: Fn): this {
		return this.on(event, fn);
	}
	/** Fire an event; returns whether preventDefault was called on the event object. */
	fire(event: string, ...rest: unknown[]): boolean {
		let prevented = false;
		const ev = { preventDefault: () => void (prevented = true), sender: this };
		for (const fn of this.listeners.get(event) ?? []) (fn as (...a: unknown[]) => unknown)(ev, ...rest);
		return prevented;
	}
}

export class FakeWebContents extends FakeEmitter {
	sent: [string, unknown][] = [];
	windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
	setWindowOpenHandler(fn: (details: { url: string }) => { action: string }): void {
		this.windowOpenHandler = fn;
	}
	send(channel: string, payload: unknown): void {
		this.sent.push([channel, payload]);
	}
	reload(): void {}
}

export const rec = {
	calls: [] as string[],
	lockResult: true,
	lockData: undefined as unknown,
	appPath: "",
	quit: 0,
	sandboxEnabled: false,
	app: new FakeEmitter(),
	schemes: [] as unknown[],
	protocolHandlers: new Map<string, (req: Request) => Promise<Response> | Response>(),
	ipcHandlers: new Map<string, (event: unknown, ...args: unknown[]) => unknown>(),
	windows: [] as FakeBrowserWindow[],
	menuTemplates: [] as unknown[][],
	headersHandler: null as
		null | ((details: { responseHeaders?: Record<string, string[]> }, cb: (r: { responseHeaders: Record<string, string[]> }) => void) => void),
	beforeRequest: null as null | ((details: { url: string }, cb: (r: { cancel: boolean }) => void) => void),
	permissionRequest: null as null | ((wc: unknown, permission: string, cb: (granted: boolean) => void) => void),
	permissionCheck: null as null | ((wc: unknown, permission: string) => boolean),
	deviceHandler: null as null | (() => boolean),
	dialogResult: { canceled: true, filePaths: [] as string[] },
	revealed: [] as string[],
	messageBoxes: [] as { message: string; detail?: string }[],
	name: "Electron",
	paths: new Map<string, string>(),
	recentDocuments: [] as string[],
	opened: [] as string[],
	messageBoxResponse: 0,
};

export function resetFake(appPath: string): void {
	rec.calls = [];
	rec.lockResult = true;
	rec.lockData = undefined;
	rec.appPath = appPath;
	rec.quit = 0;
	rec.sandboxEnabled = false;
	rec.app = new FakeEmitter();
	rec.schemes = [];
	rec.protocolHandlers.clear();
	rec.ipcHandlers.clear();
	rec.windows = [];
	rec.menuTemplates = [];
	rec.headersHandler = null;
	rec.beforeRequest = null;
	rec.permissionRequest = null;
	rec.permissionCheck = null;
	rec.deviceHandler = null;
	rec.revealed = [];
	rec.messageBoxes = [];
	rec.name = "Electron";
	rec.paths = new Map([
		["appData", join(appPath, "appData")],
		["userData", join(appPath, "appData", "Electron")],
	]);
	rec.recentDocuments = [];
	rec.opened = [];
	rec.messageBoxResponse = 0;
}

export class FakeBrowserWindow extends FakeEmitter {
	readonly options: Record<string, unknown>;
	readonly webContents = new FakeWebContents();
	loadedUrl: string | null = null;
	shown = false;
	maximized = false;
	constructor(options: Record<string, unknown>) {
		super();
		this.options = options;
		rec.windows.push(this);
		rec.calls.push("new BrowserWindow");
		rec.app.fire("web-contents-created", this.webContents);
	}
	async loadURL(url: string): Promise<void> {
		this.loadedUrl = url;
	}
	show(): void {
		this.shown = true;
	}
	isDestroyed(): boolean {
		return false;
	}
	isMinimized(): boolean {
		return false;
	}
	restore(): void {}
	focus(): void {}
	maximize(): void {
		this.maximized = true;
	}
	isMaximized(): boolean {
		return this.maximized;
	}
	getNormalBounds(): { x: number; y: number; width: number; height: number } {
		return { x: 10, y: 20, width: 900, height: 700 };
	}
}

export const app = {
	get isPackaged() {
		return false;
	},
	requestSingleInstanceLock(data: unknown): boolean {
		rec.calls.push("requestSingleInstanceLock");
		rec.lockData = data;
		return rec.lockResult;
	},
	enableSandbox(): void {
		rec.sandboxEnabled = true;
	},
	on(event: string, fn: Fn) {
		rec.app.on(event, fn);
		return app;
	},
	async whenReady(): Promise<void> {
		rec.calls.push("ready");
	},
	getAppPath: () => rec.appPath,
	setName(name: string): void {
		rec.name = name;
	},
	getName: () => rec.name,
	setPath(name: string, value: string): void {
		rec.paths.set(name, value);
	},
	getPath(name: string): string {
		const p = rec.paths.get(name);
		if (!p) throw new Error(`no path ${name}`);
		return p;
	},
	isReady: () => rec.calls.includes("ready"),
	addRecentDocument(path: string): void {
		rec.recentDocuments.push(path);
	},
	clearRecentDocuments(): void {
		rec.recentDocuments = [];
	},
	quit(): void {
		rec.quit++;
	},
	exit(): void {},
};

export const protocol = {
	registerSchemesAsPrivileged(schemes: unknown[]): void {
		rec.calls.push("registerSchemesAsPrivileged");
		rec.schemes.push(...schemes);
	},
	handle(scheme: string, handler: (req: Request) => Promise<Response> | Response): void {
		rec.protocolHandlers.set(scheme, handler);
	},
};

export const ipcMain = {
	handle(channel: string, fn: (event: unknown, ...args: unknown[]) => unknown): void {
		if (rec.ipcHandlers.has(channel)) throw new Error(`second handler for ${channel}`);
		rec.ipcHandlers.set(channel, fn);
	},
};

export const Menu = {
	buildFromTemplate(template: unknown[]): { template: unknown[] } {
		rec.menuTemplates.push(template);
		return { template };
	},
	setApplicationMenu(): void {},
};

export const session = {
	defaultSession: {
		webRequest: {
			onHeadersReceived(fn: typeof rec.headersHandler) {
				rec.headersHandler = fn;
			},
			onBeforeRequest(fn: typeof rec.beforeRequest) {
				rec.beforeRequest = fn;
			},
		},
		setPermissionRequestHandler(fn: typeof rec.permissionRequest) {
			rec.permissionRequest = fn;
		},
		setPermissionCheckHandler(fn: typeof rec.permissionCheck) {
			rec.permissionCheck = fn;
		},
		setDevicePermissionHandler(fn: typeof rec.deviceHandler) {
			rec.deviceHandler = fn;
		},
	},
};

export const screen = {
	getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
};

export const dialog = {
	async showOpenDialog(): Promise<{ canceled: boolean; filePaths: string[] }> {
		return rec.dialogResult;
	},
	showErrorBox(): void {},
	async showMessageBox(win: unknown, options?: { message: string; detail?: string }): Promise<{ response: number }> {
		rec.messageBoxes.push((options ?? win) as { message: string; detail?: string });
		return { response: rec.messageBoxResponse };
	},
};

export const shell = {
	showItemInFolder(path: string): void {
		rec.revealed.push(path);
	},
	async openExternal(url: string): Promise<void> {
		rec.opened.push(url);
	},
};

export const nativeTheme = { themeSource: "system", shouldUseDarkColors: false };

export { FakeBrowserWindow as BrowserWindow };
