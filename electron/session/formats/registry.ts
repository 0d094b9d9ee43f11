// The formats Arbor reads, and which one a file is (format.ts). Most specific first: a format that detects
// nothing falls through to pi, the reference format (a headerless or damaged file is read by pi's rules,
// with warnings, as before formats existed). Foreign formats (Claude Code, Codex) are added here.

import { closeSync, constants as fsConstants, openSync, readSync } from "node:fs";
import type { FormatId, FormatProbe, Lineage, SessionFormat } from "./format";
import { PROBE_BYTES } from "./format";
import { claudeFormat } from "./claude/format";
import { codexFormat } from "./codex/format";
import { ompFormat } from "./omp/format";
import { piFormat } from "./pi/format";

/** Every format, in detection order (pi last: the fallback). */
export const FORMATS: readonly SessionFormat[] = [claudeFormat, codexFormat, ompFormat, piFormat];

/** The formats in the library's order: pi first (its roots are listed first and win duplicates), then the others. */
export const LIBRARY_FORMATS: readonly SessionFormat[] = [piFormat, ...FORMATS.filter((f) => f !== piFormat)];

/** The format with this id, or undefined. */
export function formatById(id: FormatId): SessionFormat | undefined {
	return FORMATS.find((f) => f.id === id);
}

/** The format of a file from its probe (path + first bytes): the first that detects it, else pi. */
export function detectFormat(probe: FormatProbe): SessionFormat {
	for (const f of FORMATS) if (f.detect(probe)) return f;
	return piFormat;
}

/** Reads a file's first bytes (up to PROBE_BYTES) for detection; an unreadable file gives an empty head. */
export function probeFile(path: string): FormatProbe {
	let fd: number | undefined;
	try {
		// Non-blocking: a FIFO opened for reading would wait for a writer.
		fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
		const head = Buffer.alloc(PROBE_BYTES);
		const n = readSync(fd, head, 0, head.length, 0);
		return { path, head: head.subarray(0, n) };
	} catch {
		return { path, head: Buffer.alloc(0) };
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/**
 * Where a file was forked from, by its header: what the formats' lineage rules read from it (the first that
 * reads anything, in detection order), or undefined.
 */
export function lineageOf(header: Record<string, unknown> | undefined): Lineage | undefined {
	for (const f of FORMATS) {
		const l = f.lineage(header);
		if (l) return l;
	}
	return undefined;
}

/** The context rules Arbor reproduces, by format id: pi's (the reference), then every format's own ("pi", "omp"). */
export function contextRuleIds(): string[] {
	return ["pi", ...FORMATS.filter((f) => f.buildContext).map((f) => f.id)];
}

/** The agent's display name for a format id ("oh-my-pi" for "omp"); an unknown id is shown as it is. */
export function agentNameOf(id: FormatId): string {
	return formatById(id)?.agentName ?? id;
}
