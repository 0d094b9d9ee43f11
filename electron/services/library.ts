// The session library: session files under pi's and omp's session folders (or given folders), described
// from their first few KiB so listing thousands of files stays fast (entry counts are estimates then).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SessionListItem } from "../../shared/api";

const HEAD_BYTES = 64 * 1024;
const MAX_FILES = 5_000;

export interface LibraryOptions {
	dirs?: string[];
	piAgentDir: string;
	env: NodeJS.ProcessEnv;
}

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** pi stores a project's sessions in a folder named after its cwd: "--home-me-proj--" for /home/me/proj. */
export function decodeProjectFolder(name: string): string {
	const inner = name.replace(/^--/, "").replace(/--$/, "");
	return `/${inner.replace(/-/g, "/")}`;
}

function textOfContent(content: unknown): string | null {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return null;
	const parts = content.filter((b) => isRecord(b) && b.type === "text" && typeof b.text === "string").map((b) => (b as { text: string }).text);
	return parts.length ? parts.join(" ") : null;
}

function describe(file: string, source: SessionListItem["source"], folderProject: string | null): SessionListItem | undefined {
	let st: fs.Stats;
	try {
		st = fs.statSync(file);
	} catch {
		return undefined;
	}
	const item: SessionListItem = {
		path: file, project: folderProject ?? path.dirname(file), source, sessionId: null, title: null, firstUserMessage: null,
		mtimeMs: st.mtimeMs, size: st.size, entryCount: 0, entryCountExact: false,
	};
	let head: string;
	try {
		const fd = fs.openSync(file, "r");
		try {
			const buf = Buffer.alloc(Math.min(HEAD_BYTES, st.size));
			const n = fs.readSync(fd, buf, 0, buf.length, 0);
			head = buf.subarray(0, n).toString("utf8");
		} finally {
			fs.closeSync(fd);
		}
	} catch (err) {
		item.error = err instanceof Error ? err.message : String(err);
		return item;
	}
	const complete = st.size <= HEAD_BYTES;
	const lines = head.split("\n");
	if (!complete) lines.pop(); // the last line of a partial read is cut
	let headerSeen = false;
	let entries = 0;
	let sessionName: string | null = null;
	for (const line of lines) {
		if (!line.trim()) continue;
		let rec: unknown;
		try {
			rec = JSON.parse(line);
		} catch {
			continue;
		}
		if (!isRecord(rec)) continue;
		if (!headerSeen && rec.type === "title" && typeof rec.title === "string") {
			if (rec.title.trim()) item.title = rec.title;
			continue;
		}
		if (!headerSeen) {
			if (rec.type !== "session" || typeof rec.id !== "string") {
				item.error = "The first line is not a session header.";
				return item;
			}
			headerSeen = true;
			item.sessionId = rec.id;
			if (typeof rec.cwd === "string" && rec.cwd) item.project = rec.cwd;
			if (!item.title && typeof rec.title === "string" && rec.title.trim()) item.title = rec.title;
			continue;
		}
		entries++;
		if (rec.type === "session_info") sessionName = typeof rec.name === "string" && rec.name.trim() ? rec.name.trim() : null;
		if (item.firstUserMessage === null && rec.type === "message" && isRecord(rec.message) && rec.message.role === "user") {
			const t = textOfContent(rec.message.content);
			if (t) item.firstUserMessage = t.slice(0, 200);
		}
	}
	if (!headerSeen) {
		item.error = "No session header.";
		return item;
	}
	item.title ??= sessionName;
	if (complete) {
		item.entryCount = entries;
		item.entryCountExact = true;
	} else {
		const sampled = Buffer.byteLength(lines.join("\n"), "utf8");
		item.entryCount = sampled > 0 ? Math.round((entries * st.size) / sampled) : 0;
	}
	return item;
}

function listJsonl(dir: string): string[] {
	try {
		return fs.readdirSync(dir).filter((n) => n.endsWith(".jsonl")).map((n) => path.join(dir, n));
	} catch {
		return [];
	}
}

function subdirs(dir: string): string[] {
	try {
		return fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join(dir, d.name));
	} catch {
		return [];
	}
}

export function listSessionFiles(opts: LibraryOptions): SessionListItem[] {
	const out: SessionListItem[] = [];
	const seen = new Set<string>();
	const add = (file: string, source: SessionListItem["source"], project: string | null): void => {
		if (seen.has(file) || out.length >= MAX_FILES) return;
		seen.add(file);
		const item = describe(file, source, project);
		if (item) out.push(item);
	};
	const scanAgentDir = (sessionsDir: string, source: SessionListItem["source"]): void => {
		for (const d of subdirs(sessionsDir)) for (const f of listJsonl(d)) add(f, source, decodeProjectFolder(path.basename(d)));
		for (const f of listJsonl(sessionsDir)) add(f, source, null);
	};
	if (opts.dirs && opts.dirs.length > 0) {
		for (const d of opts.dirs) {
			for (const f of listJsonl(d)) add(f, "dir", null);
			for (const sd of subdirs(d)) for (const f of listJsonl(sd)) add(f, "dir", null);
		}
	} else {
		scanAgentDir(path.join(opts.piAgentDir, "sessions"), "pi");
		const ompDir = opts.env.OMP_CODING_AGENT_DIR ?? path.join(os.homedir(), ".omp", "agent");
		scanAgentDir(path.join(ompDir, "sessions"), "omp");
	}
	return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}
