// `arbor serve [FILE|DIR]... [--port N] [--extension PATH]... [--no-open] [--exit-when-idle[=MIN]]`: the
// browser host. Prints the URL with its launch token, opens it in the default browser unless --no-open, and
// serves until Ctrl-C / SIGTERM / SIGHUP (or, with --exit-when-idle, until no page and no live pi has used it
// for a while). The browser is opened on a 0600 redirect file in a private folder, never on the URL itself: a
// command line is visible to every local user (`ps`), a file of ours is not. A plain `arbor serve [FILE]...`
// is the user's one host: a later one hands its files to it (shared-host.ts).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { arborExtensionsDir, arborHome } from "../../shared-node/paths";
import { findProgram } from "../../shared-node/programs";
import { startBrowserHost } from "../hosts/browser/server";
import { watchIdle } from "../hosts/browser/idle";
import { describeError, installCrashGuard } from "../hosts/crash-guard";
import { errorText } from "../../shared/guards";
import { printError, printText, printUsage } from "./io";
import { askHostToOpen, forgetHostRecord, HOST_RECORD, type HostRecord, newControlSecret, readHostRecord, writeHostRecord } from "./shared-host";

/** Exit codes shared with the other `arbor` commands (docs/cli.md). */
const EXIT_USAGE = 1;
const EXIT_BAD_FILE = 2;

/** Minutes without a page or a live pi after which `--exit-when-idle` stops the host (ARBOR_IDLE_MINUTES overrides). */
export const DEFAULT_IDLE_MINUTES = 10;

export const SERVE_USAGE = `Usage: arbor serve [FILE|DIR]... [--port N] [--extension PATH]... [--no-open] [--exit-when-idle[=MIN]]

Serve Arbor to your browser on 127.0.0.1 (this machine only).
  FILE             open this session file at launch
  DIR              serve the sessions in this folder (the library lists only it)
  --port N         listen on port N (default: any free port)
  --extension P    load a pi-style extension file or folder (repeatable)
  --no-open        print the URL without opening a browser
  --exit-when-idle stop after MIN minutes (default ${DEFAULT_IDLE_MINUTES}) with no page open and no live pi

With only FILEs (or nothing), Arbor already serving for you opens them as new tabs instead of starting again.
The printed URL carries a secret token: anyone with it can read the sessions you serve.`;

export interface ServeArgs {
	files: string[];
	dirs: string[];
	port: number;
	extensions: string[];
	open: boolean;
	/** --port was given (even 0): this host is the caller's own, not the user's shared one. */
	portGiven: boolean;
	/** --exit-when-idle: minutes without a page or a live pi before stopping. */
	idleMinutes: number | null;
}

export function parseServeArgs(argv: string[]): ServeArgs | { error: string } | { help: true } {
	const out: ServeArgs = { files: [], dirs: [], port: 0, extensions: [], open: true, portGiven: false, idleMinutes: null };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const value = (): string | null => (a.includes("=") ? a.slice(a.indexOf("=") + 1) : (argv[++i] ?? null));
		if (a === "--help" || a === "-h") return { help: true };
		if (a === "--no-open") out.open = false;
		else if (a === "--exit-when-idle" || a.startsWith("--exit-when-idle=")) {
			const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : (process.env.ARBOR_IDLE_MINUTES ?? String(DEFAULT_IDLE_MINUTES));
			const n = Number(v);
			if (!(n > 0)) return { error: `--exit-when-idle needs a number of minutes above 0, got ${v}` };
			out.idleMinutes = n;
		} else if (a === "--port" || a.startsWith("--port=")) {
			const v = value();
			const n = v === null ? Number.NaN : Number(v);
			if (!Number.isInteger(n) || n < 0 || n > 65535) return { error: `--port needs a number from 0 to 65535, got ${v ?? "nothing"}` };
			out.port = n;
			out.portGiven = true;
		} else if (a === "--extension" || a.startsWith("--extension=")) {
			const v = value();
			if (!v) return { error: "--extension needs a path" };
			out.extensions.push(resolve(v));
		} else if (a.startsWith("-")) return { error: `unknown option ${a}` };
		else {
			const p = resolve(a);
			let isDir: boolean;
			try {
				isDir = statSync(p).isDirectory();
			} catch {
				return { error: `no such file or folder: ${a}` };
			}
			(isDir ? out.dirs : out.files).push(p);
		}
	}
	return out;
}

