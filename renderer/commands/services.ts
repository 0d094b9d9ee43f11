// What React components need besides the store: the client, the command registry and a way to run a
// command on a target. Provided once by App through context.

import { createContext, useContext } from "react";
import type { ArborClient } from "../../shared/api";
import { makeContext, type CommandDeps, type CommandRegistry, type CommandSource } from "./registry";

export interface AppServices {
	client: ArborClient;
	registry: CommandRegistry;
	deps: CommandDeps;
	/** Run a command by id (on an explicit target entry, else the selection). */
	run(id: string, opts?: { targetId?: string | null; source?: CommandSource; args?: unknown }): Promise<boolean>;
	/** Select an entry and bring it into view on the graph. */
	reveal(entryId: string): void;
}

export function createServices(registry: CommandRegistry, deps: CommandDeps): AppServices {
	return {
		client: deps.client,
		registry,
		deps,
		run: (id, opts) => registry.run(id, makeContext(deps, opts)),
		reveal(entryId) {
			deps.store.getState().select(entryId);
			deps.graph.reveal(entryId);
		},
	};
}

export const ServicesContext = createContext<AppServices | null>(null);

export function useServices(): AppServices {
	const s = useContext(ServicesContext);
	if (!s) throw new Error("ServicesContext missing");
	return s;
}
