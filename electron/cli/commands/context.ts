// `arbor context FILE`: what the model would see with the leaf at a given entry (buildSessionContext),
// as pi's exact JSON shape or as a readable transcript. omp files (the session core's sessionWriter rule)
// get omp 18.3's context (buildOmpContext) unless `--as pi` is given; docs/cli.md has the omp JSON shape.

import { flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { openSession, printUsage, reportWarnings } from "../io";
import { contextRuleIds, formatById, readPathContext, sessionWriter, type OmpSessionContext } from "../../session";
import { CONTEXT_OPTIONS, printContext, printOmpContext } from "../context-print";

export const contextUsage = `Usage: arbor context FILE [--leaf ENTRY_ID] [--as pi|omp] [--json]

Print the model context (the messages sent to the LLM) for the path from the root to the leaf.
The leaf defaults to the file's leaf: its last entry, where pi and omp resume.

Options:
  --leaf ID      build the context as if ID were the leaf
  --as pi|omp    whose rules build it: pi 1.6's or omp 18.3's (default: omp's for files omp wrote, else pi's)
  --json         print exactly buildSessionContext()'s {"messages","thinkingLevel","model"} (pi's shape);
                 with omp's rules {"rules":"omp","messages","entryIds",...} (docs/cli.md)
  -h, --help     show this help`;

export async function contextCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, CONTEXT_OPTIONS, contextUsage);
	if (flag(args, "help")) {
		printUsage(contextUsage);
		return 0;
	}
	const [file] = positionals(args, ["FILE"], 0, contextUsage);
	if (!file) throw new UsageError("missing FILE", contextUsage);
	const leaf = stringOption(args, "leaf");
	const as = stringOption(args, "as");
	const rules = contextRuleIds();
	if (as !== undefined && !rules.includes(as)) throw new UsageError(`--as must be ${rules.map((r) => `"${r}"`).join(" or ")}, not "${as}"`, contextUsage);
	// The rules of the format named by --as, when it has its own (omp's); pi's otherwise.
	const asOwn = as === undefined ? undefined : formatById(as)?.buildContext;
	// The path-only reader (docs/session-core.md): it parses only the path's lines and hands every file it
	// cannot read exactly that way (damage, legacy versions, duplicate ids, ...) to SessionManager. It builds
	// pi's context only: without --as, an omp file is a fallback too and goes the full way.
	if (process.env.ARBOR_CONTEXT_READER !== "full" && !asOwn) {
		const fast = readPathContext(file, leaf, { piOnly: as === undefined });
		if (fast.ok) {
			await printContext(fast.context, leaf ?? fast.leafId, flag(args, "json"));
			return 0;
		}
	}
	const sm = openSession(file, contextUsage);
	try {
		reportWarnings(sm);
		if (leaf !== undefined && sm.indexOf(leaf) < 0) throw new UsageError(`no entry "${leaf}" in ${sm.getSessionFile()}`, contextUsage);
		const own = as === undefined ? formatById(sessionWriter(sm))?.buildContext : asOwn;
		if (own) {
			await printOmpContext(own(sm, leaf ?? sm.getLeafId()) as OmpSessionContext, leaf ?? sm.getLeafId() ?? "none", flag(args, "json"));
			return 0;
		}
		const ctx = sm.buildSessionContext(leaf ?? sm.getLeafId());
		await printContext(ctx, leaf ?? sm.getLeafId() ?? "none", flag(args, "json"));
		return 0;
	} finally {
		sm.close();
	}
}
