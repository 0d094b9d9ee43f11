// `/arbor`: open pi's session file in Arbor. The desktop app when there is one: ARBOR_APP (e.g. the AppImage or
// /Applications/Arbor.app/Contents/MacOS/Arbor) overrides, else the app that recorded itself in ~/.arbor/app.json
// when it last started. Otherwise the browser host of this install (`arbor serve --exit-when-idle FILE`, else an
// `arbor` on PATH): the user's one host, started here or reused (it opens the file as a new tab), which stops by
// itself once no page and no live pi has used it for a while. Its URL comes back as the notice. Arbor finds this
// pi by its registration, so the session is live either way.

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { APP_RECORD_FILE, parseAppRecord } from "../shared/app-record";
import { arborHome } from "../shared-node/paths";
import { findProgram } from "../shared-node/programs";

const here = typeof __dirname === "string" ? __dirname : path.dirname(fileURLToPath(import.meta.url));
/** How long the browser host may take to print its URL. */
const SERVE_START_MS = 30_000;

export interface ArborLaunch {
	command: string;
	args: string[];
	how: string;
	/** The desktop app (started and left alone) or the browser host (whose URL is read from its output). */
	kind: "app" | "serve";
}

/** The desktop app the user installed: ARBOR_APP, else the one recorded in ~/.arbor/app.json (if still there). */
export function desktopApp(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string | null {
	if (env.ARBOR_APP) return env.ARBOR_APP;
	try {
		const record = parseAppRecord(readFileSync(path.join(arborHome(home), APP_RECORD_FILE), "utf8"));
		return record && existsSync(record.executable) ? record.executable : null;
	} catch {
		return null;
	}
}

export function arborCommand(file: string, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): ArborLaunch {
	const app = desktopApp(env, home);
	if (app) return { command: app, args: [file], how: `the Arbor app (${app})`, kind: "app" };
	const serve = ["serve", "--exit-when-idle", file];
	const bin = path.join(here, "..", "bin", "arbor.cjs");
	if (existsSync(bin)) return { command: process.execPath, args: [bin, ...serve], how: "Arbor in your browser", kind: "serve" };
	// An `arbor` on an absolute PATH entry only (shared-node/programs.ts): never one in pi's working folder.
	return { command: findProgram("arbor", env) ?? "arbor", args: serve, how: "Arbor in your browser", kind: "serve" };
}

export interface Notice {
	text: string;
	level: "info" | "warning";
}

/** Starts the browser host (or hands the file to the running one) and reads the two lines it prints. */
function serve(launch: ArborLaunch, name: string): Promise<Notice> {
	return new Promise((resolve) => {
		const child = spawn(launch.command, launch.args, { detached: true, stdio: ["ignore", "pipe", "ignore"] });
		let out = "";
		const done = (n: Notice): void => {
			clearTimeout(timer);
			child.stdout?.destroy();
			child.unref();
			resolve(n);
		};
		const timer = setTimeout(
			() => done({ text: `Arbor did not start within ${SERVE_START_MS / 1000} s (${launch.command}).`, level: "warning" }),
			SERVE_START_MS,
		);
		child.stdout?.setEncoding("utf8");
		child.stdout?.on("data", (d: string) => {
			out += d;
			const m = /Arbor is serving on (\S+)\n(.*)\n/.exec(out);
			if (m) done({ text: `Arbor: ${name} is open at ${m[1]}\n${m[2]}`, level: "info" });
		});
		child.once("error", (err) =>
			done({
				text: `Could not start Arbor (${launch.command}): ${err.message}. Set ARBOR_APP to the Arbor app, or install the arbor command.`,
				level: "warning",
			}),
		);
		child.once("close", (code) =>
			// `npx -y pi-arbor`: `pi install` puts no `arbor` on PATH, so that is the command a pi user can run (issue 38).
			done({
				text: `Arbor stopped before serving (exit code ${code}): run \`npx -y pi-arbor serve ${launch.args.at(-1) ?? name}\` to see why.`,
				level: "warning",
			}),
		);
	});
}

export function openInArbor(file: string): Promise<Notice> {
	const name = path.basename(file);
	// pi writes a new session's file once the first answer arrives.
	if (!existsSync(file)) return Promise.resolve({ text: "Arbor: nothing to open yet (this session has no file until pi's first answer).", level: "info" });
	const launch = arborCommand(file);
	// Only an absolute path is run: a bare name would be searched on PATH (relative entries too), a relative one
	// taken from pi's working folder.
	if (!path.isAbsolute(launch.command))
		return Promise.resolve({
			text: `Could not start Arbor (${launch.command} is not an absolute path, or not on PATH). Set ARBOR_APP to the Arbor app's full path, or install the arbor command.`,
			level: "warning",
		});
	if (launch.kind === "serve") return serve(launch, name);
	return new Promise((resolve) => {
		const child = spawn(launch.command, launch.args, { detached: true, stdio: "ignore" });
		child.once("error", (err) =>
			resolve({
				text: `Could not start Arbor (${launch.command}): ${err.message}. Set ARBOR_APP to the Arbor app, or install the arbor command.`,
				level: "warning",
			}),
		);
		child.once("spawn", () => {
			child.unref();
			resolve({ text: `Opening ${name} in ${launch.how}; it steers this pi while both run.`, level: "info" });
		});
	});
}
