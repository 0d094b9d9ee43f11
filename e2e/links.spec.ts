// Links in session content, browser host: a click opens a new tab without an opener or a referrer, and the
// app's own tab never navigates (the desktop app's side, confirm + shell.openExternal, is proven against
// the Electron double in electron/hosts/electron/test/built-main.test.ts).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { card, openApp } from "./helpers/app";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

function sessionWithLink(): string {
	const file = join(mkdtempSync(join(tmpdir(), "arbor-e2e-links-")), "links.jsonl");
	const t = "2026-08-20T12:00:00.000Z";
	const lines = [
		{ type: "session", version: 3, id: "links-session", timestamp: t, cwd: "/tmp/links" },
		{
			type: "message",
			id: "u1",
			parentId: null,
			timestamp: t,
			message: { role: "user", content: "read [the docs](https://docs.example.test/page) first", timestamp: 1 },
		},
	];
	writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
	return file;
}

test("a markdown link opens in a new tab with noopener/noreferrer; the app's tab stays", async ({ page, context }) => {
	await context.route("https://docs.example.test/**", (route) =>
		route.fulfill({ status: 200, contentType: "text/html", body: "<title>external</title>external" }),
	);
	host = await startHost([sessionWithLink()]);
	await openApp(page, host);
	const appUrl = page.url();
	await card(page, "u1").click();
	const link = page.getByTestId("inspector-body").getByRole("link", { name: "the docs" });
	await expect(link).toBeVisible();
	const [tab] = await Promise.all([context.waitForEvent("page"), link.click()]);
	await tab.waitForLoadState();
	expect(tab.url()).toBe("https://docs.example.test/page");
	expect(await tab.evaluate(() => ({ opener: window.opener === null, referrer: document.referrer }))).toEqual({ opener: true, referrer: "" });
	expect(page.url()).toBe(appUrl);
	await expect(page.locator(".react-flow__node").first()).toBeVisible();
});
