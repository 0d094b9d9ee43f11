// `arbor export FILE [--leaf ID] [--format md|html|jsonl] [--out PATH]`: one branch (root -> leaf, default the
// file's leaf) as Markdown, a self-contained HTML page, or a new JSONL holding just that path. Stdout
// without --out; an existing --out file is refused, never replaced. FILE is not changed.

import { EXPORT_FORMATS, type ExportFormat, exportBranch, writeExport } from "../../services/export";
import { flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { ArborServiceError } from "../../services/errors";
import { asBadFile, BadFileError, openSession, printExport, printLine, printUsage, reportWarnings } from "../io";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

export const exportUsage = `Usage: arbor export FILE [--leaf ID] [--format md|html|jsonl] [--out PATH]

Export the branch from the root to ID (default: the file's leaf, where pi resumes).
  md     Markdown: prompts, answers, tool calls and results, summaries
  html   one self-contained page: inline CSS, no scripts, no remote loads (works offline)
  jsonl  a new session file holding just that path (what "arbor branch" writes), header names FILE

Options:
  --leaf ID       the branch's last entry
  --format F      md (default), html or jsonl
  --out PATH      write to PATH (refused if it exists) instead of stdout
  -h, --help      show this help`;

export async function exportCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { leaf: { type: "string" }, format: { type: "string" }, out: { type: "string" } }, exportUsage);
	if (flag(args, "help")) {
		printUsage(exportUsage);
		return 0;
	}
	const [file] = positionals(args, ["FILE"], 0, exportUsage);
	const format = (stringOption(args, "format") ?? "md") as ExportFormat;
	if (!EXPORT_FORMATS.includes(format)) throw new UsageError(`unknown format "${format}" (md, html or jsonl)`, exportUsage);
	const out = stringOption(args, "out");
	// Refuse before doing any work; the write itself refuses again (no-clobber link) if one appears meanwhile.
	if (out !== undefined && existsSync(resolve(out)))
		throw new UsageError(`${resolve(out)} already exists; not overwriting it (choose another --out)`, exportUsage);
	const sm = openSession(file, exportUsage);
	try {
		reportWarnings(sm);
		const leaf = stringOption(args, "leaf");
		if (leaf !== undefined && sm.indexOf(leaf) < 0) throw new UsageError(`no entry "${leaf}" in ${sm.getSessionFile()}`, exportUsage);
		if (leaf === undefined && sm.getLeafId() === null && format === "jsonl")
			throw new BadFileError(`${sm.getSessionFile()}: the session has no entries to export`);
		let data: Buffer;
		try {
			data = exportBranch(sm, format, leaf);
		} catch (err) {
			if (err instanceof ArborServiceError) throw new BadFileError(err.message);
			asBadFile(err);
		}
		if (out === undefined) {
			// --out writes the export as it is; stdout may be a terminal (control characters escaped).
			await printExport(data, format === "jsonl" ? "jsonl" : "text");
			return 0;
		}
		try {
			printLine(writeExport(out, data, sm.getSessionFile() ?? null));
		} catch (err) {
			if ((err as { code?: unknown }).code === "conflict")
				throw new UsageError(`${resolve(out)} already exists; not overwriting it (choose another --out)`, exportUsage);
			if (err instanceof ArborServiceError) throw new BadFileError(err.message);
			asBadFile(err);
		}
		return 0;
	} finally {
		sm.close();
	}
}
