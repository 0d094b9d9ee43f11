// The services' event stream: every part (registry, flows, extensions) emits here; clients subscribe.

import type { ArborEvent } from "../../shared/api";

export type ArborListener = (e: ArborEvent) => void;

export class EventHub {
	readonly #listeners = new Set<ArborListener>();

	on(listener: ArborListener): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	emit(e: ArborEvent): void {
		for (const l of [...this.#listeners]) {
			try {
				l(e);
			} catch {
				// A listener's failure (a closed socket) must not break the flow that emitted.
			}
		}
	}

	clear(): void {
		this.#listeners.clear();
	}
}
