// `arbor navigate FILE ENTRY_ID [--summarize [--prompt TEXT]] [--label TEXT] [--json]`: pi's /tree move,
// headless, through the same steering as the app (electron/services/steering) (extensions' session_before_tree / session_tree fire; a
// summary is written as pi 1.6 writes it: a branch_summary at the target whose fromId is the leaf left
// behind, with the model's usage).

import { resolve } from "node:path";
import type { NavigateResult } from "../../../shared/api";
import { EXIT_NO_MODEL, flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { openForSteering, steeringFailure } from "../live";
import { printError, printJsonLine, printLine, printText, printUsage } from "../io";

export const navigateUsage = `Usage: arbor navigate FILE ENTRY_ID [--summarize [--prompt TEXT [--replace-prompt]]] [--label TEXT] [--wait] [--no-live] [--json]

Move FILE's leaf to ENTRY_ID as pi's /tree does and print the new leaf (and the summary entry).
Selecting a user message puts the leaf on its parent (the message's text is printed as "editor text").
Without --summarize or --label nothing is written: like pi, the moved leaf only lasts until the next
entry, so the file's leaf stays where it was. With --summarize, a branch_summary of the branch being
left is written at ENTRY_ID and becomes the leaf; --label labels it (or, without a summary, ENTRY_ID).
When a running pi with Arbor's extension holds FILE, that pi moves (its own navigateTree, summarizer and
model; docs/live.md) and its leaf stays where it was moved.

Options:
  --summarize        summarize the branch being left with the model \`arbor model\` shows
  --prompt TEXT      extra instructions for the summary (with --replace-prompt: the whole prompt)
  --replace-prompt   use --prompt instead of Arbor's summary prompt
  --label TEXT       label the summary entry (or ENTRY_ID when there is no summary)
  --extension PATH   load a pi-style extension file or folder (repeatable)
  --wait             the live pi is mid-turn: wait for the turn to end instead of failing (exit 5)
  --no-live          act on the file even when a live pi holds it
  --json             print {"newLeafId","oldLeafId","summaryEntryId","cancelled","via",...} ("via":"pi" adds "pid")
  -h, --help         show this help
Exit codes: 0 moved (or already there), 1 usage, 2 bad file, 3 no model, the model failed, or an
extension cancelled the move (nothing written), 5 the live pi is mid-turn (see --wait) or refused.`;

export async function navigateCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(
		argv,
		{
			summarize: { type: "boolean" },
			prompt: { type: "string" },
			"replace-prompt": { type: "boolean" },
			label: { type: "string" },
			extension: { type: "string", multiple: true },
			wait: { type: "boolean" },
			"no-live": { type: "boolean" },
			json: { type: "boolean" },
		},
		navigateUsage,
	);
	if (flag(args, "help")) {
		printUsage(navigateUsage);
		return 0;
	}
	const [file, entryId] = positionals(args, ["FILE", "ENTRY_ID"], 0, navigateUsage);
	const prompt = stringOption(args, "prompt");
	if (prompt !== undefined && !flag(args, "summarize")) throw new UsageError("--prompt needs --summarize", navigateUsage);
	if (flag(args, "replace-prompt") && prompt === undefined) throw new UsageError("--replace-prompt needs --prompt", navigateUsage);
	const ext = args.values.extension;
	const json = flag(args, "json");
	let steered;
	try {
		steered = await openForSteering(file, navigateUsage, {
			noLive: flag(args, "no-live"),
			extensionPaths: Array.isArray(ext) ? ext.map((p) => resolve(p)) : [],
		});
	} catch (err) {
		return steeringFailure("navigate", err, navigateUsage, json);
	}
	try {
		let r: NavigateResult;
		try {
			r = await steered.steering.navigate({
				targetId: entryId as string,
				...(flag(args, "summarize") ? { summarize: true } : {}),
				...(prompt !== undefined ? { customInstructions: prompt } : {}),
				...(flag(args, "replace-prompt") ? { replaceInstructions: true } : {}),
				...(stringOption(args, "label") !== undefined ? { label: stringOption(args, "label") } : {}),
				...(flag(args, "wait") ? { waitForIdle: true } : {}),
			});
		} catch (err) {
			return steeringFailure("navigate", err, navigateUsage, json);
		}
		if (json) {
			printJsonLine(
				JSON.stringify({
					newLeafId: r.newLeafId,
					oldLeafId: r.oldLeafId,
					summaryEntryId: r.summaryEntryId ?? null,
					cancelled: r.cancelled,
					...(r.reason ? { reason: r.reason } : {}),
					...(r.noop ? { noop: true } : {}),
					...(r.editorText !== undefined ? { editorText: r.editorText } : {}),
					via: r.via ?? "file",
					...(r.pid !== undefined ? { pid: r.pid } : {}),
				}),
			);
		} else if (r.cancelled) {
			printError(`arbor navigate: cancelled (${r.reason ?? "no reason given"}); nothing was written`);
		} else {
			printLine(`leaf: ${r.newLeafId ?? "(before the first entry)"}${r.noop ? " (already there)" : ""}`);
			if (r.summaryEntryId) printLine(`summary: ${r.summaryEntryId}`);
			// The user message's own text, lines and all (its control characters escaped).
			if (r.editorText !== undefined) printText(`editor text: ${r.editorText}`);
			if (r.via === "pi") printLine(`via: pi ${r.pid}`);
		}
		return r.cancelled ? EXIT_NO_MODEL : 0;
	} finally {
		steered.close();
	}
}
