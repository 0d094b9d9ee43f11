// Card data slice: what cards and panels show beyond the skeleton and the previews, fetched on demand and
// cached per session in the store (not in module globals), dropped when the session closes or reloads.
// - card facts (getCardFacts) for the kinds whose preview line says little (pi 1.6 system messages and
//   context edits, omp records), batched per tick;
// - usage roll-ups (getUsageRollup): pi's cache-warmer `usage` / omp's `model_usage` lines, hidden in every
//   tree mode, summed into the entry they hang under; fetched again when the file grows;
// - a file's family children by the entry they branched at (getFamily), re-read at most every 15 s.

import type { SessionFamily } from "../../shared/api";
import type { CardFacts, UsageRollup } from "../../shared/card-facts";
import { EntryKind } from "../../shared/skeleton";
import type { SliceCreator } from "./types";

/** Kinds whose card text comes from card facts (their preview line says little or nothing). */
export function needsCardFacts(kind: number): boolean {
	return kind >= EntryKind.system && kind !== EntryKind.usage;
}

export interface FamilyChild {
	path: string;
	title: string;
}

/** Children of `path` by the entry id of `path` they branched at. */
export function childrenByBranchPoint(family: SessionFamily, path: string): Map<string, FamilyChild[]> {
	const out = new Map<string, FamilyChild[]>();
	for (const m of family.members) {
		if (m.parentPath !== path || !m.branchedAtEntryId || m.outside) continue;
		const title = m.title || (m.path.split(/[\\/]/).pop() ?? m.path);
		const list = out.get(m.branchedAtEntryId);
		if (list) list.push({ path: m.path, title });
		else out.set(m.branchedAtEntryId, [{ path: m.path, title }]);
	}
	return out;
}

/** A session's usage roll-ups as of the file's `count` entries. */
export interface UsageRollups {
	count: number;
	byAnchor: ReadonlyMap<number, UsageRollup>;
}

export interface CardSlice {
	/** sessionId -> entry index -> facts (null: the main process has none). Replaced when answers arrive. */
	cardFacts: Record<string, ReadonlyMap<number, CardFacts | null>>;
	/** sessionId -> usage roll-ups. */
	usageRollups: Record<string, UsageRollups>;
	/** file path -> children branched from it, by entry id. */
	familyChildren: Record<string, ReadonlyMap<string, FamilyChild[]>>;
	/** Ask for the facts of these entries (one request per tick per session). */
	ensureCardFacts(sessionId: string, indices: readonly number[]): void;
	/** Ask for the usage roll-ups of a file of `count` entries (again when it grows). */
	ensureUsageRollups(sessionId: string, count: number): void;
	/** Read a file's family (at most every 15 s: a new fork appears without reopening the file). */
	ensureFamily(path: string): void;
	/** Forget a session's card data (closed, reloaded: indices may change meaning). */
	dropCardData(sessionId: string): void;
}

/** Re-read a file's family at most this often. */
const FAMILY_STALE_MS = 15_000;

export const createCardSlice: SliceCreator<CardSlice> = (set, get, client) => {
	// Bookkeeping of this store (this runtime), never rendered: requests waiting, in flight, and when.
	const waiting = new Map<string, Set<number>>();
	const asked = new Map<string, Set<number>>();
	const rollupCount = new Map<string, number>();
	const familyAt = new Map<string, number>();
	// Bumped when a session's data is dropped: answers to older requests are discarded.
	const generation = new Map<string, number>();
	let timer: ReturnType<typeof setTimeout> | null = null;

	const flush = (): void => {
		timer = null;
		for (const [sessionId, ids] of waiting) {
			const indices = [...ids];
			waiting.delete(sessionId);
			const gen = generation.get(sessionId) ?? 0;
			const done = (facts: (CardFacts | null)[] | null): void => {
				if ((generation.get(sessionId) ?? 0) !== gen || !get().sessions[sessionId]) return;
				set((s) => {
					const next = new Map(s.cardFacts[sessionId] ?? []);
					indices.forEach((i, k) => next.set(i, facts?.[k] ?? null));
					return { cardFacts: { ...s.cardFacts, [sessionId]: next } };
				});
			};
			client.request("getCardFacts", { sessionId, indices }).then(done, () => done(null));
		}
	};

	return {
		cardFacts: {},
		usageRollups: {},
		familyChildren: {},

		ensureCardFacts(sessionId, indices) {
			const have = get().cardFacts[sessionId];
			let flying = asked.get(sessionId);
			if (!flying) asked.set(sessionId, (flying = new Set()));
			let w = waiting.get(sessionId);
			for (const i of indices) {
				if (i < 0 || have?.has(i) || flying.has(i)) continue;
				flying.add(i);
				if (!w) waiting.set(sessionId, (w = new Set()));
				w.add(i);
			}
			if (w && !timer) timer = setTimeout(flush, 0);
		},

		ensureUsageRollups(sessionId, count) {
			if (count === 0 || get().usageRollups[sessionId]?.count === count || rollupCount.get(sessionId) === count) return;
			rollupCount.set(sessionId, count);
			const gen = generation.get(sessionId) ?? 0;
			client.request("getUsageRollup", { sessionId }).then(
				(r) => {
					// Grown or dropped meanwhile: a newer answer is on its way, or none is wanted.
					if (rollupCount.get(sessionId) !== count || (generation.get(sessionId) ?? 0) !== gen || !get().sessions[sessionId]) return;
					set((s) => ({ usageRollups: { ...s.usageRollups, [sessionId]: { count, byAnchor: new Map(r.map((u) => [u.anchor, u])) } } }));
				},
				() => undefined,
			);
		},

		ensureFamily(path) {
			const at = familyAt.get(path);
			if (at !== undefined && Date.now() - at < FAMILY_STALE_MS) return;
			familyAt.set(path, Date.now());
			client.request("getFamily", { path }).then(
				(f) => set((s) => ({ familyChildren: { ...s.familyChildren, [path]: childrenByBranchPoint(f, path) } })),
				// No family (an unreadable folder): no badge; tried again after FAMILY_STALE_MS.
				() => undefined,
			);
		},

		dropCardData(sessionId) {
			generation.set(sessionId, (generation.get(sessionId) ?? 0) + 1);
			waiting.delete(sessionId);
			asked.delete(sessionId);
			rollupCount.delete(sessionId);
			set((s) => {
				if (!s.cardFacts[sessionId] && !s.usageRollups[sessionId]) return {};
				const cardFacts = { ...s.cardFacts };
				const usageRollups = { ...s.usageRollups };
				delete cardFacts[sessionId];
				delete usageRollups[sessionId];
				return { cardFacts, usageRollups };
			});
		},
	};
};
