// Exports of one branch (root -> leaf) as Markdown, as a self-contained HTML page (every byte of session
// text escaped, inline CSS, no scripts, no remote loads: it works offline and cannot run anything), or as
// a new JSONL holding just that path (the core's createBranchedSession, so the bytes are pi's). The pruned
// copy lives in prune.ts.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ExportFormat } from "../../shared/api";
import { contentText } from "../../shared/content-text";
import type { SessionEntry } from "../../shared/entries";
import { type SessionManager, derivedFileMode, writeNewFile } from "../session";
import { runSteps } from "../session/steps";
import { type PrunedCopy, prunedCopySteps } from "./prune";
import { ArborServiceError } from "./errors";
import { titleOf } from "./open-session";
import { isRecord, safeString } from "../../shared/guards";
import { terminalText } from "../../shared/terminal-text";
import { markdownBody, markdownLine } from "./markdown-safe";

export { EXPORT_FORMATS, type ExportFormat } from "../../shared/api";

/** One readable block of the path: a heading and text (tool calls and results as code). */
interface Block {
	heading: string;
	text: string;
	code?: boolean;
	meta?: string;
}

function pathEntries(sm: SessionManager, leafId: string | undefined): { leafId: string | null; entries: SessionEntry[] } {
	const leaf = leafId ?? sm.getLeafId();
	if (leaf === null) return { leafId: null, entries: [] };
	const i = sm.indexOf(leaf);
	if (i < 0) throw new ArborServiceError("not_found", `no entry "${leaf}" in this session`);
	const entries: SessionEntry[] = [];
	for (const j of sm.pathIndices(i)) {
		const e = sm.getEntryAt(j);
		if (e) entries.push(e);
	}
	return { leafId: leaf, entries };
}

function toolCallLine(c: Record<string, unknown>): string {
	const args = isRecord(c.arguments) ? c.arguments : {};
	const p = args.path ?? args.file_path ?? args.command;
	return `${safeString(c.name)}${typeof p === "string" ? ` ${p}` : ""}`;
}

function blocksOf(entries: readonly SessionEntry[]): Block[] {
	const out: Block[] = [];
	for (const e of entries) {
		const r = e as Record<string, unknown>;
		const ts = typeof r.timestamp === "string" ? r.timestamp : undefined;
		switch (e.type) {
			case "message": {
				const m = isRecord(r.message) ? r.message : {};
				const text = contentText(m.content, "\n");
				if (m.role === "user") out.push({ heading: "User", text, meta: ts });
				else if (m.role === "assistant") {
					const calls = Array.isArray(m.content)
						? m.content.filter((c) => isRecord(c) && c.type === "toolCall").map((c) => toolCallLine(c as Record<string, unknown>))
						: [];
					const stop =
						m.stopReason === "error" || m.stopReason === "aborted"
							? ` (${String(m.stopReason)}${typeof m.errorMessage === "string" ? `: ${m.errorMessage}` : ""})`
							: "";
					if (text.trim() !== "" || stop) out.push({ heading: `Assistant${stop}`, text, meta: ts });
					if (calls.length > 0) out.push({ heading: "Tool calls", text: calls.join("\n"), code: true });
				} else if (m.role === "toolResult") {
					out.push({ heading: `Tool result: ${safeString(m.toolName ?? "")}${m.isError === true ? " (error)" : ""}`, text, code: true });
				} else if (m.role === "bashExecution") {
					out.push({
						heading: `Bash${typeof m.exitCode === "number" && m.exitCode !== 0 ? ` (exit ${m.exitCode})` : ""}`,
						text: `$ ${safeString(m.command ?? "")}\n${safeString(m.output ?? "")}`,
						code: true,
					});
				} else if (text.trim() !== "") out.push({ heading: safeString(m.role ?? "message"), text });
				break;
			}
			case "compaction":
				out.push({ heading: "Compaction summary", text: safeString(r.summary ?? ""), meta: ts });
				break;
			case "branch_summary":
				out.push({ heading: "Branch summary", text: safeString(r.summary ?? ""), meta: ts });
				break;
			case "custom_message":
				if (r.display !== false) out.push({ heading: safeString(r.customType ?? "custom message"), text: contentText(r.content, "\n") });
				break;
			default:
				break; // model/thinking changes, labels, custom state, unknown types: not part of the conversation
		}
	}
	return out;
}

