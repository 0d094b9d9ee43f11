// Settings ▸ Connect pi (issue #27) in Chromium through the browser host: the exact `pi install` command for
// this copy's extension, and "Run it" with the real pi 1.6 (Node 24) on the host's PATH, after which pi's own
// settings list the extension; with no pi on PATH, a message saying so and what to run.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { node24Path, PI_CLI } from "../electron/services/test/helpers/real-pi";
import { openApp, shot } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

const EXTENSION = join(repoRoot, "pi-extension");
let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

/** A folder holding a `pi` that runs the real pi 1.6 CLI. */
function piOnPath(): string {
	const bin = mkdtempSync(join(tmpdir(), "arbor-pi-bin-"));
	writeFileSync(join(bin, "pi"), `#!/bin/sh\nexec '${node24Path()}' '${PI_CLI}' "$@"\n`);
	chmodSync(join(bin, "pi"), 0o755);
	return bin;
}

for (const scheme of ["light", "dark"] as const) {
	test(`Connect pi (${scheme}): the exact command, and Run it installs the extension into the real pi`, async ({ page }) => {
		await page.emulateMedia({ colorScheme: scheme });
		const bin = piOnPath();
		host = await startHost([tempCopy(join(repoRoot, "build", "sample-session.jsonl"))], {
			env: { PATH: `${bin}:/usr/bin:/bin`, PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" },
		});
		await openApp(page, host);
		await page.getByTestId("open-settings").click();
		const section = page.getByTestId("settings-connect-pi");
		await expect(section.getByTestId("settings-connect-command")).toHaveText(`pi install ${EXTENSION}`);
		await section.scrollIntoViewIfNeeded();
		await section.getByTestId("settings-connect-run").click();
		await expect(section.getByTestId("settings-connect-result")).toContainText("Restart pi (or type /reload)", { timeout: 60_000 });
		await shot(page, `settings-connect-pi-${scheme}`);
		const agentDir = join(host.home, ".pi", "agent");
		const settings = JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")) as { packages: string[] };
		expect(settings.packages.map((p) => resolve(agentDir, p))).toEqual([EXTENSION]);
	});
}

test("Connect pi without pi on PATH: says so, and what to run", async ({ page }) => {
	const empty = mkdtempSync(join(tmpdir(), "arbor-no-pi-"));
	mkdirSync(join(empty, "bin"));
	host = await startHost([tempCopy(join(repoRoot, "build", "sample-session.jsonl"))], { env: { PATH: `${join(empty, "bin")}:/usr/bin:/bin` } });
	await openApp(page, host);
	await page.getByTestId("open-settings").click();
	await page.getByTestId("settings-connect-run").click();
	await expect(page.getByTestId("settings-connect-result")).toHaveText(
		`pi is not on Arbor's PATH. Run this in a terminal where pi works: pi install ${EXTENSION}`,
	);
});
