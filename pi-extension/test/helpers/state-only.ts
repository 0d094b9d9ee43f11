// A pi for channel tests: idle, no session file, and it answers `state` and nothing else (every other request is
// refused `unsupported`). Shared by the extension's channel tests and Arbor's side of the live channel.

import type { LiveHandlers, LiveState } from "../../../shared/live";
import { LiveRequestError } from "../../channel";

export const IDLE_STATE: LiveState = {
	pid: process.pid,
	agent: "pi",
	agentVersion: "1.6.0",
	sessionFile: null,
	sessionId: null,
	leafId: null,
	model: null,
	thinkingLevel: null,
	status: "idle",
	cwd: "/",
};

const unsupported = async (): Promise<never> => {
	throw new LiveRequestError("unsupported", "not in this test");
};

/** Handlers of a pi that answers `state` with `state` and refuses every other request. */
export function stateOnly(state: LiveState = IDLE_STATE): LiveHandlers {
	return {
		state: async () => state,
		navigate: unsupported,
		fork: unsupported,
		label: unsupported,
		send: unsupported,
		abort: unsupported,
		switchSession: unsupported,
	};
}
