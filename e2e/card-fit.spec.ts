// Cards keep their text and badges inside (issue #11): the text shows whole lines only (the ellipsis at
// the end of the last line, never a line cut in half or a word broken mid-card) and label badges shrink
// to end in "…" inside the card instead of running past its right edge. Light and dark.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { openApp, shot, viewportSettled } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy, TREE_VIEW } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

for (const scheme of ["light", "dark"] as const) {
	test.describe(scheme, () => {
		test.use({ colorScheme: scheme });
		test(`card text and label badges stay inside their cards (${scheme})`, async ({ page }) => {
			await page.setViewportSize({ width: 1400, height: 900 });
			const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
			// Long labels on a branch point and on the leaf card (already holding the leaf badge).
			const long = "a very long label that names the whole fix for the crash on missing hourly data";
			appendFileSync(
				file,
				[
					{ type: "label", id: "e2elab01", parentId: "1a9ede11", timestamp: "2026-11-02T09:05:00.000Z", targetId: "1a962dbc", label: long },
					{ type: "label", id: "e2elab02", parentId: "e2elab01", timestamp: "2026-11-02T09:05:01.000Z", targetId: "1a6763c2", label: `release note: ${long}` },
				]
					.map((o) => JSON.stringify(o) + "\n")
					.join(""),
			);
			host = await startHost([file], TREE_VIEW);
			await openApp(page, host);
			await viewportSettled(page);
			await expect(page.locator(".arbor-badge--label").first()).toBeVisible();
			const report = await page.evaluate(() => {
				const bad: string[] = [];
				let badges = 0;
				let texts = 0;
				for (const card of document.querySelectorAll<HTMLElement>('[data-testid="arbor-card"]')) {
					const c = card.getBoundingClientRect();
					const inside = (r: DOMRect) => r.left >= c.left - 0.5 && r.right <= c.right + 0.5 && r.top >= c.top - 0.5 && r.bottom <= c.bottom + 0.5;
					for (const b of card.querySelectorAll<HTMLElement>(".arbor-badge")) {
						badges++;
						if (!inside(b.getBoundingClientRect())) bad.push(`badge "${b.textContent}" leaves card ${card.dataset.entry}`);
					}
					const t = card.querySelector<HTMLElement>(".arbor-card__text");
					if (!t) continue;
					texts++;
					const r = t.getBoundingClientRect();
					if (!inside(r)) bad.push(`text of card ${card.dataset.entry} leaves the card`);
					const foot = card.querySelector<HTMLElement>(".arbor-card__foot");
					if (foot && r.bottom > foot.getBoundingClientRect().top + 0.5) bad.push(`text of card ${card.dataset.entry} runs under its foot`);
					// Whole lines: the text box is a whole number of 16 px lines.
					const lines = t.clientHeight / 16;
					if (Math.abs(lines - Math.round(lines)) > 0.01) bad.push(`text of card ${card.dataset.entry} shows ${lines.toFixed(2)} lines`);
					if (t.scrollWidth > t.clientWidth + 1) bad.push(`text of card ${card.dataset.entry} overflows sideways`);
					// A cut text ends on a whole word: what is shown before the "…" is followed by a space in
					// the full text (the card's aria-label ends with it).
					const shown = (t.textContent ?? "").replace(/\s+/g, " ");
					const full = (card.getAttribute("aria-label") ?? "").replace(/\s+/g, " ");
					if (shown.endsWith("…") && shown !== "…") {
						const head = shown.slice(0, -1);
						const at = full.lastIndexOf(head);
						const next = at >= 0 ? full.charAt(at + head.length) : "";
						if (at < 0 || (next !== "" && !/[\s,.;:]/.test(next))) bad.push(`text of card ${card.dataset.entry} is cut mid-word: "${shown}"`);
					}
				}
				return { bad, badges, texts };
			});
			expect(report.badges).toBeGreaterThanOrEqual(2);
			expect(report.texts).toBeGreaterThan(5);
			expect(report.bad).toEqual([]);
			await shot(page, `card-fit-${scheme}`);
		});
	});
}
