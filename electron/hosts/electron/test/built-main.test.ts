// The BUILT desktop main (dist/main.cjs, from `npm run build`) run in plain Node against a strict double
// of Electron (electron-double.cjs), in both layouts Electron runs it in:
// - dev: `electron dist/main.cjs [FILE]` → app.getAppPath() is <repo>/dist;
// - packaged: app.getAppPath() is the app root (here a folder shaped like app.asar's contents; the
//   electron-builder test in build/test/packaging.test.ts runs the real app.asar the same way).
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { appDataOf, startDouble, type Double, type DoubleOptions, type DoubleState } from "./double";

const repoRoot = resolve(import.meta.dirname, "..", "..", "..", "..");
const fixtures = resolve(repoRoot, "..", "shared", "fixtures", "sessions");
const builtMain = join(repoRoot, "dist", "main.cjs");

const running: Double[] = [];
afterEach(async () => {
	await Promise.all(running.splice(0).map((d) => d.stop()));
});

function tempDir(prefix: string): string {
	return mkdtempSync(join(tmpdir(), prefix));
}
function fixtureCopy(name: string): string {
	const dest = join(tempDir("arbor-bm-"), name);
	copyFileSync(join(fixtures, name), dest);
	return dest;
}

/** A folder laid out like the packaged app.asar: package.json, dist/**, build/sample-session.jsonl, node_modules. */
function packagedLikeRoot(): string {
	const resources = join(tempDir("arbor-pkg-"), "resources");
	const root = join(resources, "app.asar");
	mkdirSync(join(root, "build"), { recursive: true });
	copyFileSync(join(repoRoot, "package.json"), join(root, "package.json"));
	cpSync(join(repoRoot, "dist"), join(root, "dist"), { recursive: true });
	copyFileSync(join(repoRoot, "build", "sample-session.jsonl"), join(root, "build", "sample-session.jsonl"));
	symlinkSync(join(repoRoot, "node_modules"), join(root, "node_modules"), "dir");
	return root;
}

let packagedRoot = "";
beforeAll(() => {
	if (!existsSync(builtMain) || !existsSync(join(repoRoot, "dist", "renderer", "index.html"))) {
		throw new Error("dist/ is not built: run `npm run build` first (npm test does)");
	}
	packagedRoot = packagedLikeRoot();
});

type Layout = "dev" | "packaged";
const layouts: Layout[] = ["dev", "packaged"];

function launch(layout: Layout, o: Partial<DoubleOptions> & { home?: string } = {}): Double & { home: string } {
	const home = o.home ?? tempDir("arbor-bm-home-");
	const d = startDouble({
		layout,
		main: layout === "dev" ? builtMain : join(packagedRoot, "dist", "main.cjs"),
		appRoot: layout === "packaged" ? packagedRoot : undefined,
		home,
		...o,
	});
	running.push(d);
	return Object.assign(d, { home });
}

const windowLoaded = (s: DoubleState) => s.windows[0]?.loaded === true && s.windows[0].shown;
type Summary = { path: string; sessionId: string };
async function initialPaths(d: Double): Promise<string[]> {
	const r = await d.invoke<{ ok: boolean; result: Summary[] }>("getInitialSessions");
	expect(r.ok).toBe(true);
	return r.result.map((s) => s.path);
}

