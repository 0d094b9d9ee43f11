// A stand-in for the system's browser opener (`xdg-open`, first on PATH): it records the one argument it was
// handed (and the pid of the process that ran it) instead of starting a browser, so a spec can load exactly
// that argument in Chromium, as the user's browser would.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "@playwright/test";

export interface Opener {
	/** PATH with the stand-in first. */
	path: string;
	/** Every launch so far: what the opener was handed, and the pid of its caller (the process that opened it). */
	launches(): { arg: string; callerPid: number }[];
	/** Waits for the `n`-th launch (1-based) and returns it. */
	nth(n: number): Promise<{ arg: string; callerPid: number }>;
}

export function fakeOpener(): Opener {
	const dir = mkdtempSync(join(tmpdir(), "arbor-opener-"));
	const record = join(dir, "launches.txt");
	// One line per launch: caller pid, a tab, the argument (paths and URLs hold no tab or newline here).
	writeFileSync(join(dir, "xdg-open"), `#!/bin/sh\nprintf '%s\\t%s\\n' "$PPID" "$1" >> '${record}'\n`, { mode: 0o755 });
	const launches = () =>
		existsSync(record)
			? readFileSync(record, "utf8")
					.split("\n")
					.filter(Boolean)
					.map((l) => ({ callerPid: Number(l.slice(0, l.indexOf("\t"))), arg: l.slice(l.indexOf("\t") + 1) }))
			: [];
	return {
		path: `${dir}:${process.env.PATH ?? ""}`,
		launches,
		async nth(n) {
			await expect.poll(() => launches().length, { timeout: 60_000, message: "the opener was never started" }).toBeGreaterThanOrEqual(n);
			return launches()[n - 1];
		},
	};
}

/** What a browser makes of the opener's argument: a URL stays as it is, a path becomes its file:// URL. */
export function browserAddress(arg: string): string {
	return /^[a-z][a-z0-9+.-]*:\/\//i.test(arg) ? arg : pathToFileURL(arg).href;
}
