// Packaging, proven offline: electron-builder 26 (`--dir`, Linux) packs the app with a stand-in Electron
// distribution (`electronDist`: a folder with a fake `electron` executable that carries a fuse wire, so
// the fuses step runs for real). The test then reads the flipped fuses, unpacks the produced app.asar and
// runs its main (dist/main.cjs) against the Electron double in the packaged layout, as the built main is
// run in electron/hosts/electron/test/built-main.test.ts. Also checks the builder configuration that
// cannot be exercised here (file associations per OS, signing, icons).
import { spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appDataOf, startDouble, type Double } from "../../electron/hosts/electron/test/double";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const require = createRequire(import.meta.url);
const asar = require("@electron/asar") as {
	extractAll(archive: string, dest: string): void;
	extractFile(archive: string, file: string): Buffer;
	listPackage(archive: string, o: object): string[];
};
const fuses = require("@electron/fuses") as { getCurrentFuseWire(path: string): Promise<Record<number, number>>; FuseV1Options: Record<string, number> };
const yaml = require("js-yaml") as { load(text: string): unknown };

const SENTINEL = "dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX";
const ENABLE = 0x31;
const DISABLE = 0x30;

/** An Electron distribution stand-in: a shell script that says what it is, followed by a v1 fuse wire of 8 enabled fuses. */
function fakeElectronDist(dir: string): string {
	mkdirSync(dir, { recursive: true });
	const script = Buffer.from("#!/bin/sh\necho 'stand-in for the Electron binary (packaging test)'\nexit 0\n# ");
	const wire = Buffer.concat([Buffer.from(SENTINEL, "ascii"), Buffer.from([1, 8]), Buffer.alloc(8, ENABLE), Buffer.from("\n")]);
	writeFileSync(join(dir, "electron"), Buffer.concat([script, wire]));
	chmodSync(join(dir, "electron"), 0o755);
	writeFileSync(join(dir, "version"), "45.5.0");
	return dir;
}

