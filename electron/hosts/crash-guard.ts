// Keeps a host alive when extension code throws from a detached callback (a setTimeout, an event
// emitter) or leaves a promise rejection unhandled. The extension host isolates every handler it calls,
// but it cannot reach code an extension scheduled itself; without this guard one careless extension
// would take the app down with it. Writes to session files are whole-line appends and atomic renames, so
// nothing is left half-written by an exception elsewhere.

export interface CrashGuard {
	dispose(): void;
}

type Reporter = (kind: "uncaughtException" | "unhandledRejection", err: unknown) => void;

// One pair of process listeners however often a host starts (tests start hosts many times); the latest
// host's reporter is the one used.
let reporter: Reporter | null = null;
const onException = (err: unknown): void => reporter?.("uncaughtException", err);
const onRejection = (err: unknown): void => reporter?.("unhandledRejection", err);

export function installCrashGuard(report: Reporter): CrashGuard {
	if (reporter === null) {
		process.on("uncaughtException", onException);
		process.on("unhandledRejection", onRejection);
	}
	reporter = report;
	return {
		dispose() {
			if (reporter !== report) return;
			reporter = null;
			process.off("uncaughtException", onException);
			process.off("unhandledRejection", onRejection);
		},
	};
}

export function describeError(err: unknown): string {
	return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
