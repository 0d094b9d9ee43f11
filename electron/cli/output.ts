// Buffered stdout for the `arbor` commands, in its own module so the lean `arbor context` entry
// (context-main.ts) can print without loading the session core that io.ts opens files with.

/** Collects output and writes it in large chunks; `flush()` resolves when stdout has taken it all. */
export class Output {
	#parts: string[] = [];
	#size = 0;
	#pending: Promise<void> = Promise.resolve();

	write(s: string): void {
		this.#parts.push(s);
		this.#size += s.length;
		if (this.#size >= 1 << 20) this.#drain();
	}

	line(s = ""): void {
		this.write(`${s}\n`);
	}

	#drain(): void {
		if (this.#parts.length === 0) return;
		const chunk = this.#parts.join("");
		this.#parts = [];
		this.#size = 0;
		this.#pending = this.#pending.then(
			() =>
				new Promise<void>((resolve, reject) => {
					process.stdout.write(chunk, (err) => (err ? reject(err) : resolve()));
				}),
		);
	}

	flush(): Promise<void> {
		this.#drain();
		return this.#pending;
	}
}
