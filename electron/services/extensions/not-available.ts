// The one error an extension sees when it asks Arbor for something only a running pi can do (an agent
// turn, a terminal widget, a tool run). Thrown when the method is called, never while the extension loads.

export class NotAvailableInArborError extends Error {
	readonly code = "not_available_in_arbor";
	constructor(what: string, why = "Arbor shows and steers session files; it does not run the agent or a terminal UI") {
		super(`${what} is not available in Arbor: ${why}`);
		this.name = "NotAvailableInArborError";
	}
}

/** A function that throws NotAvailableInArborError when called. */
export function notAvailable(what: string, why?: string): (...args: unknown[]) => never {
	return () => {
		throw new NotAvailableInArborError(what, why);
	};
}
