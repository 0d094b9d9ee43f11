// Back/forward over the leaf positions a window visited (like a browser's history).

export class LeafHistory {
	#stack: (string | null)[] = [];
	#index = -1;

	constructor(initial: string | null) {
		this.#stack = [initial];
		this.#index = 0;
	}

	/** Record a new position; a move after going back drops the forward part. */
	push(leafId: string | null): void {
		if (this.#stack[this.#index] === leafId) return;
		this.#stack = this.#stack.slice(0, this.#index + 1);
		this.#stack.push(leafId);
		this.#index = this.#stack.length - 1;
	}

	/** Step, skipping positions `exists` rejects (a file reload can remove entries). */
	step(direction: "back" | "forward", exists: (id: string | null) => boolean): string | null | undefined {
		const d = direction === "back" ? -1 : 1;
		for (let i = this.#index + d; i >= 0 && i < this.#stack.length; i += d) {
			const id = this.#stack[i] as string | null;
			if (exists(id)) {
				this.#index = i;
				return id;
			}
		}
		return undefined;
	}

	canBack(): boolean {
		return this.#index > 0;
	}

	canForward(): boolean {
		return this.#index < this.#stack.length - 1;
	}
}
