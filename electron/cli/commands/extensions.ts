// `arbor extensions [PATH...] [--json]`: the extensions Arbor finds (its own folder, pi's, the given
// paths), which of them run, and why each that failed did not load.

import type { ExtensionInfo, ExtensionListing } from "../../../shared/api";
import { ArborServices } from "../../services";
import { flag, parseCommandArgs } from "../args";
import { printJsonLine, printLine, printUsage } from "../io";

export const extensionsUsage = `Usage: arbor extensions [PATH...] [--json]

List the extensions Arbor finds and loads: ~/.arbor/extensions, each PATH (a file or folder, as
--extension), and pi's extensions (<agentDir>/extensions, the \`extensions\` and \`packages\` lists of
pi's settings.json, and the same in ./.pi when pi trusts this folder). pi's extensions run in Arbor only once enabled (Settings ▸ Extensions); each
module that failed to load is printed with its error. Exit code 3 when one failed.

Options:
  --json      print { extensions: [{ path, name, origin, package?, piEnabled?, enabled, loaded, error?, commands }],
              missing, untrustedProject? }
  -h, --help  show this help`;

export const EXIT_LOAD_ERROR = 3;

function lines(e: ExtensionInfo): string[] {
	const state = !e.enabled ? "found (not enabled)" : e.loaded ? "loaded" : "FAILED";
	const from = (e.package ? `${e.origin} ${e.package}` : e.origin) + (e.piEnabled === false ? ", off in pi's settings" : "");
	const cmds = e.commands.length > 0 ? `  commands: ${e.commands.map((c) => `/${c}`).join(" ")}` : "";
	const first = `${state.padEnd(19)} ${e.name}  [${from}]  ${e.path}${cmds}`;
	return e.error ? [first, `    error: ${e.error.split("\n")[0]}`] : [first];
}

export async function extensionsCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { json: { type: "boolean" } }, extensionsUsage);
	if (flag(args, "help")) {
		printUsage(extensionsUsage);
		return 0;
	}
	const services = new ArborServices({ extensionPaths: args.positionals, watch: false });
	let listing: ExtensionListing;
	try {
		listing = await services.listExtensions({});
	} finally {
		services.dispose();
	}
	const failed = listing.extensions.some((e) => e.enabled && !e.loaded);
	if (flag(args, "json")) {
		printJsonLine(JSON.stringify(listing, null, 2));
		return failed ? EXIT_LOAD_ERROR : 0;
	}
	if (listing.extensions.length === 0 && listing.missing.length === 0 && !listing.untrustedProject) {
		printLine("No extensions found.");
		return 0;
	}
	const out = listing.extensions.flatMap(lines);
	for (const m of listing.missing) out.push(`${"missing".padEnd(19)} ${m.source}: ${m.reason}`);
	if (listing.untrustedProject)
		out.push(`${"not trusted".padEnd(19)} ${listing.untrustedProject}/.pi: pi does not trust this project (trust it in pi), so its extensions are not listed`);
	const loaded = listing.extensions.filter((e) => e.loaded).length;
	const off = listing.extensions.filter((e) => !e.enabled).length;
	out.push("", `${loaded} loaded, ${listing.extensions.filter((e) => e.enabled && !e.loaded).length} failed, ${off} found but not enabled.`);
	for (const l of out) printLine(l);
	return failed ? EXIT_LOAD_ERROR : 0;
}
