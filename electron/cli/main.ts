// electron/cli — the `arbor` command: headless access to the session core (tree, context, branch, label,
// info, sessions) and the browser host (serve). Bundled to dist/cli.cjs; run as bin/arbor.cjs.
// Exit codes: 0 ok, 1 usage error, 2 bad or unreadable session file (the message names file and line),
// 3 no usable model / the model failed / the move was cancelled (model, navigate), an extension failed to
// load (extensions).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT_BAD_FILE, EXIT_USAGE, UsageError } from "./args";
import { BadFileError, printError, printLine, printUsage } from "./io";
import { errorText } from "../../shared/guards";

const USAGE = `Usage: arbor <command> [options]

Commands:
  tree FILE        print the session tree as pi's /tree shows it (--filter, --search, --json)
  context FILE     print the model context for the leaf (--leaf ID, --json = pi's exact shape)
  branch FILE ID   write the root -> ID path to a new session file and print its path (--dir DIR)
  label FILE ID [TEXT]  set (or, without TEXT, clear) an entry's label
  navigate FILE ID  move the leaf as pi's /tree does (--summarize [--prompt TEXT], --label, --json)
  model            the model summaries use and where it came from (--json)
  compare FILE ID_A ID_B  compare two branches: ancestor, entries, tokens, cost, files, answers (--json)
  compare FILE_A FILE_B   the same across two files: two tries, a fork and its original (--leaf-a/-b ID)
  export FILE      one branch as Markdown, HTML or JSONL (--leaf ID, --format md|html|jsonl, --out PATH)
  prune FILE ID... save a copy without the branches under the given entries (--dir DIR)
  info FILE        counts by type and role, branch points, depth, leaves, warnings
  sessions [DIR...]  list pi / omp sessions grouped by project, newest first
  extensions [PATH...]  list the extensions found and loaded, with each load error (--json)
  family FILE      the files branched from / into FILE (pi /fork, omp /branch, Arbor), --json
  search QUERY [DIR...]  search the contents of every session through Arbor's index (--json)
  serve [FILE|DIR...]  open Arbor in your browser (127.0.0.1 only)
  try FILE ID      run N tries from an entry side by side, each a pi fork in its own git worktree
                   (--n, --prompt, --model, --json); try keep TRY_FILE, try discard FILE, try list
  send FILE TEXT   run a turn in the live pi that holds FILE and print its answer (--json)
  pi-extension     print the path of Arbor's pi extension (pi -e "$(arbor pi-extension)")

navigate, label and branch go through the live pi that holds FILE (pi with Arbor's extension), if one
does; --no-live acts on the file instead (docs/live.md).

Run "arbor <command> --help" for a command's options.
Exit codes: 0 ok, 1 usage error, 2 bad or unreadable session file, 3 no usable model
(model, navigate --summarize), the model failed or an extension cancelled the move, or an extension failed
to load (extensions), 4 no live agent holds the file (send), 5 the live pi is busy or refused.`;

// Each command's module is loaded only when it runs: `arbor context` never loads the browser host (ws, zod,
// the services) that `arbor serve` needs, which would otherwise cost most of a short command's start-up.
const commands: Record<string, (argv: string[]) => Promise<number>> = {
	tree: async (argv) => (await import("./commands/tree")).treeCommand(argv),
	context: async (argv) => (await import("./commands/context")).contextCommand(argv),
	branch: async (argv) => (await import("./commands/branch")).branchCommand(argv),
	label: async (argv) => (await import("./commands/label")).labelCommand(argv),
	navigate: async (argv) => (await import("./commands/navigate")).navigateCommand(argv),
	model: async (argv) => (await import("./commands/model")).modelCommand(argv),
	compare: async (argv) => (await import("./commands/compare")).compareCommand(argv),
	export: async (argv) => (await import("./commands/export")).exportCommand(argv),
	prune: async (argv) => (await import("./commands/prune")).pruneCommand(argv),
	info: async (argv) => (await import("./commands/info")).infoCommand(argv),
	sessions: async (argv) => (await import("./commands/sessions")).sessionsCommand(argv),
	extensions: async (argv) => (await import("./commands/extensions")).extensionsCommand(argv),
	family: async (argv) => (await import("./commands/family")).familyCommand(argv),
	search: async (argv) => (await import("./commands/search")).searchCommand(argv),
	send: async (argv) => (await import("./commands/send")).sendCommand(argv),
	try: async (argv) => (await import("./commands/try")).tryCommand(argv),
	"pi-extension": async (argv) => (await import("./commands/pi-extension")).piExtensionCommand(argv),
	serve: async (argv) => {
		const result: unknown = await (await import("./serve")).runServe(argv);
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
		printUsage(USAGE);
		return name === undefined ? EXIT_USAGE : 0;
	}
	if (name === "--version" || name === "-v") {
		printLine(`arbor ${version()}`);
		return 0;
	}
	const command = commands[name];
	if (!command) {
		printError(`arbor: unknown command "${name}"\n\n${USAGE}`);
		return EXIT_USAGE;
	}
	try {
		return await command(rest);
	} catch (err) {
		if (err instanceof UsageError) {
			printError(`arbor ${name}: ${err.message}${err.usage ? `\n\n${err.usage}` : ""}`);
			return EXIT_USAGE;
		}
		if (err instanceof BadFileError) {
			printError(`arbor ${name}: ${err.message}`);
			return EXIT_BAD_FILE;
		}
		if (typeof err === "object" && err !== null && (err as { code?: unknown }).code === "EPIPE") return 0;
		printError(`arbor ${name}: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
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
		printError(`arbor: ${errorText(err)}`);
		process.exitCode = EXIT_USAGE;
	},
);