describe.each(layouts)("built dist/main.cjs, %s layout", (layout) => {
	const userDataName = layout === "dev" ? "Arbor Dev" : "Arbor";
	/** A second launch's process.argv in this layout. */
	const argvOf = (...args: string[]) => (layout === "dev" ? ["/usr/bin/electron", builtMain, ...args] : ["/usr/bin/arbor", ...args]);

	it("loads the page through arbor://, every asset of it, and a preload a sandboxed renderer can run", async () => {
		const d = launch(layout);
		await d.ready();
		const s = await d.until(windowLoaded, "loaded and showed the window");
		expect(s.violations).toEqual([]);
		const w = s.windows[0];
		expect(w.url).toBe("arbor://app/index.html");
		expect(w.assets.length).toBeGreaterThan(2); // the page, its script and its stylesheet at least
		for (const a of w.assets) expect(a.status, a.url).toBe(200);
		expect(w.assets[0].csp).toContain("default-src 'self'");
		expect(w.preloadProblems).toEqual([]);
		expect(w.options.webPreferences).toMatchObject({ sandbox: true, contextIsolation: true, nodeIntegration: false });
		expect(s.sandbox).toBe(true);
		// No white flash: a background colour before the page paints, shown only once painted.
		expect(w.options.backgroundColor).toMatch(/^#[0-9a-f]{6}$/i);
		expect(w.options.show).toBe(false);
	});

	it("a window that was maximized is maximized once painted, not while hidden (no empty flash)", async () => {
		const home = tempDir("arbor-bm-home-");
		mkdirSync(join(home, ".arbor"), { recursive: true });
		writeFileSync(join(home, ".arbor", "window-state.json"), JSON.stringify({ width: 900, height: 700, maximized: true }));
		const d = launch(layout, { home });
		await d.ready();
		const s = await d.until(windowLoaded, "loaded the window");
		expect(s.calls).toContain("maximize");
		expect(s.calls).not.toContain("maximize (before ready-to-show)");
		expect(s.calls.indexOf("loadURL arbor://app/index.html")).toBeLessThan(s.calls.indexOf("maximize"));
	});

	it(`runs under its own name and data folder (${userDataName}), and takes the single-instance lock there`, async () => {
		const d = launch(layout);
		await d.ready();
		const s = await d.until(windowLoaded, "loaded the window");
		const userData = join(appDataOf(d.home), userDataName);
		expect(s.name).toBe(userDataName);
		expect(s.paths.userData).toBe(userData);
		expect(s.lockUserData).toBe(userData);
		expect(s.violations).toEqual([]);
	});

	it("opens the bundled sample from one copy in the user data folder, kept out of Open Recent", async () => {
		const d = launch(layout);
		await d.ready();
		await d.until(windowLoaded, "loaded the window");
		const sample = join(appDataOf(d.home), userDataName, "sample", "sample-session.jsonl");
		expect(await initialPaths(d)).toEqual([sample]);
		const settings = await d.invoke<{ ok: boolean; result: { recentFiles: string[] } }>("getSettings");
		expect(settings.result.recentFiles).toEqual([]);
		expect((await d.state()).recentDocuments).toEqual([]);
		await d.stop();
		// The next launch opens the same copy: no temp folder per launch.
		const again = launch(layout, { home: d.home });
		await again.ready();
		await again.until(windowLoaded, "loaded the window");
		expect(await initialPaths(again)).toEqual([sample]);
	});

	it("registers every app event before ready (open-file and second-instance are never lost)", async () => {
		const d = launch(layout);
		await d.loaded;
		const s = await d.state();
		const before = s.calls.slice(0, s.calls.indexOf("ready") < 0 ? undefined : s.calls.indexOf("ready"));
		for (const e of ["open-file", "second-instance", "window-all-closed", "will-quit", "web-contents-created", "render-process-gone"]) {
			expect(before, e).toContain(`app.on ${e}`);
		}
		expect(before).toContain("registerSchemesAsPrivileged");
	});

	it("macOS cold launch through a file: open-file before ready opens that file, not the sample", async () => {
		const file = fixtureCopy("formic__pi-v3-branch-compaction.jsonl");
		const d = launch(layout);
		await d.loaded;
		await d.send("fire", { event: "open-file", args: [file] });
		await d.ready();
		await d.until(windowLoaded, "loaded the window");
		expect(await initialPaths(d)).toEqual([file]);
		const s = await d.state();
		expect(s.lost).toEqual([]);
		expect(s.recentDocuments).toEqual([file]);
	});

	it("shows the window at once while a launch file is still opening", async () => {
		const file = fixtureCopy("formic__pi-v3-branch-compaction.jsonl");
		const d = launch(layout, { args: [file], hold: [file] });
		await d.ready();
		const s = await d.until((st) => windowLoaded(st) && st.held.includes(file), "showed the window while the file was held");
		expect(s.windows[0].shown).toBe(true);
		// A second launch during start-up is queued, not lost.
		const other = fixtureCopy("kimchi-dev__statsuline.v3.jsonl");
		await d.send("fire", { event: "second-instance", args: [argvOf(other), d.home, { files: [other] }] });
		// The page asks for its sessions now; the answer waits for the launch file.
		const answer = d.invoke<{ ok: boolean; result: Summary[] }>("getInitialSessions");
		await d.send("release", { file });
		const r = await answer;
		expect(r.result.map((x) => x.path)).toEqual([file, other]);
		expect((await d.state()).lost).toEqual([]);
	});

	it("never sends session_loaded before the page subscribed: a file handed over meanwhile is in the first answer", async () => {
		const d = launch(layout);
		await d.ready();
		await d.until(windowLoaded, "loaded the window");
		const other = fixtureCopy("kimchi-dev__statsuline.v3.jsonl");
		await d.send("fire", { event: "second-instance", args: [argvOf(other), d.home, { files: [other] }] });
		const paths = await initialPaths(d);
		const s = await d.state();
		const delivered = s.windows[0].delivered.filter((e) => e.payload.type === "session_loaded").map((e) => e.payload.session?.path);
		expect([...paths, ...delivered]).toContain(other);
		expect(s.windows[0].dropped.filter((e) => e.payload.type === "session_loaded")).toEqual([]);
		// After the page subscribed, a handed-over file arrives as an event.
		const third = fixtureCopy("formic__pi-v3-branch-compaction.jsonl");
		await d.send("fire", { event: "second-instance", args: [argvOf(third), d.home, null] });
		const after = await d.until(
			(st) => st.windows[0].delivered.some((e) => e.payload.type === "session_loaded" && e.payload.session?.path === third),
			"delivered the third file",
		);
		expect(after.recentDocuments).toContain(third);
	});

	it("Linux %U: file:// URIs on the command line open, at launch and from a second launch", async () => {
		const file = fixtureCopy("formic__pi-v3-branch-compaction.jsonl");
		const d = launch(layout, { args: [pathToFileURL(file).href] });
		await d.ready();
		await d.until(windowLoaded, "loaded the window");
		expect(await initialPaths(d)).toEqual([file]);
		const other = fixtureCopy("kimchi-dev__statsuline.v3.jsonl");
		// What the second instance hands over: the files its own command line named (it runs the same code).
		const second = launch(layout, { args: [pathToFileURL(other).href], lockHeld: true });
		await second.loaded;
		const ss = await second.until((st) => st.calls.includes("quit"), "quit the second instance");
		expect(ss.lockData).toEqual({ files: [other] });
		expect(ss.windows).toEqual([]);
		await d.send("fire", { event: "second-instance", args: [argvOf(pathToFileURL(other).href), d.home, ss.lockData] });
		await d.until((st) => st.windows[0].delivered.some((e) => e.payload.session?.path === other), "opened the second launch's file");
	});

	it("opens links only outside the app, after a confirm, and only http/https/mailto", async () => {
		const d = launch(layout);
		await d.ready();
		await d.until(windowLoaded, "loaded the window");
		expect(await d.send("windowOpen", { url: "https://example.com/docs" })).toEqual({ action: "deny" });
		expect(await d.send("windowOpen", { url: "javascript:alert(1)" })).toEqual({ action: "deny" });
		expect(await d.send("windowOpen", { url: "file:///etc/passwd" })).toEqual({ action: "deny" });
		expect(await d.send("willNavigate", { url: "https://example.com/" })).toBe(true);
		const s = await d.until((st) => st.opened.length > 0, "opened the link");
		expect(s.opened).toEqual(["https://example.com/docs"]);
		expect(s.dialogs.filter((x) => x.detail === "https://example.com/docs")).toHaveLength(1);
	});

	it("a crashed page is logged and offered a reload; a main-process bug goes to a log file and a dialog, then the app exits 1", async () => {
		const d = launch(layout);
		await d.ready();
		await d.until(windowLoaded, "loaded the window");
		await d.send("rendererGone", { reason: "crashed" });
		await d.until((st) => st.calls.includes("reload"), "reloaded the page");
		// Thrown from no extension's file: a bug of Arbor's, which must surface instead of being swallowed.
		await d.send("throwLater", { message: "boom outside any extension" });
		const s = await d.until((st) => st.dialogs.some((x) => x.message.includes("unexpected error")), "showed the error dialog");
		expect(s.dialogs.some((x) => x.message.includes("stopped working"))).toBe(true);
		expect(s.dialogs.find((x) => x.message.includes("unexpected error"))?.message).toMatch(/has to close/);
		expect(s.exitCode).toBe(1);
		const log = join(appDataOf(d.home), userDataName, "logs", "main.log");
		await d.until(() => existsSync(log) && readFileSync(log, "utf8").includes("boom outside any extension"), "logged the error");
		expect(readFileSync(log, "utf8")).toMatch(/crashed/);
	});

	it("Appearance ▸ Dark sets nativeTheme.themeSource and is kept for the next launch (dark background)", async () => {
		const d = launch(layout);
		await d.ready();
		await d.until(windowLoaded, "loaded the window");
		expect(await d.send("clickMenu", { label: "Dark" })).toBe(true);
		expect((await d.state()).themeSource).toBe("dark");
		await d.stop();
		const again = launch(layout, { home: d.home });
		await again.ready();
		const s = await again.until(windowLoaded, "loaded the window");
		expect(s.themeSource).toBe("dark");
		expect(s.windows[0].options.backgroundColor).toBe("#16181c");
	});
});

describe("built dist/main.cjs: second instance", () => {
	it("quits before ready when another instance holds the lock, handing over its files", async () => {
		const file = fixtureCopy("formic__pi-v3-branch-compaction.jsonl");
		const d = launch("dev", { args: [file], lockHeld: true });
		await d.loaded;
		const s = await d.until((st) => st.calls.includes("quit"), "quit");
		expect(s.lockData).toEqual({ files: [file] });
		// The lock asked for is Arbor's own (dev), not the one of every unpackaged Electron app.
		expect(s.lockUserData).toBe(join(appDataOf(d.home), "Arbor Dev"));
		expect(s.windows).toEqual([]);
		expect(s.violations).toEqual([]);
	});
});
