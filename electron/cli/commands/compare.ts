// `arbor compare FILE ID_A ID_B [--json]`: the common ancestor of two entries, then each side from there:
// entries, tokens, cost, files read/edited/written, errors, duration; the human output adds the prompts
// side by side and a word diff of the final answers. `arbor compare FILE_A FILE_B` does the same across two
// files (a fork and its original, two tries of one run): the common ancestor is found by id, as in the app.
// Reads only.

import * as fs from "node:fs";
import { compareBranches, compareFilesResult, compareFilesView, compareView, type FileSide } from "../../services/compare";
import type { SessionManager } from "../../session";
import { flag, parseCommandArgs, positionals, UsageError } from "../args";
import { Output, openSession, printUsage, reportWarnings } from "../io";
import type { CompareSide, CompareView } from "../../../shared/compare";
import { formatSpan } from "../../../shared/rollup";

export const compareUsage = `Usage: arbor compare FILE ID_A ID_B [--json]
       arbor compare FILE_A FILE_B [--leaf-a ID] [--leaf-b ID] [--json]

Compare the branch ending at ID_A with the branch ending at ID_B: their common ancestor, then for each
side the entries after it, tokens, cost, files read/edited/written, errors and duration. Without --json
the user prompts are shown side by side and the final answers as a word diff ([-removed-] {+added+}).
With two files (a fork and its original, two tries of one run), each side is a file's current leaf, or
the entry --leaf-a / --leaf-b names; the common ancestor is the last entry both paths share (forks keep
the original's ids).

Options:
  --leaf-a ID  with two files: the entry side A ends at (default: FILE_A's leaf)
  --leaf-b ID  with two files: the entry side B ends at (default: FILE_B's leaf)
  --json       print { commonAncestorId, a, b } (docs/cli.md has the shape)
  -h, --help   show this help`;

/** The app's compare view says the same duration (shared/rollup formatSpan: "378d 16h", never "9088h 29m"). */
function fmtDuration(ms: number | null): string {
	return ms === null ? "unknown" : formatSpan(ms);
}

function oneLine(s: string, max: number): string {
	const t = s.replace(/\s+/g, " ").trim();
	return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function printSide(out: Output, name: string, s: CompareSide, aborts: number): void {
	out.line(`${name}: leaf ${s.leafId}, ${s.entries.length} entries after the ancestor`);
	out.line(
		`  tokens   ${s.tokens.total} (input ${s.tokens.input}, output ${s.tokens.output}, cache read ${s.tokens.cacheRead}, cache write ${s.tokens.cacheWrite})`,
	);
	out.line(`  cost     $${s.cost.toFixed(4)}`);
	out.line(`  errors   ${s.errors}${aborts > 0 ? `, aborted ${aborts}` : ""}`);
	out.line(`  duration ${fmtDuration(s.durationMs)}`);
	for (const k of ["read", "edited", "written"] as const) {
		out.line(`  ${k.padEnd(8)} ${s.files[k].length === 0 ? "-" : s.files[k].join(", ")}`);
	}
}

export function printCompare(out: Output, v: CompareView): void {
	out.line(`common ancestor: ${v.commonAncestorId ?? "(none: the branches share no entry)"}`);
	out.line();
	printSide(out, "A", v.a, v.aborts.a);
	out.line();
	printSide(out, "B", v.b, v.aborts.b);
	if (v.rows.length > 0) {
		out.line();
		out.line("prompts (A | B):");
		v.rows.forEach((r, k) => {
			out.line(`  ${String(k + 1).padStart(2)}. A: ${r.a ? oneLine(r.a.prompt, 70) : "-"}`);
			out.line(`      B: ${r.b ? oneLine(r.b.prompt, 70) : "-"}`);
		});
	}
	out.line();
	out.line("final answers, A -> B (word diff):");
	if (!v.finalAnswer.a.text && !v.finalAnswer.b.text) out.line("  (neither side has an assistant answer)");
	else {
		out.text(v.answerDiff.map((p) => (p.added ? `{+${p.value}+}` : p.removed ? `[-${p.value}-]` : p.value)).join(""));
	}
}

export async function compareCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { json: { type: "boolean" }, "leaf-a": { type: "string" }, "leaf-b": { type: "string" } }, compareUsage);
	if (flag(args, "help")) {
		printUsage(compareUsage);
		return 0;
	}
	if (args.positionals.length === 2) return compareTwoFiles(args.positionals[0]!, args.positionals[1]!, args.values, flag(args, "json"));
	if (args.values["leaf-a"] !== undefined || args.values["leaf-b"] !== undefined)
		throw new UsageError("--leaf-a and --leaf-b go with two files: arbor compare FILE_A FILE_B", compareUsage);
	const [file, idA, idB] = positionals(args, ["FILE", "ID_A", "ID_B"], 0, compareUsage);
	const sm = openSession(file, compareUsage);
	try {
		reportWarnings(sm);
		for (const id of [idA, idB]) if (sm.indexOf(id) < 0) throw new UsageError(`no entry "${id}" in ${sm.getSessionFile()}`, compareUsage);
		const out = new Output();
		if (flag(args, "json")) out.jsonLine(JSON.stringify(compareBranches(sm, idA, idB), null, 2));
		else printCompare(out, compareView(sm, idA, idB));
		await out.flush();
		return 0;
	} finally {
		sm.close();
	}
}

/** The two-files form. A second argument that is no file is most likely a forgotten third id: say both forms. */
async function compareTwoFiles(fileA: string, fileB: string, values: Record<string, unknown>, json: boolean): Promise<number> {
	if (!fs.existsSync(fileB))
		throw new UsageError(`no file "${fileB}" (two entries of one file: arbor compare FILE ID_A ID_B; two files: arbor compare FILE_A FILE_B)`, compareUsage);
	const opened: SessionManager[] = [];
	try {
		const side = (file: string, leaf: unknown): FileSide => {
			const sm = openSession(file, compareUsage);
			opened.push(sm);
			reportWarnings(sm);
			const leafId = typeof leaf === "string" ? leaf : null;
			if (leafId !== null && sm.indexOf(leafId) < 0) throw new UsageError(`no entry "${leafId}" in ${sm.getSessionFile()}`, compareUsage);
			if (leafId === null && sm.getLeafId() === null) throw new UsageError(`${sm.getSessionFile()} has no entries to compare`, compareUsage);
			return { sm, leafId, file: sm.getSessionFile() ?? file };
		};
		const a = side(fileA, values["leaf-a"]);
		const b = side(fileB, values["leaf-b"]);
		const out = new Output();
		if (json) out.jsonLine(JSON.stringify(compareFilesResult(a, b), null, 2));
		else {
			out.line(`A: ${a.file}`);
			out.line(`B: ${b.file}`);
			printCompare(out, compareFilesView(a, b));
		}
		await out.flush();
		return 0;
	} finally {
		for (const sm of opened) sm.close();
	}
}
