// Output and failure handling shared by the `arbor` commands: buffered stdout that respects pipe
// back-pressure, stderr messages, and opening a session file with errors mapped to exit codes.

import { SessionFileError, SessionManager } from "../session";
import { EXIT_BAD_FILE, UsageError } from "./args";

export { Output } from "./output";

export function warn(message: string): void {
	process.stderr.write(`arbor: ${message}\n`);
}

/** A session file that cannot be used: exit code 2 with a message naming the file (and line). */
export class BadFileError extends Error {
	readonly exitCode = EXIT_BAD_FILE;
	constructor(message: string) {
		super(message);
		this.name = "BadFileError";
	}
}

/**
 * Open a session for a command. A file without a valid session header is a bad file (exit 2) for every
 * command: the core still opens it (so the app can show what it found) but nothing in it is trustworthy.
 */
export function openSession(file: string | undefined, usage: string): SessionManager {
	if (!file) throw new UsageError("missing FILE", usage);
	let sm: SessionManager;
	try {
		sm = SessionManager.open(file);
	} catch (err) {
		if (err instanceof SessionFileError) throw new BadFileError(err.message);
		throw err;
	}
	const bad = sm.getWarnings().find((w) => w.kind === "bad_header");
	if (bad) {
		sm.close();
		throw new BadFileError(`${sm.getSessionFile() ?? file}${bad.line > 0 ? `:${bad.line}` : ""}: ${bad.message}`);
	}
	return sm;
}

/** Load warnings on stderr (at most `max`, then a count), so stdout stays clean for --json. */
export function reportWarnings(sm: SessionManager, max = 5): void {
	const file = sm.getSessionFile() ?? "";
	const warnings = sm.getWarnings();
	for (const w of warnings.slice(0, max)) warn(`${file}:${w.line}: ${w.message}`);
	const total = sm.getWarningCount();
	if (total > max) warn(`${file}: ${total - max} more warning(s); \`arbor info\` lists them`);
}

/** Map a failure of a writing command: SessionFileError -> bad file, anything else rethrown. */
export function asBadFile(err: unknown): never {
	if (err instanceof SessionFileError) {
		const hint = err.code === "legacy_needs_upgrade" ? " (open it in Arbor and upgrade it to v3 first; reading commands work as is)" : "";
		throw new BadFileError(`${err.message}${hint}`);
	}
	throw err;
}
