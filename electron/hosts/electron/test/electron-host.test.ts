// The Electron host's wiring, proven against a recording fake of the `electron` module (no Electron
// binary can run here; e2e/electron.spec.ts covers the real thing where one exists).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ArborEvent, SessionSummary } from "../../../../shared/api";
import type { RouterResponse } from "../../../api/contract";
import { startElectronApp } from "../app";
import { APP_URL, DROP_REQUEST, EVENT_CHANNEL, REQUEST_CHANNEL } from "../channels";
import { COMMAND_INFO } from "../../../../shared/commands";
import { MENU_COMMANDS } from "../menu";
import { rec, resetFake } from "./fake-electron";

vi.mock("electron", () => import("./fake-electron"));

const repoRoot = resolve(import.meta.dirname, "..", "..", "..", "..");
const fixtures = resolve(repoRoot, "..", "shared", "fixtures", "sessions");

let home: string;
let appRoot: string;

function makeAppRoot(): string {
	const root = mkdtempSync(join(tmpdir(), "arbor-app-"));
	mkdirSync(join(root, "dist", "renderer", "assets"), { recursive: true });
	mkdirSync(join(root, "build"));
	writeFileSync(join(root, "dist", "renderer", "index.html"), "<!doctype html><title>Arbor</title>");
	writeFileSync(join(root, "dist", "renderer", "assets", "app.js"), "export {};");
	writeFileSync(join(root, "outside.txt"), "secret");
	copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), join(root, "build", "sample-session.jsonl"));
	return root;
}

function copyFixture(name: string): string {
	const dest = join(mkdtempSync(join(tmpdir(), "arbor-eh-")), name);
	copyFileSync(join(fixtures, name), dest);
	return dest;
}

async function start(args: string[] = []) {
	const hostApp = await startElectronApp({
		argv: ["electron", "dist/main.cjs", ...args],
		cwd: home,
		servicesOptions: { settingsDir: join(home, ".arbor"), piAgentDir: join(home, ".pi"), env: {}, watch: false },
		windowStateFile: join(home, ".arbor", "window-state.json"),
	});
	if (!hostApp) throw new Error("app did not start");
	const win = rec.windows[0];
	const trusted = { senderFrame: { url: APP_URL } };
	const call = async (name: string, params: unknown = {}, event: unknown = trusted): Promise<RouterResponse> => {
		const handler = rec.ipcHandlers.get(REQUEST_CHANNEL);
		if (!handler) throw new Error("no request handler");
		return (await handler(event, name, params)) as RouterResponse;
	};
	return { hostApp, win, call };
}

type MenuItem = { label?: string; role?: string; click?: () => void; submenu?: MenuItem[] };
function findItem(items: MenuItem[], label: string): MenuItem | undefined {
	for (const it of items) {
		if (it.label === label) return it;
		const inner = it.submenu ? findItem(it.submenu, label) : undefined;
		if (inner) return inner;
	}
	return undefined;
}

beforeEach(() => {
	home = mkdtempSync(join(tmpdir(), "arbor-ehome-"));
	appRoot = makeAppRoot();
	resetFake(appRoot);
});

