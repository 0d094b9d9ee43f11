// Previews slice: one-line row texts (pi's tree-selector wording) fetched in pages with getPreviews and
// cached per session. The renderer never holds full entries for the whole file (DESIGN.md "Data flow").

import { fileIndices } from "../../shared/first-skeleton";
import type { Skeleton } from "../../shared/skeleton";
import { visibleText } from "../../shared/visible-text";
import type { SliceCreator } from "./types";

/** getPreviews accepts at most this many indices per request (shared/api.ts). */
export const PREVIEW_PAGE = 2000;

export interface PreviewSlice {
	/** sessionId -> index -> text. Replaced (not mutated) when pages arrive, so selectors notice. */
	previews: Record<string, ReadonlyMap<number, string>>;
	/** Fetch the missing previews among `indices` for a session. */
	ensurePreviews(sessionId: string, indices: readonly number[]): Promise<void>;
	dropPreviews(sessionId: string): void;
	/** The whole skeleton replaced a first one: keep its texts under the file's indices (the whole one's). */
	adoptPartPreviews(sessionId: string, part: Skeleton): void;
}

export const createPreviewSlice: SliceCreator<PreviewSlice> = (set, get, client) => {
	const inFlight = new Map<string, Set<number>>();
	// Bumped when a session's cache is dropped (reload): answers to older requests are discarded.
	const generation = new Map<string, number>();

	return {
		previews: {},

		async ensurePreviews(sessionId, indices) {
			const have = get().previews[sessionId];
			const flying = inFlight.get(sessionId) ?? new Set<number>();
			inFlight.set(sessionId, flying);
			const missing = indices.filter((i) => !have?.has(i) && !flying.has(i));
			if (missing.length === 0) return;
			for (const i of missing) flying.add(i);
			const gen = generation.get(sessionId) ?? 0;
			for (let at = 0; at < missing.length; at += PREVIEW_PAGE) {
				const page = missing.slice(at, at + PREVIEW_PAGE);
				try {
					// A first skeleton's indices are its own: the file's are asked for (shared/first-skeleton.ts).
					const asked = get().sessions[sessionId]?.skeleton;
					const indices = fileIndices(asked, page);
					const texts = await client.request("getPreviews", { sessionId, indices });
					if ((generation.get(sessionId) ?? 0) !== gen) return;
					// Asked for a first skeleton that the whole one has replaced meanwhile: keyed by file index.
					const keys = asked?.first && get().sessions[sessionId]?.skeleton?.first === undefined ? indices : page;
					set((s) => {
						const next = new Map(s.previews[sessionId] ?? []);
						// Kept as shown: bidi controls and invisible characters as ⟨U+202E⟩ (issue 39). Every reader of
						// previews draws them (cards, rows, status bar, branches, announcer); none sends or writes them.
						keys.forEach((idx, k) => next.set(idx, visibleText(texts[k] ?? "")));
						return { previews: { ...s.previews, [sessionId]: next } };
					});
				} catch (err) {
					get().reportError(err);
				} finally {
					for (const i of page) flying.delete(i);
				}
			}
		},

		dropPreviews(sessionId) {
			generation.set(sessionId, (generation.get(sessionId) ?? 0) + 1);
			inFlight.delete(sessionId);
			set((s) => {
				if (!s.previews[sessionId]) return {};
				const previews = { ...s.previews };
				delete previews[sessionId];
				return { previews };
			});
		},

		adoptPartPreviews(sessionId, part) {
			const have = get().previews[sessionId];
			const at = part.first?.fileIndex;
			// Pages still on their way are kept: their answers are keyed by file index (ensurePreviews). The
			// in-flight set holds the part's indices, which mean other entries now.
			inFlight.delete(sessionId);
			// The cards the part showed keep their text across the swap instead of reading "…" until asked again.
			const next = new Map<number, string>();
			if (have && at) for (const [k, text] of have) if (k < at.length) next.set(at[k], text);
			set((s) => ({ previews: { ...s.previews, [sessionId]: next } }));
		},
	};
};
