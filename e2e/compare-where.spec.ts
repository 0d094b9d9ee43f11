// Issue 29 item 3, "compare where the user is": Compare with sibling from any entry whose path forks, even when
// the fork is a thinking-level change the Default filter hides, comparing the whole branches below the fork;
// Compare with marked on two sibling user messages compares their branches (not two one-entry paths);
// Ctrl+Left on a selected path goes up instead of folding. Item 6: the compare dialog has one scroll area, a
// word diff taller than a line and its Close button in view, at 1440×900 and 1280×720, light and dark.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { card, openApp, scrollAreas, sha256, shot } from "./helpers/app";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const words = (n: number, seed: string): string => Array.from({ length: n }, (_, k) => `${seed}${k % 7} word${k}`).join(" ");

/** u1 → a1 → thinking change t1 → { u2 → a2 → u2b → a2b, u3 → a3 (leaf) }: the fork is t1, hidden under Default. */
function session(): string {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-cmp-"));
	const file = join(dir, "fork.jsonl");
	let t = Date.parse("2026-11-01T10:00:00Z");
	const at = () => new Date((t += 60_000)).toISOString();
	const msg = (id: string, parentId: string | null, role: "user" | "assistant", text: string) => ({
		type: "message",
		id,
		parentId,
		timestamp: at(),
		message:
			role === "user"
				? { role, content: text, timestamp: t }
				: {
						role,
						content: [{ type: "text", text }],
						provider: "p",
						model: "m",
						usage: { input: 100, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 150, cost: { total: 0.01 } },
						stopReason: "stop",
						timestamp: t,
					},
	});
	const lines = [
		{ type: "session", version: 3, id: "sess-cmp", timestamp: at(), cwd: "/tmp" },
		msg("u1", null, "user", "Plan the parser rewrite"),
		msg("a1", "u1", "assistant", "Here is a plan for the parser."),
		{ type: "thinking_level_change", id: "t1", parentId: "a1", timestamp: at(), thinkingLevel: "high" },
		msg("u2", "t1", "user", "Try the recursive descent way"),
		msg("a2", "u2", "assistant", `Recursive descent: ${words(60, "left")}`),
		msg("u2b", "a2", "user", "Now add error recovery"),
		msg("a2b", "u2b", "assistant", `Recovery added. ${words(120, "left")}`),
		msg("u3", "t1", "user", "Try the parser generator way"),
		msg("a3", "u3", "assistant", `Generator: ${words(120, "right")}`),
	];
	writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
	return file;
}

async function rightClick(page: Page, id: string, command: string): Promise<void> {
	await card(page, id).click({ button: "right" });
	await page.getByTestId(`menu-item-${command}`).click();
}

async function selected(page: Page): Promise<string | null> {
	return page.locator(".react-flow__node:has(.is-selected)").first().getAttribute("data-id");
}

/** Elements inside the dialog that scroll on their own (more content than room, overflow auto/scroll). */
test("Compare with sibling from a leaf under a hidden fork compares the whole branches; marked siblings too; Ctrl+Left goes up", async ({ page }) => {
	const file = session();
	const before = sha256(file);
	host = await startHost([file]);
	await openApp(page, host);
	// Under Default the fork (a thinking-level change) is hidden; the leaf's card still offers the compare.
	await expect(card(page, "t1")).toHaveCount(0);
	await rightClick(page, "a3", "compare.withSibling");
	await expect(page.getByTestId("compare-dialog")).toBeVisible();
	await expect(page.getByTestId("compare-ancestor")).toHaveAttribute("data-entry-id", "t1");
	await expect(page.getByTestId("compare-facts-a")).toHaveAttribute("data-leaf-id", "a3");
	// B runs to the end of its branch (4 entries), not to the sibling's first entry.
	await expect(page.getByTestId("compare-facts-b")).toHaveAttribute("data-leaf-id", "a2b");
	await expect(page.getByTestId("compare-path-entries-b")).toHaveText("4");
	await expect(page.getByTestId("compare-diff")).not.toContainText("Neither side has an assistant answer");
	await page.getByTestId("compare-close").click();

	// From a user message in the middle of the other branch, too.
	await rightClick(page, "a2", "compare.withSibling");
	await expect(page.getByTestId("compare-facts-a")).toHaveAttribute("data-leaf-id", "a2b");
	await expect(page.getByTestId("compare-facts-b")).toHaveAttribute("data-leaf-id", "a3");
	await page.getByTestId("compare-close").click();

	// Compare with marked on the two sibling user messages: their branches, with answers and cost.
	await rightClick(page, "u2", "compare.mark");
	await rightClick(page, "u3", "compare.withMarked");
	await expect(page.getByTestId("compare-facts-a")).toHaveAttribute("data-leaf-id", "a2b");
	await expect(page.getByTestId("compare-facts-b")).toHaveAttribute("data-leaf-id", "a3");
	await expect(page.getByTestId("compare-facts-a")).toContainText("$0.0200");
	await expect(page.getByTestId("compare-diff")).not.toContainText("Neither side has an assistant answer");
	await page.getByTestId("compare-close").click();

	// Ctrl+Left on a foldable entry of the selected path goes up to the branch point; it does not fold.
	await card(page, "u3").click();
	await page.getByTestId("arbor-tree").focus();
	await page.keyboard.press("Control+ArrowLeft");
	await expect.poll(() => selected(page)).toBe("a1");
	await expect(page.locator('[data-testid="arbor-fold-stub"], .react-flow__node[data-id^="fold:"]')).toHaveCount(0);
	expect(sha256(file)).toBe(before);
});

for (const [width, height] of [
	[1440, 900],
	[1280, 720],
] as const) {
	for (const scheme of ["light", "dark"] as const) {
		test(`the compare dialog at ${width}×${height} ${scheme}: one scroll area, the word diff readable, Close in view`, async ({ page }) => {
			await page.setViewportSize({ width, height });
			await page.emulateMedia({ colorScheme: scheme });
			host = await startHost([session()]);
			await openApp(page, host);
			await rightClick(page, "a3", "compare.withSibling");
			await expect(page.getByTestId("compare-diff")).toBeVisible();
			expect(await scrollAreas(page)).toBeLessThanOrEqual(1);
			// The diff is a block of several lines, not a one-line box.
			expect((await page.getByTestId("compare-diff").boundingBox())!.height).toBeGreaterThan(60);
			await expect(page.getByTestId("compare-close")).toBeInViewport({ ratio: 1 });
			await shot(page, `compare-dialog-${width}-${scheme}`);
		});
	}
}
