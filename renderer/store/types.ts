// The store's shape: one zustand store split into slices (zustand docs, STYLE.md "State outside
// components, small selectors"). Each slice file declares its part; AppState is their union.

import type { ArborClient } from "../../shared/api";
import type { CardSlice } from "./cards";
import type { DialogSlice } from "./dialogs";
import type { FlowSlice } from "./flows";
import type { LiveSlice } from "./live";
import type { PreviewSlice } from "./previews";
import type { SessionSlice } from "./session";
import type { SettingsSlice } from "./settings";
import type { ViewSlice } from "./view";

export type AppState = SessionSlice & ViewSlice & DialogSlice & PreviewSlice & CardSlice & SettingsSlice & FlowSlice & LiveSlice;

export type SetState = (partial: Partial<AppState> | ((s: AppState) => Partial<AppState>)) => void;
export type GetState = () => AppState;

export type SliceCreator<T> = (set: SetState, get: GetState, client: ArborClient) => T;
