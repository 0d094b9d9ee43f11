// The session library reads as a list (issue #27): each session is one line (title, then date, entries, size
// and source), with its "family" link beside it on that line, at 1280×720 and 1440×900, light and dark. The
// rule that stretches list buttons to the full row once hit the small "family" button too, and squeezed each
// session into an 18 px column, one character per line.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { shot } from "./helpers/app";
import { type Host, repoRoot, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

/** Copies of the sample session, each named by its first user message (one of them long). */
function libraryDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-lib-"));
	const lines = readFileSync(join(repoRoot, "build", "sample-session.jsonl"), "utf8")
		.split("\n")
		.filter((l) => !l.includes('"type":"session_info"'));
	const first = lines.findIndex((l) => l.includes('"role":"user"'));
	const titles = [
		"Fix the forecast parser for empty hourly data",
		"Add a retry to the weather client",
		`Refactor the whole weather module ${"and keep going with a long first message ".repeat(6)}`,
		"Why is the wind speed in knots?",
	];
	titles.forEach((title, i) => {
		const out = [...lines];
		const e = JSON.parse(out[first]) as { message: { content: { text: string }[] } };
		e.message.content[0].text = title;
		out[first] = JSON.stringify(e);
		writeFileSync(join(dir, `s${i}.jsonl`), out.join("\n"));
	});
	return dir;
}

for (const [w, h] of [
	[1280, 720],
	[1440, 900],
] as const) {
	for (const scheme of ["light", "dark"] as const) {
		test(`library at ${w}×${h} (${scheme}): each session is one readable line with its family link beside it`, async ({ page }) => {
			await page.setViewportSize({ width: w, height: h });
			await page.emulateMedia({ colorScheme: scheme });
			host = await startHost([libraryDir()]);
			await page.goto(host.url);
			const lib = page.getByTestId("library");
			await expect(page.getByTestId("library-item")).toHaveCount(4, { timeout: 60_000 });
			const libBox = (await lib.boundingBox())!;
			const rows = await page.locator('[data-testid="library-project"] li').all();
			expect(rows).toHaveLength(4);
			for (const row of rows) {
				const item = row.getByTestId("library-item");
				const family = row.getByTestId("library-item-family");
				const title = item.locator(".library-title");
				const [i, f, t] = [(await item.boundingBox())!, (await family.boundingBox())!, (await title.boundingBox())!];
				const lineHeight = await title.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 1.3 * parseFloat(getComputedStyle(el).fontSize));
				const label = (await item.textContent()) ?? "";
				// Wide: the item takes the row but the family link (at least 60% of the dialog's width).
				expect(i.width, label).toBeGreaterThan(libBox.width * 0.6);
				// One line: the item and its title are one line high (padding aside).
				expect(t.height, label).toBeLessThan(lineHeight * 1.5);
				expect(i.height, label).toBeLessThan(lineHeight * 2);
				// The facts are on that line, after the title.
				await expect(item).toContainText(/entries · .* · /);
				const meta = (await item.locator(".library-meta").boundingBox())!;
				expect(Math.abs(meta.y + meta.height / 2 - (t.y + t.height / 2)), label).toBeLessThan(lineHeight / 2);
				expect(meta.x, label).toBeGreaterThanOrEqual(t.x + t.width - 1);
				// The family link sits beside it, on the same line, inside the dialog.
				expect(f.x, label).toBeGreaterThanOrEqual(i.x + i.width - 1);
				expect(f.width, label).toBeLessThan(120);
				expect(Math.abs(f.y + f.height / 2 - (i.y + i.height / 2)), label).toBeLessThan(lineHeight);
				expect(f.x + f.width, label).toBeLessThanOrEqual(libBox.x + libBox.width);
			}
			await shot(page, `library-rows-${w}-${scheme}`);
		});
	}
}
