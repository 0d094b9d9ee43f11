// `arbor model [FILE] [--json]`: the model a summary would use, resolved exactly as the app resolves it
// (Arbor's settings, else pi 1.6's choice: for FILE, the session's own model first), and where each part
// came from. Never prints a key.

import { resolve } from "node:path";
import { ArborServices } from "../../services";
import { errorText } from "../../../shared/guards";
import { EXIT_BAD_FILE, EXIT_NO_MODEL, flag, parseCommandArgs, positionals } from "../args";
import { printError, printJsonLine, printLine, printUsage } from "../io";

export const modelUsage = `Usage: arbor model [FILE] [--json]

Print the model Arbor's summaries would use and where it came from. With FILE: the model a summary in
that session uses (as \`arbor navigate --summarize\` and the app's status bar); without: for a session
that has no model of its own, with pi's settings of the current folder.
  source  arbor-settings (~/.arbor/settings.json), pi-session (the session's own model, as pi restores
          it), pi-settings (pi's saved default), pi-automatic (pi's first provider with credentials),
          env (that choice, on an environment key)
  auth    api_key (a stored or configured key), oauth (pi's /login), env (an environment variable),
          none (a custom endpoint without a key)
Without a usable model, prints the reason on stderr and exits with code 3.

Options:
  --json      print {"provider","modelId","source","auth"} (plus "baseUrl" / "note" when set)
  -h, --help  show this help`;

export async function modelCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { json: { type: "boolean" } }, modelUsage);
	if (flag(args, "help")) {
		printUsage(modelUsage);
		return 0;
	}
	const [file] = positionals(args, ["FILE"], 1, modelUsage);
	const services = new ArborServices({ watch: false });
	try {
		let sessionId: string | undefined;
		if (file !== undefined) {
			try {
				sessionId = (await services.openSession({ path: resolve(file) })).sessionId;
			} catch (err) {
				printError(`arbor model: ${errorText(err)}`);
				return EXIT_BAD_FILE;
			}
		}
		const r = await services.modelStatus(sessionId);
		if (!r.ok) {
			if (flag(args, "json")) printJsonLine(JSON.stringify({ provider: null, modelId: null, source: null, auth: null, reason: r.reason }));
			printError(`arbor model: ${r.reason}`);
			return EXIT_NO_MODEL;
		}
		const i = r.info;
		if (flag(args, "json")) {
			printJsonLine(
				JSON.stringify({
					provider: i.provider,
					modelId: i.modelId,
					source: i.source,
					auth: i.auth,
					...(i.baseUrl ? { baseUrl: i.baseUrl } : {}),
					...(i.note ? { note: i.note } : {}),
				}),
			);
		} else {
			const lines = [`${i.provider}/${i.modelId}`, `source: ${i.source}`, `auth: ${i.auth ?? "none"}`];
			if (i.baseUrl) lines.push(`base URL: ${i.baseUrl}`);
			if (i.note) lines.push(`note: ${i.note}`);
			for (const l of lines) printLine(l);
		}
		return 0;
	} finally {
		services.dispose();
	}
}
