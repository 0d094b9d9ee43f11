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

/** The session's display name (fetches the first user message's preview when needed). */
export function useSessionName(sessionId: string | null, max = 40): string {
	const session = useApp((s) => (sessionId ? s.sessions[sessionId] : undefined));
	const sk = session?.skeleton ?? null;
	const title = session?.summary.title ?? null;
	const first = sk && !title ? firstUserIndex(sk) : -1;
	const preview = useApp((s) => (sessionId && first >= 0 ? s.previews[sessionId]?.get(first) : undefined));
	const ensure = useApp((s) => s.ensurePreviews);
	useEffect(() => {
		if (sessionId && first >= 0 && preview === undefined) void ensure(sessionId, [first]);
	}, [sessionId, first, preview, ensure]);
	if (!session) return "";
	if (title) return shorten(title, max);
	if (preview) return shorten(preview, max);
	return session.summary.path ? baseName(session.summary.path) : "(in memory)";
}
