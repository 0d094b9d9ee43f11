// Settings ▸ Extensions end to end: a pi user's extensions folder (a temp pi agent dir), found but not
// running until ticked; ticking one runs it (its command shows), a broken one shows its load error, and
// the choice lands in ~/.arbor/settings.json.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { openApp, shot } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

test("pi's extensions are listed, run only once enabled, and show their load errors", async ({ page }) => {
	const piDir = mkdtempSync(join(tmpdir(), "arbor-pi-agent-"));
	const ext = join(piDir, "extensions");
	mkdirSync(join(ext, "bookmarks"), { recursive: true });
	writeFileSync(
		join(ext, "bookmarks", "index.ts"),
		`import { Type } from "@earendil-works/pi-ai";\nimport type { ExtensionAPI } from "@earendil-works/pi-coding-agent";\nexport default function (pi: ExtensionAPI) {\n\tpi.registerTool({ name: "bm", label: "bm", description: "bm", parameters: Type.Object({}), execute: async () => ({ content: [], details: {} }) });\n\tpi.registerCommand("bookmark", { description: "Bookmark this entry", handler: async () => {} });\n}\n`,
	);
	writeFileSync(join(ext, "broken.ts"), `export default function () { throw new Error("needs a terminal"); }\n`);
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	host = await startHost([file], { env: { PI_CODING_AGENT_DIR: piDir } });
	await openApp(page, host);

	await page.getByTestId("status-model").click();
	const section = page.getByTestId("settings-extensions");
	await expect(section.getByTestId("settings-extension")).toHaveCount(2);
	await expect(section.locator('[data-state="off"]')).toHaveCount(2);

	await section.getByLabel("Run bookmarks in Arbor").click();
	await expect(section.locator('[data-state="loaded"]')).toContainText("/bookmark");
	await section.getByLabel("Run broken.ts in Arbor").click();
	await expect(section.locator('[data-state="failed"]')).toContainText("needs a terminal");
	await section.scrollIntoViewIfNeeded();
	await shot(page, "settings-extensions");

	const saved = JSON.parse(readFileSync(join(host.home, ".arbor", "settings.json"), "utf8")) as { enabledExtensions?: string[] };
	expect(saved.enabledExtensions).toEqual([join(ext, "bookmarks", "index.ts"), join(ext, "broken.ts")]);

	await section.getByLabel("Run broken.ts in Arbor").click();
	await expect(section.locator('[data-state="failed"]')).toHaveCount(0);
});
