// Buffered stdout for the `arbor` commands, in its own module so the lean `arbor context` entry
// (context-main.ts) can print without loading the session core that io.ts opens files with. Text goes through
// the terminal-text escaper and JSON through terminalJson (shared/terminal-text.ts, issue #23).

import { terminalJson, terminalLine, terminalText } from "../../shared/terminal-text";

/** Collects output and writes it in large chunks; `flush()` resolves when stdout has taken it all. */
export class Output {
	#parts: string[] = [];
	#size = 0;
	#pending: Promise<void> = Promise.resolve();

	#write(s: string): void {
		this.#parts.push(s);
		this.#size += s.length;
		if (this.#size >= 1 << 20) this.#drain();
	}

	/** One line of text: every control character in it, a newline too, is shown escaped. */
	line(s = ""): void {
		this.#write(`${terminalLine(s)}\n`);
	}

	/** Text of several lines (newlines and tabs kept, other controls escaped), ended by a newline. */
	text(s: string): void {
		this.#write(`${terminalText(s)}\n`);
	}

	/** A piece of JSON text (as written: no newline added). */
	json(chunk: string): void {
		this.#write(terminalJson(chunk));
	}

	/** One JSON value's text and a newline. */
	jsonLine(text: string): void {
		this.#write(`${terminalJson(text)}\n`);
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

/** A message on stderr, escaped like stdout's text: it may name a file or quote one. Newlines kept. */
export function printError(message: string): void {
	process.stderr.write(`${terminalText(message)}\n`);
}