describe("Electron host: window and renderer security", () => {
	it("creates the window with contextIsolation, sandbox, no nodeIntegration, webSecurity and the bundled preload", async () => {
		const { win } = await start();
		const prefs = win.options.webPreferences as Record<string, unknown>;
		expect(prefs).toMatchObject({
			contextIsolation: true,
			sandbox: true,
			nodeIntegration: false,
			nodeIntegrationInWorker: false,
			nodeIntegrationInSubFrames: false,
			webSecurity: true,
			allowRunningInsecureContent: false,
			webviewTag: false,
		});
		expect(prefs.preload).toBe(join(appRoot, "dist", "preload.cjs"));
		expect(rec.sandboxEnabled).toBe(true);
		expect(win.loadedUrl).toBe(APP_URL);
	});

	it("registers arbor:// as a secure standard scheme before the app is ready", async () => {
		await start();
		expect(rec.schemes).toEqual([{ scheme: "arbor", privileges: expect.objectContaining({ standard: true, secure: true }) }]);
		expect(rec.calls.indexOf("registerSchemesAsPrivileged")).toBeLessThan(rec.calls.indexOf("ready"));
	});

	it("sets a strict CSP without unsafe-eval on every response", async () => {
		await start();
		let headers: Record<string, string[]> = {};
		rec.headersHandler?.({ responseHeaders: { "X-Other": ["1"] } }, (r) => (headers = r.responseHeaders));
		const csp = headers["Content-Security-Policy"]?.[0] ?? "";
		expect(csp).toContain("default-src 'self'");
		expect(csp).toContain("script-src 'self'");
		expect(csp).toContain("object-src 'none'");
		expect(csp).not.toMatch(/unsafe-eval/);
		expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
		expect(headers["X-Other"]).toEqual(["1"]);
	});

	it("blocks every request that leaves the app", async () => {
		await start();
		const verdict = (url: string) => {
			let cancel = false;
			rec.beforeRequest?.({ url }, (r) => (cancel = r.cancel));
			return cancel;
		};
		expect(verdict("https://evil.example/x.js")).toBe(true);
		expect(verdict("file:///etc/passwd")).toBe(true);
		expect(verdict("ws://127.0.0.1:1/")).toBe(true);
		expect(verdict("arbor://app/assets/app.js")).toBe(false);
		expect(verdict("data:image/png;base64,AAAA")).toBe(false);
	});

	it("denies permission requests (only clipboard writes are allowed)", async () => {
		await start();
		for (const p of ["geolocation", "media", "notifications", "openExternal", "clipboard-read"]) {
			let granted: boolean | undefined;
			rec.permissionRequest?.(null, p, (g) => (granted = g));
			expect(granted, p).toBe(false);
			expect(rec.permissionCheck?.(null, p), p).toBe(false);
		}
		expect(rec.permissionCheck?.(null, "clipboard-sanitized-write")).toBe(true);
		expect(rec.deviceHandler?.()).toBe(false);
	});

	it("blocks navigation, new windows and webviews in every web contents", async () => {
		const { win } = await start();
		expect(win.webContents.fire("will-navigate", "https://evil.example/")).toBe(true);
		expect(win.webContents.fire("will-navigate", "arbor://app/other.html")).toBe(true);
		expect(win.webContents.fire("will-redirect", "https://evil.example/")).toBe(true);
		expect(win.webContents.fire("will-attach-webview", {}, {})).toBe(true);
		expect(win.webContents.windowOpenHandler?.({ url: "https://evil.example/" })).toEqual({ action: "deny" });
	});

	it("serves the built renderer over arbor:// with the CSP, and nothing outside it", async () => {
		await start();
		const handler = rec.protocolHandlers.get("arbor");
		if (!handler) throw new Error("no protocol handler");
		const index = await handler(new Request("arbor://app/index.html"));
		expect(index.status).toBe(200);
		expect(await index.text()).toContain("<title>Arbor</title>");
		expect(index.headers.get("content-security-policy")).toContain("default-src 'self'");
		const js = await handler(new Request("arbor://app/assets/app.js"));
		expect(js.headers.get("content-type")).toMatch(/text\/javascript/);
		for (const bad of ["arbor://app/%2e%2e/outside.txt", "arbor://app/..%2foutside.txt", "arbor://other/index.html", "arbor://app/missing.js"]) {
			const r = await handler(new Request(bad));
			expect(r.status, bad).toBe(404);
		}
	});
});

describe("Electron host: IPC", () => {
	it("registers exactly one request channel and answers the API through the router", async () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const { call } = await start([file]);
		expect([...rec.ipcHandlers.keys()]).toEqual([REQUEST_CHANNEL]);
		const r = await call("getInitialSessions");
		expect(r.ok).toBe(true);
		expect((r as { result: SessionSummary[] }).result.map((s) => s.path)).toEqual([file]);
		const sk = await call("getSkeleton", { sessionId: (r as { result: SessionSummary[] }).result[0].sessionId });
		expect((sk as { result: { parent: unknown } }).result.parent).toBeInstanceOf(Int32Array);
		expect(await call("getEntry", { sessionId: 1 })).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});

	it("refuses requests from frames that are not Arbor's page", async () => {
		const { call } = await start();
		for (const url of ["https://evil.example/", "file:///tmp/x.html", "arbor://apple/x", ""]) {
			expect(await call("getSettings", {}, { senderFrame: { url } }), url).toMatchObject({ ok: false, error: { code: "forbidden" } });
		}
		expect(await call("getSettings", {}, { senderFrame: null })).toMatchObject({ ok: false, error: { code: "forbidden" } });
	});

	it("opens a dropped file (path read by the preload) but not an arbitrary path", async () => {
		const { call } = await start();
		const dropped = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		expect(await call("openSession", { path: dropped })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(await call(DROP_REQUEST, { path: dropped })).toMatchObject({ ok: true, result: { path: dropped } });
	});

	it("opens the native dialog's choice and reveals files through the shell", async () => {
		const { call } = await start();
		const chosen = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		rec.dialogResult = { canceled: false, filePaths: [chosen] };
		const r = await call("showOpenDialog");
		expect(r).toMatchObject({ ok: true, result: { path: chosen } });
		await call("revealInFolder", { sessionId: (r as { result: SessionSummary }).result.sessionId });
		expect(rec.revealed).toEqual([chosen]);
		rec.dialogResult = { canceled: true, filePaths: [] };
		expect(await call("showOpenDialog")).toEqual({ ok: true, result: null });
	});

	it("forwards router events to the window on the event channel", async () => {
		const { hostApp, win } = await start();
		hostApp.router.emit({ type: "commands_changed" });
		expect(win.webContents.sent).toContainEqual([EVENT_CHANNEL, { type: "commands_changed" }]);
	});
});

