// electron/cli — the `arbor` command: headless access to the session core (tree, context, branch, label,
// info, sessions) and the browser host (serve). Bundled to dist/cli.cjs; run as bin/arbor.cjs.
// Exit codes: 0 ok, 1 usage error, 2 bad or unreadable session file (the message names file and line).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT_BAD_FILE, EXIT_USAGE, UsageError } from "./args";
import { branchCommand } from "./commands/branch";
import { compareCommand } from "./commands/compare";
import { exportCommand } from "./commands/export";
import { pruneCommand } from "./commands/prune";
import { contextCommand } from "./commands/context";
import { infoCommand } from "./commands/info";
import { labelCommand } from "./commands/label";
import { sessionsCommand } from "./commands/sessions";
import { treeCommand } from "./commands/tree";
import { BadFileError } from "./io";
import { runServe } from "./serve";

const USAGE = `Usage: arbor <command> [options]

Commands:
  tree FILE        print the session tree as pi's /tree shows it (--filter, --search, --json)
  context FILE     print the model context for the leaf (--leaf ID, --json = pi's exact shape)
  branch FILE ID   write the root -> ID path to a new session file and print its path (--dir DIR)
  label FILE ID [TEXT]  set (or, without TEXT, clear) an entry's label
  compare FILE ID_A ID_B  compare two branches: ancestor, entries, tokens, cost, files, answers (--json)
  export FILE      one branch as Markdown, HTML or JSONL (--leaf ID, --format md|html|jsonl, --out PATH)
  prune FILE ID... save a copy without the branches under the given entries (--dir DIR)
  info FILE        counts by type and role, branch points, depth, leaves, warnings
  sessions [DIR...]  list pi / omp sessions grouped by project, newest first
  serve [FILE|DIR...]  open Arbor in your browser (127.0.0.1 only)

Run "arbor <command> --help" for a command's options.
Exit codes: 0 ok, 1 usage error, 2 bad or unreadable session file.`;

const commands: Record<string, (argv: string[]) => Promise<number>> = {
	tree: treeCommand,
	context: contextCommand,
	branch: branchCommand,
	label: labelCommand,
	compare: compareCommand,
	export: exportCommand,
	prune: pruneCommand,
	info: infoCommand,
	sessions: sessionsCommand,
	serve: async (argv) => {
		const result: unknown = await runServe(argv);
		return typeof result === "number" ? result : 0;
	},
};

/** The package version, read next to the bundle (dist/cli.cjs -> package.json). */
function version(): string {
	try {
		const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as { version?: unknown };
		return typeof pkg.version === "string" ? pkg.version : "unknown";
	} catch {
		return "unknown";
	}
}

export async function main(argv: string[]): Promise<number> {
	const [name, ...rest] = argv;
	if (name === undefined || name === "--help" || name === "-h" || name === "help") {
		if (name === "help" && rest[0] && commands[rest[0]]) return commands[rest[0]](["--help"]);
		process.stdout.write(`${USAGE}\n`);
		return name === undefined ? EXIT_USAGE : 0;
	}
	if (name === "--version" || name === "-v") {
		process.stdout.write(`arbor ${version()}\n`);
		return 0;
	}
	const command = commands[name];
	if (!command) {
		process.stderr.write(`arbor: unknown command "${name}"\n\n${USAGE}\n`);
		return EXIT_USAGE;
	}
	try {
		return await command(rest);
	} catch (err) {
		if (err instanceof UsageError) {
			process.stderr.write(`arbor ${name}: ${err.message}\n${err.usage ? `\n${err.usage}\n` : ""}`);
			return EXIT_USAGE;
		}
		if (err instanceof BadFileError) {
			process.stderr.write(`arbor ${name}: ${err.message}\n`);
			return EXIT_BAD_FILE;
		}
		if (typeof err === "object" && err !== null && (err as { code?: unknown }).code === "EPIPE") return 0;
		process.stderr.write(`arbor ${name}: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
		return EXIT_USAGE;
	}
}

// `arbor tree big.jsonl | head` closes the pipe early: stop quietly, as other command-line tools do.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
	if (err.code === "EPIPE") process.exit(0);
	throw err;
});

main(process.argv.slice(2)).then(
	(code) => {
		process.exitCode = code;
	},
	(err: unknown) => {
		process.stderr.write(`arbor: ${err instanceof Error ? err.message : String(err)}\n`);
		process.exitCode = EXIT_USAGE;
	},
);
