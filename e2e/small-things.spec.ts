// Issue 29 item 6, the small things a usability pass saw on screen, each checked in Chromium: a compaction
// without a token count, a system patch's card text, a folded entry's aria-expanded, the focus after saving a
// label, "Leaf" and "pi resumes at" naming two different entries alike, the compare view's duration against
// the CLI's, and readable session tabs with 5 sessions open — at 1440×900 and 1280×720, light and dark.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { card, cli, openApp, sha256, shot } from "./helpers/app";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const DAY = 86_400_000;

/**
 * u1 → a1 → c1 (compaction, no tokensBefore) → s1 (system patch: 2 sections, 1 tool) → u2 "continue" → a2 "Done.",
 * and a1 → u3 "continue" → a3 "Done." (378 days 16 hours after a1). pi resumes at a3, the file's last line.
 */
function session(dir: string): string {
	const file = join(dir, "small.jsonl");
	const t0 = Date.parse("2025-11-01T10:00:00Z");
	const msg = (id: string, parentId: string | null, role: "user" | "assistant", text: string, at: number) => ({
		type: "message",
		id,
		parentId,
		timestamp: new Date(at).toISOString(),
		message:
			role === "user"
				? { role, content: text, timestamp: at }
				: {
						role,
						content: [{ type: "text", text }],
						provider: "p",
						model: "m",
						usage: { input: 1, output: 1, totalTokens: 2, cost: { total: 0 } },
						stopReason: "stop",
						timestamp: at,
					},
	});
	const lines = [
		{ type: "session", version: 3, id: "small", timestamp: new Date(t0).toISOString(), cwd: "/tmp" },
		msg("u1", null, "user", "Start the parser work", t0),
		msg("a1", "u1", "assistant", "Started.", t0 + 60_000),
		{ type: "compaction", id: "c1", parentId: "a1", timestamp: new Date(t0 + 120_000).toISOString(), summary: "Earlier work", firstKeptEntryId: "a1" },
		{
			type: "message",
			id: "s1",
			parentId: "c1",
			timestamp: new Date(t0 + 130_000).toISOString(),
			message: {
				role: "system",
				content: "",
				sections: { style: "Be brief", tests: "Run them" },
				toolsAdded: [{ name: "grep", description: "g", parameters: {} }],
				timestamp: t0 + 130_000,
			},
		},
		msg("u2", "s1", "user", "continue", t0 + 180_000),
		msg("a2", "u2", "assistant", "Done.", t0 + 240_000),
		msg("u3", "a1", "user", "continue", t0 + 180_000),
		msg("a3", "u3", "assistant", "Done.", t0 + 60_000 + 378 * DAY + 16 * 3_600_000),
	];
	writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
	return file;
}

/** A session whose first user message is `text` (it names the tab). */
function named(dir: string, name: string, text: string): string {
	const file = join(dir, `${name}.jsonl`);
	const t = "2026-11-01T10:00:00.000Z";
	writeFileSync(
		file,
		[
			{ type: "session", version: 3, id: name, timestamp: t, cwd: "/tmp" },
			{ type: "message", id: `${name}-u`, parentId: null, timestamp: t, message: { role: "user", content: text, timestamp: 1 } },
		]
			.map((l) => JSON.stringify(l))
			.join("\n") + "\n",
	);
	return file;
}

const cardText = (page: Page, id: string) => card(page, id).locator(".arbor-card__text");

