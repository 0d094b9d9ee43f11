// `arbor search QUERY [DIR...] [--json]`: full-text search over every session's contents through Arbor's
// persisted index (the one the app's library uses), brought up to date first (only new tails are read).

import { homedir } from "node:os";
import { resolve } from "node:path";
import { IndexFolderError, IndexWriteError, indexedFileList, SearchIndex } from "../../services/search-index";
import { flag, parseCommandArgs, stringOption, UsageError } from "../args";
import { BadFileError, Output, printProgress, printUsage, warn } from "../io";

export const searchUsage = `Usage: arbor search QUERY [DIR...] [--json] [--limit N] [--index-dir DIR]

Search the text of every entry (prompts, answers, tool calls and results, summaries, labels) of every
session in pi's and omp's session folders, or in the given DIRs (*.jsonl in each and one level down).
Terms are ANDed; each term also matches as a prefix. The index lives in ~/.arbor/search-index and is
brought up to date before the query: new files are indexed, grown files only from their new tail,
shrunk or replaced files from scratch. One process updates an index at a time: a second one waits.
A folder that is not empty and holds no Arbor index is refused (Arbor never deletes or overwrites
files it did not write); a disk that refuses a write stops the search and keeps the index as it was.

Options:
  --json            print {"query","indexedFiles","partial","sessions":[{"path","sessionId","title","score",
                    "matchCount","matches":[{"entryId","kind","snippet","score"}]}]}
  --limit N         at most N sessions (default 20)
  --index-dir DIR   keep the index in DIR instead of ~/.arbor/search-index
  -h, --help        show this help`;

export async function searchCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { json: { type: "boolean" }, limit: { type: "string" }, "index-dir": { type: "string" } }, searchUsage);
	if (flag(args, "help")) {
		printUsage(searchUsage);
		return 0;
	}
	const [query, ...dirs] = args.positionals;
	if (query === undefined || !query.trim()) throw new UsageError("missing QUERY", searchUsage);
	const limitText = stringOption(args, "limit");
	const limit = limitText === undefined ? 20 : Number(limitText);
	if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive whole number, got "${limitText}"`, searchUsage);
	const indexDir = stringOption(args, "index-dir");
	const tty = process.stderr.isTTY;
	let result;
	try {
		const index = new SearchIndex({ indexDir: indexDir ? resolve(indexDir) : undefined, home: homedir() });
		const files = indexedFileList(dirs.map((d) => resolve(d)));
		index.update(
			files,
			(p) => {
				if (tty && p.phase === "indexing" && p.filesTotal > 20) printProgress(`indexing ${p.filesDone}/${p.filesTotal} files…`);
			},
			(holder) => warn(`search: waiting for another Arbor process${holder.pid ? ` (pid ${holder.pid})` : ""} updating the index in ${index.dir}…`),
		);
		if (tty) printProgress(null);
		result = index.search(query, { limit, files });
		// A damaged index file found by the query and rebuilt: written now, so the next query needs no rebuild.
		index.saveRepairs();
	} catch (err) {
		if (tty) printProgress(null);
		if (err instanceof IndexFolderError) throw new BadFileError(err.message);
		if (err instanceof IndexWriteError) throw new BadFileError(err.message);
		throw err;
	}
	const out = new Output();
	if (flag(args, "json")) out.jsonLine(JSON.stringify(result));
	else if (result.sessions.length === 0) warn(`no session matches "${result.query}" (${result.indexedFiles} files indexed)`);
	else {
		for (const s of result.sessions) {
			out.line(`${s.title ?? "(untitled)"}  (${s.matchCount} match${s.matchCount === 1 ? "" : "es"})`);
			out.line(`  ${s.path}`);
			for (const m of s.matches) out.line(`    ${(m.entryId ?? "-").padEnd(10)} ${m.kind.padEnd(10)} ${m.snippet}`);
		}
	}
	await out.flush();
	return 0;
}
