// What a session is called in tabs, the composer and the status bar: its name (session_info / omp
// title), else its first user message, else the file name. The full path goes in the tooltip.

import { useEffect } from "react";
import { EntryKind, type Skeleton } from "../../shared/skeleton";
import { useApp } from "../store";

const firstUserCache = new WeakMap<Skeleton, number>();

/** Index of the first user message, -1 when there is none. */
export function firstUserIndex(sk: Skeleton): number {
	const hit = firstUserCache.get(sk);
	if (hit !== undefined) return hit;
	let found = -1;
	for (let i = 0; i < sk.count; i++) {
		if (sk.kind[i] === EntryKind.user) {
			found = i;
			break;
		}
	}
	firstUserCache.set(sk, found);
	return found;
}

const lastUserCache = new WeakMap<Skeleton, number>();

/** Index of the last user message in file order, -1 when there is none. */
export function lastUserIndex(sk: Skeleton): number {
	const hit = lastUserCache.get(sk);
	if (hit !== undefined) return hit;
	let found = -1;
	for (let i = sk.count - 1; i >= 0; i--) {
		if (sk.kind[i] === EntryKind.user) {
			found = i;
			break;
		}
	}
	lastUserCache.set(sk, found);
	return found;
}

export function baseName(p: string): string {
	return p.split(/[\\/]/).pop() || p;
}

/** Short one-line form of a text (first words), for tabs and buttons. */
export function shorten(text: string, max = 40): string {
	const t = text
		.replace(/\s+/g, " ")
		.trim()
		.replace(/^(user|assistant): /, "");
	return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}

/**
 * A name shortened from the middle ("Fix the parser…rd case"), so two names that share their first words
 * still differ on screen (tabs: "h.", "A", "w." told nothing apart).
 */
export function shortenMiddle(text: string, max: number): string {
	const t = text.replace(/\s+/g, " ").trim();
	if (t.length <= max) return t;
	const head = Math.ceil((max - 1) * 0.6);
	return `${t.slice(0, head).trimEnd()}…${t.slice(t.length - (max - 1 - head)).trimStart()}`;
}

/**
 * The session's display name (fetches the needed preview). A file branched or forked from another (its
 * header names its parent: `summary.parentFile`) starts with the same messages as its parent, so its first message would
 * name it like the parent: it is named "↳ " and its last user message instead (the one it branched with),
 * or, with no message yet (a branch from the first message), "↳ new branch of" the parent.
 */
export function useSessionName(sessionId: string | null, max = 40): string {
	const session = useApp((s) => (sessionId ? s.sessions[sessionId] : undefined));
	const sk = session?.skeleton ?? null;
	const title = session?.summary.title ?? null;
	const parentPath = session?.summary.parentFile ?? null;
	const branched = !!parentPath;
	const first = sk && !title ? (branched ? lastUserIndex(sk) : firstUserIndex(sk)) : -1;
	const preview = useApp((s) => (sessionId && first >= 0 ? s.previews[sessionId]?.get(first) : undefined));
	const parent = useApp((s) => (parentPath && !title && first < 0 ? Object.values(s.sessions).find((x) => x.summary.path === parentPath) : undefined));
	const parentFirst = parent?.skeleton && !parent.summary.title ? firstUserIndex(parent.skeleton) : -1;
	const parentPreview = useApp((s) => (parent && parentFirst >= 0 ? s.previews[parent.summary.sessionId]?.get(parentFirst) : undefined));
	const ensure = useApp((s) => s.ensurePreviews);
	useEffect(() => {
		if (sessionId && first >= 0 && preview === undefined) void ensure(sessionId, [first]);
	}, [sessionId, first, preview, ensure]);
	if (!session) return "";
	if (title) return shorten(title, max);
	if (branched) {
		if (preview) return `↳ ${shorten(preview, max - 2)}`;
		if (sk && first < 0) {
			const of = parent?.summary.title ?? parentPreview ?? (parentPath ? baseName(parentPath) : "");
			return shorten(`↳ new branch of ${shorten(of, max)}`, max);
		}
	}
	if (preview) return shorten(preview, max);
	return session.summary.path ? baseName(session.summary.path) : "(in memory)";
}
