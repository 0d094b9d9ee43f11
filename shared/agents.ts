// The agents whose session files Arbor reads, by format id (electron/session/formats/, docs/formats.md), with the
// name the app shows for each: the one home of those names for both ends (the session core's formats use it
// for `agentName`; the renderer for the live badge and its notices).

/** Display name per format id. */
export const AGENT_NAMES: Readonly<Record<string, string>> = { pi: "pi", omp: "oh-my-pi", claude: "Claude Code", codex: "Codex" };

/** The name shown for an agent id; an id Arbor does not know reads as "pi" (the live channel's agents are pi's family). */
export function agentDisplayName(agent: string): string {
	return Object.hasOwn(AGENT_NAMES, agent) ? AGENT_NAMES[agent] : "pi";
}