function fence(text: string): string {
	let n = 3;
	for (const m of text.matchAll(/`{3,}/g)) n = Math.max(n, m[0].length + 1);
	return "`".repeat(n);
}

export function toMarkdown(title: string, blocks: readonly Block[]): string {
	// Session text never becomes markup, an unsafe link or a heading of its own (markdown-safe.ts).
	const parts = [`# ${markdownLine(title)}`, ""];
	for (const b of blocks) {
		parts.push(`## ${markdownLine(b.heading)}${b.meta ? ` · ${markdownLine(b.meta)}` : ""}`, "");
		if (b.code) {
			const text = terminalText(b.text);
			const f = fence(text);
			parts.push(f, text, f, "");
		} else parts.push(markdownBody(b.text), "");
	}
	return `${parts.join("\n").trimEnd()}\n`;
}

export function escapeHtml(s: string): string {
	return s.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"));
}

const CSS = `body{font:15px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
h1{font-size:1.4rem}section{border-left:3px solid #ccc;padding:.2rem .9rem;margin:1rem 0}
section.user{border-color:#3b82f6}section.assistant{border-color:#10b981}section.tool{border-color:#a3a3a3}
h2{font-size:.85rem;text-transform:uppercase;letter-spacing:.03em;color:#555;margin:.3rem 0}
.meta{font-weight:normal;color:#888;text-transform:none}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f5f5f5;padding:.5rem;margin:0;font:13px/1.4 ui-monospace,monospace}
@media (prefers-color-scheme:dark){body{background:#161618;color:#e5e5e5}pre{background:#222}h2{color:#aaa}}`;

export function toHtml(title: string, blocks: readonly Block[]): string {
	const sections = blocks.map((b) => {
		const cls = b.heading === "User" ? "user" : b.heading.startsWith("Assistant") ? "assistant" : "tool";
		const body = b.code ? `<pre>${escapeHtml(b.text)}</pre>` : `<div class="text">${escapeHtml(b.text)}</div>`;
		return `<section class="${cls}"><h2>${escapeHtml(b.heading)}${b.meta ? ` <span class="meta">${escapeHtml(b.meta)}</span>` : ""}</h2>${body}</section>`;
	});
	// The CSP forbids scripts, remote loads, frames and forms even if a browser misread the escaped text.
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${sections.join("\n")}
</body></html>
`;
}

/** The chosen branch in the chosen format, as bytes. */
export function exportBranch(sm: SessionManager, format: ExportFormat, leafId?: string): Buffer {
	const { leafId: leaf, entries } = pathEntries(sm, leafId);
	if (format === "jsonl") {
		if (leaf === null) throw new ArborServiceError("bad_request", "the session has no entries to export");
		// Exactly createBranchedSession's bytes: written into a private temp folder, read back, removed.
		const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-export-"));
		try {
			const file = sm.createBranchedSession(leaf, { sessionDir: tmp, adopt: false });
			if (!file) throw new ArborServiceError("unsupported", "an in-memory session cannot be exported as JSONL");
			return fs.readFileSync(file);
		} finally {
			fs.rmSync(tmp, { recursive: true, force: true });
		}
	}
	const title = titleOf(sm) ?? path.basename(sm.getSessionFile() ?? "session");
	const blocks = blocksOf(entries);
	return Buffer.from(format === "md" ? toMarkdown(title, blocks) : toHtml(title, blocks), "utf8");
}

/**
 * Write bytes to a new file; an existing file is refused (code "conflict"), never replaced. `source` is the
 * session exported: the file is no more readable than it (issue #23).
 */
export function writeExport(out: string, data: Buffer, source: string | null): string {
	const target = path.resolve(out);
	fs.mkdirSync(path.dirname(target), { recursive: true });
	writeNewFile(target, [data], derivedFileMode(source));
	return target;
}

/** A pruned copy in one piece (the CLI); the app runs prunedCopySteps in slices. */
export function savePrunedCopy(sm: SessionManager, dropIds: readonly string[], dir?: string): PrunedCopy {
	return runSteps(prunedCopySteps(sm, dropIds, dir));
}
