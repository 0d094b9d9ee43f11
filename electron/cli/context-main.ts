// The lean entry of `arbor context` (bundled alone to dist/cli-context.cjs; bin/arbor.cjs runs it for that
// command): the path-only reader and the printers, without the rest of the CLI and the session core, whose
// bundle costs a short command a sixth of its CPU to load and compile. It answers only what the path-only
// reader answers; everything else (help, usage errors, `--as omp`, every fallback of the reader) goes to the
// whole CLI, which prints exactly what it always did.

import { flag, parseCommandArgs, positionals, stringOption } from "./args";
import { CONTEXT_OPTIONS, printContext } from "./context-print";
import { printError } from "./output";
import { readPathContext } from "../session/formats/pi/path-reader";

/**
 * Runs `arbor context ARGV` through the path-only reader. Resolves false (nothing written) when the whole
 * CLI must run the command; after a fallback of the reader it sets ARBOR_CONTEXT_READER=full (the command's
 * own switch for the full reader) so the file is not scanned twice.
 */
export async function contextFast(argv: string[]): Promise<boolean> {
	if (process.env.ARBOR_CONTEXT_READER === "full") return false;
	let file: string | undefined, leaf: string | undefined, as: string | undefined, json: boolean;
	try {
		const args = parseCommandArgs(argv, CONTEXT_OPTIONS, "");
		if (flag(args, "help")) return false;
		[file] = positionals(args, ["FILE"], 0, "");
		leaf = stringOption(args, "leaf");
		as = stringOption(args, "as");
		json = flag(args, "json");
	} catch {
		return false;
	}
	if (!file || (as !== undefined && as !== "pi")) return false;
	let fast: ReturnType<typeof readPathContext>;
	try {
		fast = readPathContext(file, leaf, { piOnly: as === undefined });
	} catch {
		// An unexpected error: the whole CLI reads the file again and reports it as it always did.
		return false;
	}
	if (!fast.ok) {
		process.env.ARBOR_CONTEXT_READER = "full";
		return false;
	}
	// `arbor context big.jsonl | head` closes the pipe early: stop quietly, as the whole CLI does.
	process.stdout.on("error", (err: NodeJS.ErrnoException) => {
		if (err.code === "EPIPE") process.exit(0);
		throw err;
	});
	try {
		await printContext(fast.context, leaf ?? fast.leafId, json);
	} catch (err) {
		if (typeof err === "object" && err !== null && (err as { code?: unknown }).code === "EPIPE") return true;
		printError(`arbor context: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
		process.exitCode = 1;
	}
	return true;
}