function escapeHtml(s: string): string {
	return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * A page that forwards the browser to `url`, in a new folder only this user may enter (0700), itself
 * 0600 and created exclusively. Its path, which carries no secret, is what the browser is launched with.
 */
export function writeLaunchFile(url: string): { file: string; dispose(): void } {
	const dir = mkdtempSync(join(tmpdir(), "arbor-open-"));
	const file = join(dir, "open.html");
	const u = escapeHtml(url);
	writeFileSync(
		file,
		`<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">\n<meta http-equiv="refresh" content="0;url=${u}"><title>Opening Arbor…</title></head>\n<body><p><a href="${u}">Open Arbor</a></p></body></html>\n`,
		{ mode: 0o600, flag: "wx" },
	);
	return {
		file,
		dispose() {
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** Opens the browser on a new launch file for `url`; the file is removed by the returned dispose. */
function showPage(url: string): { dispose(): void } | null {
	try {
		const launch = writeLaunchFile(url);
		openInBrowser(launch.file);
		return launch;
	} catch (err) {
		printError(`Could not open a browser (${errorText(err)}): open the URL above yourself.`);
		return null;
	}
}

/** Hands the files to the user's running host; false when there is none (or it does not answer). */
async function reuseHost(arborDir: string, args: ServeArgs): Promise<number | null> {
	const record = readHostRecord(arborDir);
	if (!record) return null;
	const a = await askHostToOpen(record, args.files, args.open);
	if (a === "gone") {
		// Whatever listens on the recorded port is not the host that wrote the record: it was sent only a nonce,
		// its URL is never shown, and the record goes (if it is still the same one).
		forgetHostRecord(arborDir, record);
		printError(`arbor serve: the host recorded in ${HOST_RECORD} (pid ${record.pid}) is gone; starting a new one.`);
		return null;
	}
	if (!a) return null;
	for (const f of a.failed) printError(`arbor serve: ${f.path}: ${f.message}`);
	const where =
		a.pages > 0 ? `opened as new tabs in its page${a.pages > 1 ? "s" : ""}` : a.shown ? "its page opened in your browser" : "open the URL to see them";
	printText(`Arbor is serving on ${record.url}\n(already running for you, pid ${record.pid}: ${where}. Keep the URL private.)`);
	return a.failed.length > 0 ? EXIT_BAD_FILE : 0;
}

function openInBrowser(file: string): void {
	const [name, args] =
		process.platform === "darwin" ? ["open", [file]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", file]] : ["xdg-open", [file]];
	// The opener from an absolute PATH entry only (shared-node/programs.ts): never one in the folder we run in.
	const cmd = findProgram(name);
	if (!cmd) return printError(`Could not open a browser (${name} is not on PATH): open the URL above yourself.`);
	try {
		const child = spawn(cmd, args, { stdio: "ignore", detached: true });
		child.on("error", () => printError("Could not open a browser: open the URL above yourself."));
		child.unref();
	} catch {
		printError("Could not open a browser: open the URL above yourself.");
	}
}

function ignoreClosedReader(): void {}

/** The signals that stop a host cleanly (its record and launch files removed). */
const STOP_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** Run `arbor serve`; resolves with the exit code once the server has stopped. */
export async function runServe(argv: string[], start: typeof startBrowserHost = startBrowserHost): Promise<number> {
	const args = parseServeArgs(argv);
	if ("help" in args) {
		printUsage(SERVE_USAGE);
		return 0;
	}
	if ("error" in args) {
		printError(`arbor serve: ${args.error}\n\n${SERVE_USAGE}`);
		return EXIT_USAGE;
	}
	// A reader of our output that went away (the /arbor that started us) is no reason to stop serving.
	if (!process.stdout.listeners("error").includes(ignoreClosedReader)) process.stdout.on("error", ignoreClosedReader);
	const arborDir = arborHome();
	const shared = args.dirs.length === 0 && args.extensions.length === 0 && !args.portGiven;
	if (shared) {
		const reused = await reuseHost(arborDir, args);
		if (reused !== null) return reused;
	}
	const launches: { dispose(): void }[] = [];
	let pageUrl = "";
	const control = shared
		? {
				secret: newControlSecret(),
				showPage: () => {
					const l = showPage(pageUrl);
					if (l) launches.push(l);
				},
			}
		: undefined;
	let host;
	try {
		host = await start({ port: args.port, files: args.files, dirs: args.dirs, extensions: args.extensions, log: printError, control });
	} catch (err) {
		const e = err as NodeJS.ErrnoException;
		const why = e.code === "EADDRINUSE" ? `port ${args.port} is already in use (try --port 0)` : e.message;
		printError(`arbor serve: ${why}`);
		return EXIT_USAGE;
	}
	if (host.failed.length > 0) {
		// Same rule as the other commands: a session file argument that cannot be read is an error.
		for (const f of host.failed) printError(`arbor serve: ${f.path}: ${f.message}`);
		await host.close();
		return EXIT_BAD_FILE;
	}
	// Extension code comes from ~/.arbor/extensions (HOME at launch), the --extension paths and the pi
	// extensions the user enabled (asked at each error: they can be enabled while serving).
	const guard = installCrashGuard(
		(kind, err) => {
			printError(`arbor serve: ${kind} from an extension, still serving: ${describeError(err)}`);
		},
		{ extensionRoots: () => [arborExtensionsDir(), ...args.extensions, ...host.extensionFolders()] },
	);
	pageUrl = host.url;
	const own: HostRecord | null = control ? { pid: process.pid, port: host.port, url: host.url, secret: control.secret } : null;
	// The record goes when this process ends however it ends short of SIGKILL: a signal below, or an exit.
	const dropRecord = (): void => {
		if (own) forgetHostRecord(arborDir, own);
	};
	if (own) {
		try {
			writeHostRecord(arborDir, own);
			process.once("exit", dropRecord);
		} catch (err) {
			printError(`arbor serve: could not record this host for later launches (${errorText(err)})`);
		}
	}
	printText(`Arbor is serving on ${host.url}\n(only this machine can connect; the token in the URL is the key, keep it private. Ctrl-C stops.)`);
	if (args.open) {
		const l = showPage(host.url);
		if (l) launches.push(l);
	}

	const served = host;
	await new Promise<void>((ok) => {
		// SIGHUP too: a host started in a terminal gets it when the terminal closes, and its record must go.
		const stop = (): void => {
			for (const s of STOP_SIGNALS) process.off(s, stop);
			idle?.stop();
			ok();
		};
		const idle =
			args.idleMinutes === null
				? null
				: watchIdle(
						args.idleMinutes * 60_000,
						async () => served.pages() > 0 || (await served.anyLive()),
						() => {
							printError(`arbor serve: no page and no live pi for ${args.idleMinutes} min; stopping.`);
							stop();
						},
					);
		for (const s of STOP_SIGNALS) process.on(s, stop);
	});
	dropRecord();
	process.off("exit", dropRecord);
	guard.dispose();
	for (const l of launches) l.dispose();
	await host.close();
	return 0;
}