test("small things: compaction and system rows, aria-expanded on folds, focus after a label, Leaf vs resume, durations as the CLI says", async ({ page }) => {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-small-"));
	const file = session(dir);
	const before = sha256(file);
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("filter-all").click();
	await expect(cardText(page, "c1")).toHaveText("[compaction]");
	await expect(cardText(page, "s1")).toHaveText("2 sections set, 1 tool added");
	await page.getByTestId("filter-default").click();

	// A folded entry says aria-expanded="false" (it said "true").
	const u2 = card(page, "u2").locator("[data-testid=arbor-card]");
	await card(page, "u3").click({ button: "right" });
	await page.getByTestId("menu-item-fold.toggle").click();
	await expect(card(page, "u3").locator("[data-testid=arbor-card]")).toHaveAttribute("aria-expanded", "false");
	await expect(u2).toHaveAttribute("aria-expanded", "true");
	await card(page, "u3").click({ button: "right" });
	await page.getByTestId("menu-item-fold.toggle").click();

	// Move the leaf to a2 without a summary: Leaf (a2) and "pi resumes at" (a3) both read "assistant: Done.".
	await card(page, "a2").click();
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-no-summary").click();
	const leafButton = page.getByTestId("status-go-leaf");
	const resumeButton = page.getByTestId("status-go-resume");
	await expect(resumeButton).toBeVisible();
	await expect(leafButton).toContainText("Done.");
	const [leafText, resumeText] = [(await leafButton.textContent()) ?? "", (await resumeButton.textContent()) ?? ""];
	expect(leafText.replace(/^Leaf: /, "")).not.toBe(resumeText.replace(/^pi resumes at: /, ""));

	// The compare view's duration is the CLI's (one formatter): "378d 16h", not "9088h 0m".
	await card(page, "a3").click({ button: "right" });
	await page.getByTestId("menu-item-compare.withSibling").click();
	const facts = page.getByTestId("compare-facts-a");
	await expect(facts).toHaveAttribute("data-leaf-id", "a3");
	const shown = (await facts.locator("dd").nth(3).textContent())?.trim();
	const printed = /duration (.+)/.exec(cli(["compare", file, "a3", "a2"]))?.[1]?.trim();
	expect(shown).toBe("378d 16h");
	expect(printed).toBe(shown);
	await page.getByTestId("compare-close").click();
	expect(sha256(file)).toBe(before);

	// Saving a label with Enter gives the keyboard back to the card, not to the page body.
	await card(page, "a2").click();
	await page.keyboard.press("Shift+L");
	await page.getByTestId("label-editor-input").fill("first branch");
	await page.keyboard.press("Enter");
	await expect(page.getByTestId("label-editor")).toHaveCount(0);
	await expect(page.getByTestId("arbor-tree")).toBeFocused();
	await expect(page.getByTestId("arbor-tree")).toHaveAttribute("aria-activedescendant", /a2/);
	await shot(page, "small-things-1440");
});

for (const [width, height] of [
	[1440, 900],
	[1280, 720],
] as const) {
	for (const scheme of ["light", "dark"] as const) {
		test(`five session tabs at ${width}×${height} ${scheme}: names read, the full name is the tooltip, all five whole in the tab row`, async ({ page }) => {
			await page.setViewportSize({ width, height });
			await page.emulateMedia({ colorScheme: scheme });
			const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-tabs-"));
			const names = [
				"Refactor the session store: part one, the selectors",
				"Refactor the session store: part two, the events",
				"why does the build fail on CI",
				"Add a test for the lexer",
				"how do I fix the parser for nested generics",
			];
			const files = names.map((t, k) => named(dir, `s${k}`, t));
			host = await startHost(files);
			await openApp(page, host);
			const tabs = page.getByTestId("session-tab");
			await expect(tabs).toHaveCount(5);
			const texts: string[] = [];
			for (let k = 0; k < 5; k++) {
				const b = tabs.nth(k).locator("button").first();
				await expect(b).toHaveAttribute("title", new RegExp(names[k].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
				const text = ((await b.textContent()) ?? "").trim();
				texts.push(text);
				// At least 22 characters of it (the pass saw "h.", "A", "w.", "↳."; then 14: "Add node…ssion").
				expect(text.length, text).toBeGreaterThanOrEqual(Math.min(22, names[k].length));
			}
			// Names shortened from the middle still tell the two "Refactor the session store" tabs apart.
			expect(new Set(texts).size).toBe(5);
			// The tabs have a row of their own under the toolbar (issue 38 item 4): five fit whole, with no arrows (the
			// strip moving by tabs is e2e/tabs-strip.spec.ts's nine tabs).
			await page.keyboard.press("Control+PageUp");
			await expect(tabs.nth(4)).toHaveClass(/active/);
			const strip = page.getByTestId("tabs-scroller");
			const box = (await strip.boundingBox())!;
			for (let k = 0; k < 5; k++) {
				const tab = (await tabs.nth(k).boundingBox())!;
				expect(tab.x, `tab ${k + 1}`).toBeGreaterThanOrEqual(box.x - 1);
				expect(tab.x + tab.width, `tab ${k + 1}`).toBeLessThanOrEqual(box.x + box.width + 1);
			}
			await expect(page.getByTestId("tabs-more-left")).toHaveCount(0);
			await shot(page, `tabs-five-${width}-${scheme}`);
		});
	}
}
