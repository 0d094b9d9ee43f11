// pi 1.6.0's SessionManager (@earendil-works/pi-coding-agent), loaded from its dist module by path: the
// package's main entry does not load on Node 20 and its exports map hides dist/. Test-only.
import * as pi16 from "../../../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js";
import { SessionManager as Pi073SessionManager } from "@mariozechner/pi-coding-agent";

export const Pi16SessionManager = pi16.SessionManager;
export const pi16Module = pi16;

/** Both reference implementations, newest first, for tests that must agree with each. */
export const PI_REFERENCES = [
	["pi 1.6.0", pi16.SessionManager as unknown as typeof Pi073SessionManager],
	["pi 0.73.1", Pi073SessionManager],
] as const;
