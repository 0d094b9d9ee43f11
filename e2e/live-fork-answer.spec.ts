// A live pi's fork answer is checked before the app opens it (docs/live.md "What goes through pi"): a fake
// pi endpoint holding the file answers "Branch to new file" with /etc/passwd. The app says why it opened
// nothing, no tab opens, Recent stays as it was, and the file is unchanged.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type FakePi, startFakePi } from "../electron/services/test/helpers/fake-pi";
import { card, jsonl, openApp, sha256, shot } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
let fake: FakePi | undefined;
test.afterEach(async () => {
	await host?.stop();
	await fake?.close();
	host = fake = undefined;
});

test("Branch to new file, answered by a pi with /etc/passwd: the app refuses it with a plain error and opens nothing", async ({ page }) => {
	const home = mkdtempSync(join(tmpdir(), "arbor-e2e-home-"));
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	const before = sha256(file);
	fake = await startFakePi({
		dir: join(home, ".arbor", "live"),
		sessionFile: file,
		capabilities: ["navigate", "summarize", "fork", "label", "send", "abort", "stream", "switchSession"],
		answer: (req) => (req.name === "fork" ? { ok: true, result: { cancelled: false, sessionFile: "/etc/passwd" } } : { ok: true, result: {} }),
	});
	host = await startHost([file], { env: { HOME: home } });
	await openApp(page, host);
	await expect(page.getByTestId("live-badge")).toBeVisible({ timeout: 30_000 });
	const target = jsonl(file).find((e) => (e.message as { role?: string } | undefined)?.role === "user" && e.parentId)!.id as string;
	await page.getByTestId("fit-button").click();
	await card(page, target).click({ button: "right" });
	await page.getByTestId("menu-item-branch.toFile").click();
	await expect(page.getByTestId("toast-error")).toContainText("forked to /etc/passwd");
	await shot(page, "live-fork-answer-refused");
	expect(fake.requests.map((r) => r.name)).toContain("fork");
	await expect(page.getByTestId("status-file")).toContainText("sample-session.jsonl");
	const settings = join(home, ".arbor", "settings.json");
	const recent = existsSync(settings) ? ((JSON.parse(readFileSync(settings, "utf8")) as { recentFiles?: string[] }).recentFiles ?? []) : [];
	expect(recent).not.toContain("/etc/passwd");
	expect(sha256(file)).toBe(before);
});
