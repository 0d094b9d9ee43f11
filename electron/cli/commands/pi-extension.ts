// `arbor pi-extension`: the absolute path of Arbor's pi extension entry, for `pi -e PATH` or
// `pi install DIR` (docs/live.md). The extension lives next to the CLI bundle's package (dist/..).

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { flag, parseCommandArgs } from "../args";

export const piExtensionUsage = `Usage: arbor pi-extension [--dir]

Print the absolute path of Arbor's pi extension entry (pi -e "$(arbor pi-extension)"), or with --dir its
folder (pi install "$(arbor pi-extension --dir)"). With it, Arbor steers the running pi (docs/live.md).

Options:
  --dir       print the folder (a pi package) instead of the entry file
  -h, --help  show this help`;

export async function piExtensionCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { dir: { type: "boolean" } }, piExtensionUsage);
	if (flag(args, "help")) {
		process.stdout.write(`${piExtensionUsage}\n`);
		return 0;
	}
	const entry = join(__dirname, "..", "pi-extension", "index.ts");
	if (!existsSync(entry)) {
		process.stderr.write(`arbor pi-extension: the extension is missing from this install (${entry})\n`);
		return 2;
	}
	process.stdout.write(`${flag(args, "dir") ? dirname(entry) : entry}\n`);
	return 0;
}
