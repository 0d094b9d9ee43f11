// Keeps a host alive when extension code throws from a detached callback (a setTimeout, an event
// emitter) or leaves a promise rejection unhandled. The extension host isolates every handler it calls,
// but it cannot reach code an extension scheduled itself; without this guard one careless extension
// would take the app down with it. Only errors thrown from extension code are swallowed: an error whose
// stack names a file under one of the extension roots (~/.arbor/extensions, `--extension PATH`). Anything
// else is a bug in Arbor (or an error of unknown origin): it is printed and the process exits non-zero,
// as Node would without the guard, so real bugs surface instead of leaving a half-working server.
// Writes to session files are whole-line appends and atomic renames, so a crash leaves nothing
// half-written.

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { arborExtensionsDir } from "../../shared-node/paths";

export interface CrashGuard {
	dispose(): void;
}

type Kind = "uncaughtException" | "unhandledRejection";
type Reporter = (kind: Kind, err: unknown) => void;

export interface CrashGuardOptions {
	/**
	 * Files and folders extension code is loaded from (default: ~/.arbor/extensions). A function is asked
	 * at each error, so extensions enabled or loaded after start-up (pi's folders) count too.
	 */
	extensionRoots?: string[] | (() => string[]);
	/** What a non-extension error does (default: print it and exit with code 1). Tests replace it. */
	onFatal?: (kind: Kind, err: unknown) => void;
}

interface Installed {
	report: Reporter;
	roots: () => string[];
	fatal: (kind: Kind, err: unknown) => void;
}

// One pair of process listeners however often a host starts (tests start hosts many times); the latest
// host's reporter is the one used.
let current: Installed | null = null;
const handle = (kind: Kind, err: unknown): void => {
	const c = current;
	if (!c) return;
	if (fromExtension(err, c.roots())) c.report(kind, err);
	else c.fatal(kind, err);
};
const onException = (err: unknown): void => handle("uncaughtException", err);
const onRejection = (err: unknown): void => handle("unhandledRejection", err);

function defaultFatal(kind: Kind, err: unknown): void {
	process.stderr.write(`Arbor: ${kind} (a bug, not from an extension): ${describeError(err)}\n`);
	process.exit(1);
}

function expandRoot(p: string): string[] {
	const abs = resolve(p);
	const out = [abs];
	try {
		const real = realpathSync(abs);
		if (real !== abs) out.push(real);
	} catch {
		// Not there (yet): the literal path is all we can match.
	}
	return out;
}

/** Whether the error's stack has a frame in a file under one of `roots`. */
export function fromExtension(err: unknown, roots: string[]): boolean {
	const stack = err instanceof Error && typeof err.stack === "string" ? err.stack : "";
	if (!stack) return false;
	const frames = stack.split("\n").slice(1);
	return roots.some((root) => frames.some((f) => f.includes(root) || f.includes(`file://${root}`)));
}

export function installCrashGuard(report: Reporter, options: CrashGuardOptions = {}): CrashGuard {
	if (current === null) {
		process.on("uncaughtException", onException);
		process.on("unhandledRejection", onRejection);
	}
	const given = options.extensionRoots ?? [arborExtensionsDir()];
	const fixed = typeof given === "function" ? undefined : given.flatMap(expandRoot);
	const roots = fixed ? () => fixed : () => (given as () => string[])().flatMap(expandRoot);
	const mine: Installed = { report, roots, fatal: options.onFatal ?? defaultFatal };
	current = mine;
	return {
		dispose() {
			if (current !== mine) return;
			current = null;
			process.off("uncaughtException", onException);
			process.off("unhandledRejection", onRejection);
		},
	};
}

export function describeError(err: unknown): string {
	return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
