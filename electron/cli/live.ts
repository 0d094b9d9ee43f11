// The CLI's way to steer a session (docs/cli.md, docs/live.md): `navigate`, `branch`, `label` and `send`
// open FILE through the same services as the app and steer it through the same Steering
// (electron/services/steering): the live pi with Arbor's extension that holds FILE, if any, else the file.
// `--no-live` acts on the file instead. Failures become the same exit codes for every command.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorText } from "../../shared/guards";
import { ArborServices, type Steering } from "../services";
import { EXIT_BAD_FILE, EXIT_NO_MODEL, UsageError } from "./args";
import { BadFileError, printError, printJsonLine, printLoadWarnings } from "./io";

/** `arbor send` on a file no live pi holds. */
export const EXIT_NO_LIVE = 4;
/** The live pi is running a turn (navigate / branch without --wait) or refused the request. */
export const EXIT_BUSY = 5;

export function cliClient(): { name: string; version: string } {
	try {
		const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as { version?: unknown };
		return { name: "arbor-cli", version: typeof pkg.version === "string" ? pkg.version : "unknown" };
	} catch {
		return { name: "arbor-cli", version: "unknown" };
	}
}

/** FILE open for one steering command; `close()` disconnects from pi and closes the file. */
export interface SteeredFile {
	services: ArborServices;
	sessionId: string;
	steering: Steering;
	close(): void;
}

/**
 * Open FILE through the services and choose who steers it. A pi that holds FILE but refuses the handshake
 * (another Arbor's secret, another protocol) is an error the user sees (exit 5), not a silent fall back to
 * the file; a file without a valid session header is a bad file (exit 2) as for every command.
 */
export async function openForSteering(file: string | undefined, usage: string, o: { noLive?: boolean; extensionPaths?: string[] } = {}): Promise<SteeredFile> {
	if (!file) throw new UsageError("missing FILE", usage);
	const services = new ArborServices({
		watch: false,
		recordRecent: false,
		extensionPaths: o.extensionPaths ?? [],
		liveClient: cliClient(),
		...(o.noLive ? { liveDir: null } : {}),
	});
	const refused: string[] = [];
	const off = services.onEvent((e) => {
		if (e.type === "notice" && e.source === "live") refused.push(e.message);
	});
	try {
		let summary;
		try {
			summary = await services.openSession({ path: resolve(file) });
		} catch (err) {
			throw new BadFileError(errorText(err));
		}
		const { file: path, warnings, total } = services.loadWarnings(summary.sessionId);
		const bad = warnings.find((w) => w.kind === "bad_header");
		if (bad) throw new BadFileError(`${path ?? file}${bad.line > 0 ? `:${bad.line}` : ""}: ${bad.message}`);
		printLoadWarnings(path ?? file, warnings, total);
		if (!summary.live && refused.length > 0) throw new SteeringExit(EXIT_BUSY, refused.join("; "));
		const live = summary.live;
		if (live && live.otherPids.length > 0)
			printError(`note: pis ${[live.pid, ...live.otherPids].join(", ")} all hold this file; Arbor steers the newest, ${live.pid}`);
		const steering = services.steering(summary.sessionId);
		return { services, sessionId: summary.sessionId, steering, close: () => services.dispose() };
	} catch (err) {
		services.dispose();
		throw err;
	} finally {
		off();
	}
}

/** A steering failure already worded, with its exit code. */
export class SteeringExit extends Error {
	constructor(
		readonly exitCode: number,
		message: string,
	) {
		super(message);
	}
}

/** The exit code of a steering failure (an ArborServiceError's code), the same for every command. */
export function steeringExitCode(code: unknown): number {
	if (code === "busy" || code === "unsupported" || code === "extension_error") return EXIT_BUSY;
	if (code === "no_model" || code === "llm_error" || code === "cancelled") return EXIT_NO_MODEL;
	if (code === "no_live_agent") return EXIT_NO_LIVE;
	return EXIT_BAD_FILE;
}

/**
 * Report a failed steering command: an unknown entry or a request pi or Arbor found malformed is a usage
 * error (exit 1); anything else prints `arbor COMMAND: message` (and `{"error"}` with --json) and returns
 * its exit code.
 */
export function steeringFailure(command: string, err: unknown, usage: string, json: boolean): number {
	if (err instanceof UsageError || err instanceof BadFileError) throw err;
	const code = err instanceof SteeringExit ? undefined : (err as { code?: unknown })?.code;
	let message = errorText(err);
	if (code === "not_found" || code === "bad_request") throw new UsageError(message, usage);
	if (code === "legacy_needs_upgrade") message += " (open it in Arbor and upgrade it to v3 first; reading commands work as is)";
	if (json) printJsonLine(JSON.stringify({ error: message }));
	printError(`arbor ${command}: ${message}`);
	return err instanceof SteeringExit ? err.exitCode : steeringExitCode(code);
}
