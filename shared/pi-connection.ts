// Settings ▸ Connect pi (docs/hosts.md): the pi extension this copy of Arbor ships and the one command that installs it.

export interface PiConnection {
	/** The extension's folder, or null when this copy ships none. */
	extension: string | null;
	/** `pi install FOLDER`, quoted for the user's shell; null with no extension. */
	command: string | null;
}

export interface PiConnectResult {
	ok: boolean;
	/** What happened, or why not and what to run instead. */
	message: string;
}