function run(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
	return new Promise((ok) => {
		const child = spawn(cmd, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
		let output = "";
		child.stdout.on("data", (d: Buffer) => (output += d.toString()));
		child.stderr.on("data", (d: Buffer) => (output += d.toString()));
		child.on("close", (code) => ok({ code: code ?? 1, output }));
	});
}

const work = mkdtempSync(join(tmpdir(), "arbor-pack-"));
const out = join(work, "out");
const unpacked = join(out, "linux-unpacked");
let build: { code: number; output: string };
const doubles: Double[] = [];

beforeAll(async () => {
	if (!existsSync(join(repoRoot, "dist", "main.cjs"))) throw new Error("dist/ is not built: run `npm run build` first (npm test does)");
	const dist = fakeElectronDist(join(work, "electron-dist"));
	build = await run(
		process.execPath,
		[
			join(repoRoot, "node_modules", "electron-builder", "cli.js"),
			"--config",
			"build/electron-builder.yml",
			"--dir",
			"--linux",
			"--x64",
			`-c.electronDist=${dist}`,
			`-c.directories.output=${out}`,
		],
		{ CI: "1", ELECTRON_BUILDER_CACHE: join(work, "cache") },
	);
}, 300_000);

afterAll(async () => {
	await Promise.all(doubles.map((d) => d.stop()));
});

describe("electron-builder --dir with a stand-in Electron", () => {
	it("packs offline: renamed executable, fuses flipped, bundles + renderer + sample + runtime dependencies in app.asar (no source maps), desktopName for Linux", async () => {
		expect(build.code, build.output).toBe(0);
		expect(existsSync(join(unpacked, "arbor"))).toBe(true);
		const archive = join(unpacked, "resources", "app.asar");
		expect(existsSync(archive)).toBe(true);

		// No ELECTRON_RUN_AS_NODE, NODE_OPTIONS or --inspect; the app only from the asar, integrity checked.
		const wire = await fuses.getCurrentFuseWire(join(unpacked, "arbor"));
		const F = fuses.FuseV1Options;
		expect(wire[F.RunAsNode]).toBe(DISABLE);
		expect(wire[F.EnableNodeOptionsEnvironmentVariable]).toBe(DISABLE);
		expect(wire[F.EnableNodeCliInspectArguments]).toBe(DISABLE);
		expect(wire[F.EnableCookieEncryption]).toBe(ENABLE);
		expect(wire[F.EnableEmbeddedAsarIntegrityValidation]).toBe(ENABLE);
		expect(wire[F.OnlyLoadAppFromAsar]).toBe(ENABLE);
		expect(wire[F.GrantFileProtocolExtraPrivileges]).toBe(DISABLE);

		const files = new Set(asar.listPackage(archive, {}).map((f) => f.replaceAll("\\", "/")));
		for (const f of [
			"/package.json",
			"/dist/main.cjs",
			"/dist/preload.cjs",
			"/dist/cli.cjs",
			"/dist/renderer/index.html",
			"/build/sample-session.jsonl",
			"/node_modules/ws/package.json",
			"/node_modules/electron-updater/package.json",
		]) {
			expect(files.has(f), f).toBe(true);
		}
		expect([...files].filter((f) => f.endsWith(".map") && f.startsWith("/dist/"))).toEqual([]);
		expect([...files].some((f) => f.startsWith("/node_modules/react/"))).toBe(false); // bundled by vite, not shipped
		// The pi extension ships outside the asar (pi cannot load from one), with the shared code it imports, no tests.
		const piArbor = join(unpacked, "resources", "pi-arbor");
		for (const f of [
			"pi-extension/index.ts",
			"pi-extension/package.json",
			"pi-extension/open-arbor.ts",
			"shared/live.ts",
			"shared/app-record.ts",
			"shared-node/live-files.ts",
			"shared-node/paths.ts",
		]) {
			expect(existsSync(join(piArbor, f)), f).toBe(true);
		}
		expect(existsSync(join(piArbor, "pi-extension", "test"))).toBe(false);
		expect(existsSync(join(piArbor, "shared", "test"))).toBe(false);
		expect([...files].some((f) => f.startsWith("/pi-extension/"))).toBe(false);
		// Electron on Linux ties the window to the desktop entry through package.json's desktopName.
		const pkg = JSON.parse(asar.extractFile(archive, "package.json").toString("utf8")) as { desktopName?: string; main?: string };
		expect(pkg).toMatchObject({ desktopName: "arbor.desktop", main: "dist/main.cjs" });
	});

	it("runs the packaged main from the unpacked app.asar: page, assets, preload, sample, own data folder", async () => {
		const appRoot = join(work, "run", "resources", "app.asar");
		mkdirSync(join(work, "run", "resources"), { recursive: true });
		asar.extractAll(join(unpacked, "resources", "app.asar"), appRoot);
		cpSync(join(unpacked, "resources", "pi-arbor"), join(work, "run", "resources", "pi-arbor"), { recursive: true });
		const home = mkdtempSync(join(tmpdir(), "arbor-pack-home-"));
		const d = startDouble({ layout: "packaged", main: join(appRoot, "dist", "main.cjs"), appRoot, home });
		doubles.push(d);
		await d.ready();
		const s = await d.until((st) => st.windows[0]?.loaded === true && st.windows[0].shown, "loaded the packaged window");
		expect(s.violations).toEqual([]);
		const w = s.windows[0];
		for (const a of w.assets) expect(a.status, a.url).toBe(200);
		expect(w.preloadProblems).toEqual([]);
		expect(w.options.webPreferences.preload).toBe(join(appRoot, "dist", "preload.cjs"));
		expect(s.paths.userData).toBe(join(appDataOf(home), "Arbor"));
		const r = await d.invoke<{ ok: boolean; result: { path: string }[] }>("getInitialSessions");
		expect(r.result.map((x) => x.path)).toEqual([join(appDataOf(home), "Arbor", "sample", "sample-session.jsonl")]);

		// It records where it is installed for /arbor (0600), with its copy of the pi extension; Settings offers
		// the exact command that installs that copy into pi.
		const extension = join(work, "run", "resources", "pi-arbor", "pi-extension");
		const record = join(home, ".arbor", "app.json");
		expect(statSync(record).mode & 0o777).toBe(0o600);
		const app = JSON.parse(readFileSync(record, "utf8")) as { executable?: string; version?: string; extension?: string };
		expect(app).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/), extension });
		expect(app?.executable).toBeTruthy();
		const pi = await d.invoke<{ ok: boolean; result: { extension: string; command: string } }>("getPiConnection");
		expect(pi.result).toEqual({ extension, command: `pi install ${extension}` });
	});
});

describe("builder configuration for what cannot be built here", () => {
	const config = yaml.load(readFileSync(join(repoRoot, "build", "electron-builder.yml"), "utf8")) as {
		fileAssociations: { ext: string; mimeType?: string; rank?: string; role?: string }[];
		nsis: { perMachine?: boolean };
		electronFuses: { resetAdHocDarwinSignature?: boolean };
		directories: { buildResources: string };
	};

	it("associates .jsonl per OS: a MIME type for Linux, rank Alternate on macOS, per-machine NSIS on Windows", () => {
		expect(config.fileAssociations).toEqual([expect.objectContaining({ ext: "jsonl", mimeType: "application/jsonl", rank: "Alternate", role: "Viewer" })]);
		expect(config.nsis.perMachine).toBe(true);
	});

	it("re-signs ad hoc after flipping fuses (unsigned arm64 macOS builds launch)", () => {
		expect(config.electronFuses.resetAdHocDarwinSignature).toBe(true);
	});

	it("has the icons electron-builder looks for in buildResources: 512 px PNG, ICNS, ICO with 256 px", () => {
		const dir = join(repoRoot, config.directories.buildResources);
		const png = readFileSync(join(dir, "icon.png"));
		expect(png.subarray(1, 4).toString("ascii")).toBe("PNG");
		expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
		const icns = readFileSync(join(dir, "icon.icns"));
		expect(icns.subarray(0, 4).toString("ascii")).toBe("icns");
		expect(icns.readUInt32BE(4)).toBe(icns.length);
		expect(icns.includes(Buffer.from("ic09"))).toBe(true); // 512 px
		const ico = readFileSync(join(dir, "icon.ico"));
		expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
		const sizes = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => ico[6 + 16 * i] || 256);
		expect(sizes).toContain(256);
	});
});
