#!/usr/bin/env node
// `npm start [-- FILE…]` after the build: the desktop app where Electron's binary is there (or can be
// downloaded, which electron 45 does on first run), otherwise the same app in the browser through
// `arbor serve` on the given files or the bundled sample, with one line saying why.
//
// The browser host runs on a Node Arbor supports: this one, or below package.json's floor the Node 24 that
// scripts/runtimes.mjs brings from the npm registry (once, into a cache folder).
//
// Environment: ELECTRON_OVERRIDE_DIST_PATH (Electron's own: use the binary in that folder, never
// download); ARBOR_NO_BROWSER=1 prints the browser host's URL without opening a browser (tests, SSH).
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { supportedNode } from "./supported-node.mjs";

const root = resolve(import.meta.dirname, "..");
const electronPkg = join(root, "node_modules", "electron");
const args = process.argv.slice(2);

/** Electron's executable inside its dist folder (what electron's path.txt holds once downloaded). */
function platformExecutable() {
	if (process.platform === "darwin") return "Electron.app/Contents/MacOS/Electron";
	if (process.platform === "win32") return "electron.exe";
	return "electron";
}

/** The Electron binary, downloading it the way `electron` does on first run; or why there is none. */
function electronBinary() {
	if (!existsSync(join(electronPkg, "package.json"))) return { missing: "the electron package is not installed (run npm ci)" };
	const pathFile = join(electronPkg, "path.txt");
	const rel = () => (existsSync(pathFile) ? readFileSync(pathFile, "utf8").trim() : platformExecutable());
	const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
	if (override) {
		const bin = join(override, rel());
		return existsSync(bin) ? { path: bin } : { missing: `ELECTRON_OVERRIDE_DIST_PATH has no Electron binary (${bin})` };
	}
	const installed = () => existsSync(pathFile) && existsSync(join(electronPkg, "dist", rel()));
	if (installed()) return { path: join(electronPkg, "dist", rel()) };
	// On a terminal the progress note is replaced by the outcome, so a failure stays one line.
	if (process.stderr.isTTY) process.stderr.write("Arbor: downloading Electron's binary (once)…");
	const clearNote = () => process.stderr.isTTY && process.stderr.write("\r\x1b[K");
	const r = spawnSync(process.execPath, [join(electronPkg, "install.js")], { encoding: "utf8", timeout: 300_000, stdio: ["ignore", "pipe", "pipe"] });
	clearNote();
	if (r.status === 0 && installed()) return { path: join(electronPkg, "dist", rel()) };
	const first = `${r.stderr ?? ""}\n${r.stdout ?? ""}`
		.split("\n")
		.map((l) => l.trim())
		.find((l) => l && !l.startsWith("at ") && !/^Downloading/i.test(l));
	const why = r.error ? r.error.message : (first ?? `exit code ${r.status}`).replace(/^(Type|Request|Http)?Error:\s*/, "");
	return { missing: `Electron's binary is not installed and could not be downloaded (${why})` };
}

/** Electron's app-data folder on this OS (where the desktop app keeps "Arbor Dev"). */
function appDataDir() {
	if (process.platform === "win32") return process.env.APPDATA ?? join(homedir(), "AppData", "Roaming");
	if (process.platform === "darwin") return join(homedir(), "Library", "Application Support");
	return process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
}

/** The same sample copy the dev desktop app opens (its user data folder), made once. */
function sampleCopy() {
	const dest = join(appDataDir(), "Arbor Dev", "sample", "sample-session.jsonl");
	if (!existsSync(dest)) {
		mkdirSync(dirname(dest), { recursive: true });
		copyFileSync(join(root, "build", "sample-session.jsonl"), dest);
	}
	return dest;
}

function runChild(cmd, childArgs) {
	const child = spawn(cmd, childArgs, { stdio: "inherit", cwd: process.cwd() });
	for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(sig, () => child.kill(sig));
	child.on("error", (err) => {
		process.stderr.write(`Arbor: could not start ${cmd}: ${err.message}\n`);
		process.exit(1);
	});
	child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
}

const electron = electronBinary();
if ("path" in electron) {
	runChild(electron.path, [join(root, "dist", "main.cjs"), ...args]);
} else {
	const files = args.filter((a) => !a.startsWith("-") && existsSync(a) && statSync(a).isFile());
	const targets = files.length > 0 ? files : [sampleCopy()];
	process.stderr.write(`Arbor: ${electron.missing}; opening Arbor in your browser instead (arbor serve).\n`);
	let node;
	try {
		node = supportedNode();
	} catch (e) {
		process.stderr.write(`Arbor: Node.js ${process.versions.node} is too old and a newer one could not be installed: ${e.message}\n`);
		process.exit(1);
	}
	if (node !== process.execPath) process.stderr.write(`Arbor: Node.js ${process.versions.node} is older than Arbor's floor; running it on ${node}.\n`);
	runChild(node, [join(root, "bin", "arbor.cjs"), "serve", ...targets, ...(process.env.ARBOR_NO_BROWSER === "1" ? ["--no-open"] : [])]);
}