describe("Electron host: menus", () => {
	it("has File ▸ Open…, Open Recent, Reveal in Folder, Save Position, Close and View commands that send menu_command", async () => {
		const { win } = await start();
		const template = rec.menuTemplates.at(-1) as MenuItem[];
		const expected: [string, string][] = [
			["Open…", "file.open"],
			["Reveal in Folder", "session.reveal"],
			["Save Position for pi", "position.save"],
			["Close Session", "session.close"],
			["Zoom to Leaf", "view.zoomToLeaf"],
			["Fit Graph", "view.fit"],
			["Command Palette…", "palette.open"],
			["No Tools", "filter.noTools"],
			["User Messages Only", "filter.userOnly"],
		];
		for (const [label, command] of expected) {
			const item = findItem(template, label);
			expect(item, label).toBeDefined();
			item?.click?.();
			expect(win.webContents.sent.at(-1)).toEqual([EVENT_CHANNEL, { type: "menu_command", command } satisfies ArborEvent]);
		}
		expect(findItem(template, "Open Recent")?.submenu).toBeDefined();
	});

	it("on macOS, Open Recent is the system's recentDocuments menu; elsewhere Arbor's list; Appearance has three choices", async () => {
		const { buildMenuTemplate } = await import("../menu");
		const actions = { command: () => {}, openRecent: () => {}, clearRecent: () => {}, setAppearance: () => {}, quit: () => {} };
		const mac = buildMenuTemplate(actions, ["/a.jsonl"], "darwin") as MenuItem[];
		expect(findItem(mac, "Open Recent")).toMatchObject({ role: "recentDocuments", submenu: [{ role: "clearRecentDocuments" }] });
		const linux = buildMenuTemplate(actions, ["/a.jsonl"], "linux", "dark") as MenuItem[];
		expect(findItem(linux, "Open Recent")?.submenu?.map((i) => i.label)).toEqual(["a.jsonl", undefined, "Clear Recent"]);
		expect(findItem(linux, "Appearance")?.submenu).toEqual([
			expect.objectContaining({ label: "Use System Setting", checked: false }),
			expect.objectContaining({ label: "Light", checked: false }),
			expect.objectContaining({ label: "Dark", checked: true }),
		]);
	});

	it("uses only command ids the renderer's registry declares", () => {
		// Menu ids are shared definitions (shared/commands.ts); renderer/test/command-meta.test.tsx checks the
		// registry declares every one of those.
		const registry = Object.keys(COMMAND_INFO);
		const ids = [
			MENU_COMMANDS.open,
			MENU_COMMANDS.library,
			MENU_COMMANDS.reveal,
			MENU_COMMANDS.savePosition,
			MENU_COMMANDS.close,
			...MENU_COMMANDS.filters.map(([id]) => id),
			MENU_COMMANDS.zoomToLeaf,
			MENU_COMMANDS.fit,
			MENU_COMMANDS.zoomIn,
			MENU_COMMANDS.zoomOut,
			MENU_COMMANDS.palette,
			MENU_COMMANDS.back,
			MENU_COMMANDS.forward,
			MENU_COMMANDS.settings,
		];
		for (const id of ids) expect(registry, id).toContain(id);
	});

	it("lists recent files in Open Recent and opens one as a user choice", async () => {
		const recent = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		mkdirSync(join(home, ".arbor"), { recursive: true });
		writeFileSync(join(home, ".arbor", "settings.json"), JSON.stringify({ recentFiles: [recent] }));
		const { win, call } = await start();
		await call("getInitialSessions"); // the page has subscribed: later opens arrive as events
		const template = rec.menuTemplates.at(-1) as MenuItem[];
		const item = findItem(template, basename(recent));
		expect(item).toBeDefined();
		item?.click?.();
		await vi.waitFor(() => expect(win.webContents.sent.some(([, e]) => (e as ArborEvent).type === "session_loaded")).toBe(true));
		const loaded = win.webContents.sent.map(([, e]) => e as ArborEvent).find((e) => e.type === "session_loaded");
		expect(loaded).toMatchObject({ session: { path: recent } });
	});
});

