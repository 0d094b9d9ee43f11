// What a flow (navigate, branch) is handed: the session registry, the extensions, the event stream and
// the model resolution. Flows change sessions only through `sessions.write`.

import type { EventHub } from "./events";
import type { ExtensionBridge } from "./extension-bridge";
import type { ModelResolution } from "./models";
import type { OpenSession } from "./open-session";
import type { SessionRegistry } from "./session-registry";

export interface FlowContext {
	sessions: SessionRegistry;
	extensions: ExtensionBridge;
	events: EventHub;
	/** The model a summary of session `s` would use, or why there is none (docs/summaries.md). */
	resolveModel(s: OpenSession): Promise<ModelResolution>;
}
