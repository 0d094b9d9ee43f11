// What a host or the CLI can set when it creates ArborServices (arbor-services.ts).

export interface ArborServicesOptions {
	/** Arbor's own folder (settings.json, extensions/). Default ~/.arbor. */
	settingsDir?: string;
	/** pi's agent folder (settings.json, auth.json, models.json). Default $PI_CODING_AGENT_DIR or ~/.pi/agent. */
	piAgentDir?: string;
	/** Extra extension files or folders (`--extension PATH`). */
	extensionPaths?: string[];
	/** Environment for provider keys (default process.env). */
	env?: NodeJS.ProcessEnv;
	/** Watch open files for appends by other processes (default true). */
	watch?: boolean;
	/** Stat-poll interval of the file watcher, ms (default 500). */
	pollMs?: number;
	/** Per-handler timeout for extension event handlers, ms (default 30 s). */
	extensionTimeoutMs?: number;
	/** Timeout for extension commands, ms (default 10 min). */
	commandTimeoutMs?: number;
	/**
	 * Opening a file and searching hand the thread back to other requests after this much work, ms
	 * (default 20): a 1 GB open or a first search of seconds never stops the other sessions.
	 */
	sliceMs?: number;
	/** Where live pis register (docs/live.md). Default <settingsDir>/live (~/.arbor/live); null: never steer a live pi. */
	liveDir?: string | null;
	/** Who Arbor says it is in the live handshake. */
	liveClient?: { name: string; version: string };
	/** Add opened files to Recent (default true; the CLI's one-shot commands: false, the user opened nothing in the app). */
	recordRecent?: boolean;
	/** The pi extension this copy of Arbor ships (Settings, "Connect pi"); the host knows where. None by default. */
	piExtensionDir?: string | null;
	/** Records of tries runs (docs/tries.md). Default <settingsDir>/tries. */
	triesDir?: string;
}