describe("Electron host: launch", () => {
	it("opens the bundled sample session when no file is given", async () => {
		const { call } = await start();
		const r = await call("getInitialSessions");
		const paths = (r as { result: SessionSummary[] }).result.map((s) => s.path ?? "");
		expect(paths).toHaveLength(1);
		expect(basename(paths[0])).toBe("sample-session.jsonl");
		// A copy: trying writes on the sample never touches the app's own file. The same copy in the user
		// data folder every launch (no temp folder per launch), and not listed in Open Recent.
		expect(paths[0]).toBe(join(rec.paths.get("userData") ?? "", "sample", "sample-session.jsonl"));
		expect(JSON.parse(readFileSync(join(home, ".arbor", "settings.json"), "utf8")).recentFiles).toEqual([]);
		expect(rec.recentDocuments).toEqual([]);
	});

	it("tells the user when a file from the command line cannot be opened", async () => {
		// The file exists when the command line is read and is gone by the time it is opened.
		const dir = mkdtempSync(join(tmpdir(), "arbor-eh-"));
		const gone = join(dir, "gone.jsonl");
		writeFileSync(gone, "");
		const hostApp = startElectronApp({
			argv: ["electron", "dist/main.cjs", gone],
			cwd: dir,
			servicesOptions: { settingsDir: join(home, ".arbor"), piAgentDir: join(home, ".pi"), env: {}, watch: false },
			windowStateFile: join(home, ".arbor", "window-state.json"),
		});
		rmSync(gone);
		await hostApp;
		expect(rec.messageBoxes.map((m) => m.message)).toEqual([`Arbor could not open ${gone}`]);
	});

	it("hands the second launch's files to the first instance (single-instance lock)", async () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		const { win, call } = await start();
		await call("getInitialSessions");
		rec.app.fire("second-instance", ["electron", "dist/main.cjs"], home, { files: [file] });
		await vi.waitFor(() => expect(win.webContents.sent.some(([, e]) => (e as ArborEvent).type === "session_loaded")).toBe(true));
	});

	it("quits at once when another instance holds the lock, passing its files along", async () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		rec.lockResult = false;
		const r = await startElectronApp({ argv: ["electron", "dist/main.cjs", file], cwd: home });
		expect(r).toBeNull();
		expect(rec.quit).toBe(1);
		expect(rec.lockData).toEqual({ files: [file] });
		expect(rec.windows).toEqual([]);
	});

	it("persists the window state on close and restores it on the next launch", async () => {
		const first = await start();
		first.win.fire("close");
		const saved = JSON.parse(readFileSync(join(home, ".arbor", "window-state.json"), "utf8"));
		expect(saved).toEqual({ x: 10, y: 20, width: 900, height: 700, maximized: false });
		resetFake(appRoot);
		const second = await start();
		expect(second.win.options).toMatchObject({ x: 10, y: 20, width: 900, height: 700 });
	});
});

describe("Electron host: links leaving the app", () => {
	it("lets only http, https and mailto out, never URLs with credentials that disguise the host", async () => {
		const { externalLink, confirmAndOpenExternal } = await import("../security");
		expect(externalLink("https://example.com/a?b#c")).toBe("https://example.com/a?b#c");
		expect(externalLink("mailto:a@example.com")).toBe("mailto:a@example.com");
		for (const bad of [
			"javascript:alert(1)",
			"file:///etc/passwd",
			"arbor://app/index.html",
			"data:text/html,x",
			"smb://host/share",
			"https://bank.example@evil.example/",
			"not a url",
		]) {
			expect(externalLink(bad), bad).toBeNull();
		}
		const opened: string[] = [];
		const opener = (answer: boolean) => ({ confirm: async () => answer, openExternal: async (u: string) => void opened.push(u) });
		expect(await confirmAndOpenExternal("https://example.com/", opener(false))).toBe(false);
		expect(await confirmAndOpenExternal("file:///etc/passwd", opener(true))).toBe(false);
		expect(await confirmAndOpenExternal("https://example.com/", opener(true))).toBe(true);
		expect(opened).toEqual(["https://example.com/"]);
	});
});
