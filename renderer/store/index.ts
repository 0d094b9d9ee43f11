// The renderer's store (zustand, sliced): sessions + skeletons, view (filter, search, folds, selection),
// dialogs, previews and card data caches, settings, and the user flows. The ground floor of the renderer:
// it imports nothing of it but itself (docs/layers.md "Inside the renderer"). Created per client so tests get a fresh one.

import { createContext, useContext } from "react";
import { useStore } from "zustand";
import { createStore, type StoreApi } from "zustand/vanilla";
import type { ArborClient } from "../../shared/api";
import { createCardSlice } from "./cards";
import { createDialogSlice } from "./dialogs";
import { createFlowSlice } from "./flows";
import { createLiveSlice } from "./live";
import { createPreviewSlice } from "./previews";
import { createSessionSlice } from "./session";
import { createSettingsSlice } from "./settings";
import type { AppState } from "./types";
import { createViewSlice } from "./view";

export type AppStore = StoreApi<AppState>;
export type { AppState } from "./types";

export function createAppStore(client: ArborClient): AppStore {
	return createStore<AppState>()((set, get) => ({
		...createSessionSlice(set, get, client),
		...createViewSlice(set, get, client),
		...createDialogSlice(set, get, client),
		...createPreviewSlice(set, get, client),
		...createCardSlice(set, get, client),
		...createSettingsSlice(set, get, client),
		...createFlowSlice(set, get, client),
		...createLiveSlice(set, get, client),
	}));
}

export const StoreContext = createContext<AppStore | null>(null);

export function useAppStore(): AppStore {
	const store = useContext(StoreContext);
	if (!store) throw new Error("StoreContext missing: wrap the app in <StoreContext.Provider>");
	return store;
}

/** Select the smallest piece a component needs (zustand: a narrow selector re-renders only on change). */
export function useApp<T>(selector: (s: AppState) => T): T {
	return useStore(useAppStore(), selector);
}
