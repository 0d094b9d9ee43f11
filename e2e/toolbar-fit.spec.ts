// Issue 38 item 4: at 1440×900 with two or more sessions open the toolbar overflowed: the live badge shrank
// to a dot, ⚙ and "⌘ Commands" sat past the window's right edge, and the tabs were cut to 14 characters (two
// files both read "Add node…ssion"). The tabs now have a row of their own under the toolbar. Three sessions
// whose names start alike, one held by a (fake) live pi, at 1280×720 and 1440×900, light and dark: every
// toolbar control is inside the window, the badge shows its whole text, every tab reads a distinct name of
// at least MIN_TAB characters.
import { mkdtempSync, writeFileSync } from "node:fs";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { openApp, shot } from "./helpers/app";
import { startFakePi } from "./helpers/fake-pi";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
let server: Server | undefined;
test.afterEach(async () => {
	await host?.stop();
	server?.close();
	host = server = undefined;
});

// The first eight characters of all three are "Add node"; the first two are what the issue saw.
const NAMES = ["Add node types to the parser", "Add node session restore", "Add node tests for the lexer and the parser, part two"];
/**
 * Fewest characters a tab must show: 22 keeps a few words of both ends of a name shortened from the middle
 * (13 + "…" + 8), enough to tell apart names that share their first 8 to 12 characters (common in pi sessions
 * named by their first message: "Add node…", "Fix the…"); 16 would leave 9 + 6, which for these names reads
 * "Add node …parser" twice.
 */
const MIN_TAB = 22;

/** A one-entry session whose first user message is its name in the tab. */
function named(dir: string, name: string, text: string): string {
	const file = join(dir, `${name}.jsonl`);
	const t = "2026-11-01T10:00:00.000Z";
	const lines = [
		{ type: "session", version: 3, id: name, timestamp: t, cwd: "/tmp" },
		{ type: "message", id: `${name}-u`, parentId: null, timestamp: t, message: { role: "user", content: text, timestamp: 1 } },
	];
	writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
	return file;
}

/** A fake pi holding `file` (the wire of shared/live.ts on a private socket with its registration), idle. Returns the HOME to run the host with. */
async function fakeLivePi(file: string): Promise<string> {
	const pi = await startFakePi(file, {
		sessionId: "s0",
		leafId: "s0-u",
		model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
		status: "idle",
		cwd: "/tmp",
	});
	server = pi.server;
	return pi.home;
}

/** The element's box lies wholly inside the window (half a pixel of rounding allowed). */
async function inWindow(page: Page, what: string, el: Locator): Promise<void> {
	const vp = page.viewportSize()!;
	await expect(el, what).toBeVisible();
	const b = (await el.boundingBox())!;
	const where = `${what}: x ${b.x.toFixed(1)}..${(b.x + b.width).toFixed(1)}, y ${b.y.toFixed(1)}..${(b.y + b.height).toFixed(1)} in ${vp.width}×${vp.height}`;
	expect(b.x, where).toBeGreaterThanOrEqual(-0.5);
	expect(b.y, where).toBeGreaterThanOrEqual(-0.5);
	expect(b.x + b.width, where).toBeLessThanOrEqual(vp.width + 0.5);
	expect(b.y + b.height, where).toBeLessThanOrEqual(vp.height + 0.5);
}

for (const [width, height] of [
	[1280, 720],
	[1440, 900],
] as const) {
	for (const scheme of ["light", "dark"] as const) {
		test(`three sessions at ${width}×${height} ${scheme}: every toolbar control in the window, the live badge whole, each tab a distinct name of ${MIN_TAB}+ characters`, async ({
			page,
		}) => {
			await page.setViewportSize({ width, height });
			await page.emulateMedia({ colorScheme: scheme });
			const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-toolbar-fit-"));
			const files = NAMES.map((t, k) => named(dir, `s${k}`, t));
			const home = await fakeLivePi(files[0]);
			host = await startHost(files, { env: { HOME: home } });
			await openApp(page, host);
			const tabs = page.getByTestId("session-tab");
			await expect(tabs).toHaveCount(3);
			// The live session's tab, so the toolbar shows its badge.
			await tabs.nth(0).locator("button").first().click();
			await expect(tabs.nth(0)).toHaveClass(/active/);
			const badge = page.getByTestId("live-badge");
			await expect(badge).toBeVisible({ timeout: 30_000 });

			// Every toolbar control, each filter button and the search bar's parts one by one.
			const controls: [string, Locator][] = [
				["Sessions", page.getByTestId("open-library")],
				["Fit", page.getByTestId("fit-button")],
				["Family", page.getByTestId("family-button")],
				["Leaf", page.getByTestId("zoom-leaf-button")],
				["⚙", page.getByTestId("open-settings")],
				["Commands", page.getByTestId("open-palette")],
			];
			const filters = page.locator(".filter-bar button");
			expect(await filters.count()).toBeGreaterThan(2);
			for (let k = 0; k < (await filters.count()); k++) controls.push([`filter ${(await filters.nth(k).textContent())?.trim()}`, filters.nth(k)]);
			const search = page.locator(".search-bar > *:visible");
			expect(await search.count()).toBeGreaterThan(0);
			for (let k = 0; k < (await search.count()); k++) controls.push([`search bar part ${k + 1}`, search.nth(k)]);
			for (const [what, el] of controls) await inWindow(page, what, el);

			// The badge shows its whole text (nothing cut by its box), pid, model and state each in the window.
			await inWindow(page, "live badge", badge);
			const clipped = await badge.evaluate((el) => el.scrollWidth - el.clientWidth);
			expect(clipped, "live badge text wider than its box").toBeLessThanOrEqual(0);
			for (const id of ["live-pid", "live-model", "live-state"]) await inWindow(page, id, page.getByTestId(id));
			await expect(page.getByTestId("live-pid")).toHaveText(`pid ${process.pid}`);
			await expect(page.getByTestId("live-model")).toHaveText("claude-sonnet-4-5");
			await expect(page.getByTestId("live-state")).toHaveText("idle");

			// Every tab whole in the window, its visible name distinct and long enough (or the whole name).
			const texts: string[] = [];
			for (let k = 0; k < 3; k++) {
				const b = tabs.nth(k).locator("button").first();
				await inWindow(page, `tab ${k + 1}`, tabs.nth(k));
				const full = (await b.getAttribute("aria-label")) ?? "";
				const text = ((await b.textContent()) ?? "").trim();
				expect(NAMES, `tab ${k + 1}'s accessible name`).toContain(full);
				expect(text.length, `tab ${k + 1} reads "${text}"`).toBeGreaterThanOrEqual(Math.min(MIN_TAB, full.length));
				// The text is the label itself, not cut by the tab's box.
				expect(await b.evaluate((el) => el.scrollWidth - el.clientWidth), `tab ${k + 1} "${text}" cut by its box`).toBeLessThanOrEqual(0);
				texts.push(text);
			}
			expect(new Set(texts).size, JSON.stringify(texts)).toBe(3);
			// No arrows: three tabs fit whole.
			await expect(page.getByTestId("tabs-more-right")).toHaveCount(0);
			await shot(page, `toolbar-fit-3-${width}-${scheme}`);
		});
	}
}
