// "Connect pi" (issue #27): the exact `pi install` command for this copy's extension, and running it with the
// real pi 1.6 CLI (Node 24) on PATH, which then lists the package in its settings; without pi on PATH, a
// clear answer that says what to run.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { connectPi, piConnection, shellQuote } from "../pi-connect";
import { node24Path, PI_CLI } from "./helpers/real-pi";

const EXTENSION = resolve(import.meta.dirname, "..", "..", "..", "pi-extension");

function piEnv(home: string, path: string): NodeJS.ProcessEnv {
	return { HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent"), PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0", PATH: path };
}

describe("Connect pi", () => {
	it("names the exact command for this copy's extension, quoted for the shell", () => {
		expect(piConnection(EXTENSION, "linux")).toEqual({ extension: EXTENSION, command: `pi install ${EXTENSION}` });
		expect(piConnection(null)).toEqual({ extension: null, command: null });
		expect(piConnection(mkdtempSync(join(tmpdir(), "arbor-no-ext-")))).toEqual({ extension: null, command: null });
		expect(shellQuote("/Applications/Arbor.app/Contents/Resources/pi-arbor/pi-extension", "darwin")).toBe(
			"/Applications/Arbor.app/Contents/Resources/pi-arbor/pi-extension",
		);
		expect(shellQuote("/opt/My Apps/it's", "linux")).toBe(`'/opt/My Apps/it'\\''s'`);
		expect(shellQuote("C:\\Program Files\\Arbor\\resources", "win32")).toBe(`"C:\\Program Files\\Arbor\\resources"`);
	});

	it("runs `pi install` with the real pi on PATH: pi's settings then list the extension's folder", async () => {
		const home = mkdtempSync(join(tmpdir(), "arbor-connect-"));
		const bin = join(home, "bin");
		mkdirSync(bin);
		writeFileSync(join(bin, "pi"), `#!/bin/sh\nexec '${node24Path()}' '${PI_CLI}' "$@"\n`);
		chmodSync(join(bin, "pi"), 0o755);
		const r = await connectPi(EXTENSION, piEnv(home, `${bin}:/usr/bin:/bin`));
		expect(r.ok, r.message).toBe(true);
		expect(r.message).toMatch(/Restart pi \(or type \/reload\)/);
		const settings = JSON.parse(readFileSync(join(home, ".pi", "agent", "settings.json"), "utf8")) as { packages: string[] };
		expect(settings.packages.map((p) => resolve(join(home, ".pi", "agent"), p))).toEqual([EXTENSION]);
	}, 120_000);

	it("says pi is not on PATH, and what to run, when it is not", async () => {
		const home = mkdtempSync(join(tmpdir(), "arbor-connect-"));
		const r = await connectPi(EXTENSION, piEnv(home, join(home, "empty-bin")));
		expect(r).toEqual({ ok: false, message: `pi is not on Arbor's PATH. Run this in a terminal where pi works: pi install ${EXTENSION}` });
	});
});
