// Argument parsing for the `arbor` commands: node's util.parseArgs in strict mode, with its errors turned
// into usage errors (exit code 1) that name the command.

import { parseArgs } from "node:util";
import { errorText } from "../../shared/guards";

export const EXIT_USAGE = 1;
export const EXIT_BAD_FILE = 2;
/** `arbor model` / `arbor navigate --summarize`: no usable model, the model request failed, or the move was cancelled. */
export const EXIT_NO_MODEL = 3;

/** A mistake in how the command was called: printed with the command's usage, exit code 1. */
export class UsageError extends Error {
	constructor(
		message: string,
		readonly usage?: string,
	) {
		super(message);
		this.name = "UsageError";
	}
}

export interface OptionSpec {
	[name: string]: { type: "string" | "boolean"; short?: string; multiple?: boolean };
}

export interface ParsedArgs {
	positionals: string[];
	values: Record<string, string | boolean | string[] | undefined>;
}

export function parseCommandArgs(argv: string[], options: OptionSpec, usage: string): ParsedArgs {
	try {
		const { values, positionals } = parseArgs({
			args: argv,
			options: { ...options, help: { type: "boolean", short: "h" } },
			allowPositionals: true,
			strict: true,
		});
		return { positionals, values: values as ParsedArgs["values"] };
	} catch (err) {
		throw new UsageError(errorText(err), usage);
	}
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
	const v = args.values[name];
	return typeof v === "string" ? v : undefined;
}

export function flag(args: ParsedArgs, name: string): boolean {
	return args.values[name] === true;
}

/** Exactly `min`..`max` positionals, else a usage error naming what is missing or extra. */
export function positionals(args: ParsedArgs, names: string[], optional: number, usage: string): string[] {
	const required = names.length - optional;
	if (args.positionals.length < required) throw new UsageError(`missing ${names[args.positionals.length]}`, usage);
	if (args.positionals.length > names.length) throw new UsageError(`unexpected argument: ${args.positionals[names.length]}`, usage);
	return args.positionals;
}
