// electron/services: the flows on top of the session core (open, navigate, branch, label, summaries,
// extensions, live files). The folder's face: ArborServices (arbor-services.ts) and its types; the parts
// are the session registry (session-registry.ts), the extensions (extension-bridge.ts), the flows
// (navigate-flow.ts, branch-flow.ts) and the library requests (library-requests.ts). docs/services.md.

export { ArborServices, type ArborServicesOptions } from "./arbor-services";
export { ArborServiceError } from "./errors";
export type { ResolvedModel } from "./models";
export type { ForkAnswer, Steering, SwitchAnswer, Via } from "./steering";
export { connectToHolder, LiveService } from "./live/live-service";
export { LiveConnection, LiveError } from "./live/connection";
export { defaultLiveDir, registrationsFor } from "./live/registry";
