// Defects a usability test found (issue #21, item 5), each reproduced in Chromium through the browser host
// at 1440×900: the library stays inside the window with a long first message and its keyboard walks one
// result at a time; the leaf drag shows a ghost and the drop target; focus returns where it belongs; tabs
// get distinct names; the status bar names the model a summary uses; polish (attribution, toasts, settings).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type LlmServer, startLlmServer } from "../electron/services/test/helpers/llm-server";
import { openApp, shot, viewportSettled } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
let llm: LlmServer | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
	await llm?.close();
	llm = undefined;
});

const sample = join(repoRoot, "build", "sample-session.jsonl");

/** A folder of copies of the sample session; the first copy's first user message made very long. */
function libraryDir(count: number): string {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-lib-"));
	// Without the session's name, the library titles each file by its first user message.
	const lines = readFileSync(sample, "utf8")
		.split("\n")
		.filter((l) => !l.includes('"type":"session_info"'));
	const first = lines.findIndex((l) => l.includes('"role":"user"'));
	for (let i = 0; i < count; i++) {
		const out = [...lines];
		if (i === 0) {
			const e = JSON.parse(out[first]) as { message: { content: { text: string }[] } };
			e.message.content[0].text = `${"Please_refactor_the_whole_weather_module_".repeat(8)} ${"and keep going with a long first message ".repeat(20)}`;
			out[first] = JSON.stringify(e);
		}
		writeFileSync(join(dir, `s${i}.jsonl`), out.join("\n"));
	}
	return dir;
}

for (const [w, h] of [
	[1440, 900],
	[1280, 720],
] as const) {
	test(`the library stays inside a ${w}×${h} window with a long first message`, async ({ page }) => {
		await page.setViewportSize({ width: w, height: h });
		host = await startHost([libraryDir(3)]);
		await page.goto(host.url);
		const lib = page.getByTestId("library");
		await expect(lib).toBeVisible({ timeout: 60_000 });
		await expect(page.getByTestId("library-item")).toHaveCount(3);
		const box = (await lib.boundingBox())!;
		expect(box.x).toBeGreaterThanOrEqual(0);
		expect(box.x + box.width).toBeLessThanOrEqual(w);
		for (const id of ["library-search", "library-item", "library-project"]) {
			for (const el of await page.getByTestId(id).all()) {
				const b = (await el.boundingBox())!;
				expect(b.x, id).toBeGreaterThanOrEqual(box.x);
				expect(b.x + b.width, id).toBeLessThanOrEqual(box.x + box.width);
			}
		}
		await shot(page, `library-long-title-${w}`);
	});
}

test("library keyboard: ArrowDown from the search selects the first result, Enter opens it", async ({ page }) => {
	host = await startHost([libraryDir(3)]);
	await page.goto(host.url);
	await expect(page.getByTestId("library-item")).toHaveCount(3, { timeout: 60_000 });
	const search = page.getByTestId("library-search");
	await search.focus();
	await page.keyboard.press("ArrowDown");
	await expect(page.getByTestId("library-item").nth(0)).toBeFocused();
	await page.keyboard.press("ArrowDown");
	await expect(page.getByTestId("library-item").nth(1)).toBeFocused();
	await page.keyboard.press("ArrowUp");
	await page.keyboard.press("ArrowUp");
	await expect(search).toBeFocused();
	// Enter in the field opens the first result of the search.
	await search.fill("s2.jsonl");
	await expect(page.getByTestId("library-item")).toHaveCount(1);
	await page.keyboard.press("Enter");
	await expect(page.getByTestId("library")).toBeHidden({ timeout: 30_000 });
	await expect(page.getByTestId("status-file")).toContainText("s2.jsonl");
});

test("dragging the leaf badge shows the badge under the pointer and marks the card it would drop on", async ({ page }) => {
	host = await startHost([tempCopy(sample)]);
	await openApp(page, host);
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	const b = (await page.getByTestId("leaf-badge").boundingBox())!;
	const dest = page.locator(".react-flow__node:has(.arbor-card--user)").first();
	const d = (await dest.boundingBox())!;
	await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
	await page.mouse.down();
	await page.mouse.move(d.x + d.width / 2, d.y + d.height / 2, { steps: 12 });
	await expect(dest).toHaveClass(/is-drop-target/);
	const ghost = page.locator(".arbor-leaf-ghost");
	await expect(ghost).toBeVisible();
	const g = (await ghost.boundingBox())!;
	// Next to the pointer, not at the page's corner or in the document flow.
	expect(Math.abs(g.x - (d.x + d.width / 2 + 8))).toBeLessThan(4);
	expect(Math.abs(g.y - (d.y + d.height / 2 + 8))).toBeLessThan(4);
	const looks = await dest.evaluate((el) => {
		const c = el.querySelector(".arbor-card") as HTMLElement;
		return { outline: getComputedStyle(c).outlineStyle, cursor: getComputedStyle(document.body).cursor };
	});
	expect(looks).toEqual({ outline: "dashed", cursor: "grabbing" });
	await shot(page, "leaf-drag-ghost");
	await page.keyboard.press("Escape");
	await expect(ghost).toHaveCount(0);
	await page.mouse.up();
});

test("the status bar names the model a summary in this session uses (its own model), with where it comes from", async ({ page }) => {
	// The sample's branch chose anthropic/claude-sonnet-4-5; with only an Anthropic key pi's own choice for a
	// new session would be claude-opus-5-5, which a summary here does not use.
	host = await startHost([tempCopy(sample)], { env: { ANTHROPIC_API_KEY: "sk-test" } });
	await openApp(page, host);
	const model = page.getByTestId("status-model");
	await expect(model).toHaveText("anthropic/claude-sonnet-4-5");
	await expect(model).toHaveAttribute("title", /this session's own model/);
});

test("Save position for pi has a tooltip and the leaf then reads as the message it sits under", async ({ page }) => {
	const file = tempCopy(sample);
	host = await startHost([file]);
	await openApp(page, host);
	// Move the leaf off the file's last line (No summary), so the two positions differ.
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	await page.locator(".react-flow__node:has(.arbor-card--assistant)").first().click();
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-no-summary").click();
	const save = page.getByTestId("status-save-position");
	await expect(save).toBeVisible();
	await expect(save).toHaveAttribute("title", /resume/);
	await save.click();
	await expect(save).toBeHidden();
	const leaf = page.getByTestId("status-go-leaf");
	await expect(leaf).toContainText(/Leaf: assistant: .+ ↓/);
	await expect(leaf).not.toContainText("custom");
	await expect(leaf).not.toContainText("arbor.position");
});

test("focus: Summarize → Done on a user message focuses the composer; closing a dialog returns focus, never to <body>", async ({ page }) => {
	llm = await startLlmServer({ kind: "stream", chunks: ["## Goal\nFocus.", "\n\n## Outcome\nDone."], delayMs: 5 });
	const settings = { model: { provider: "local", modelId: "arbor-test-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "test-key" } };
	host = await startHost([tempCopy(sample)], { settings });
	await openApp(page, host);
	// A dialog opened from a toolbar button gives the focus back to it.
	await page.getByTestId("open-settings").click();
	await expect(page.getByTestId("settings-dialog")).toBeVisible();
	await page.keyboard.press("Escape");
	await expect(page.getByTestId("settings-dialog")).toBeHidden();
	await expect(page.getByTestId("open-settings")).toBeFocused();
	// Opened from the graph with the keyboard: back on the graph.
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	await page.locator(".react-flow__node:has(.arbor-card--user)").nth(1).click();
	await page.keyboard.press("Control+k");
	await expect(page.getByTestId("command-palette")).toBeVisible();
	await page.keyboard.press("Escape");
	await expect(page.getByTestId("command-palette")).toBeHidden();
	// Focus comes back once the dialog has unmounted (a frame later on a busy machine).
	await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).not.toBe("BODY");
	await expect(page.getByTestId("arbor-tree")).toBeFocused();
	// Summarize → Done on a user message: its text is in the composer, which has the focus (as after No summary).
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-summarize").click();
	await expect(page.getByTestId("navigate-done-close")).toBeVisible({ timeout: 30_000 });
	await page.getByTestId("navigate-done-close").click();
	await expect(page.getByTestId("navigate-dialog")).toBeHidden();
	await expect(page.getByTestId("composer")).toBeFocused();
	await expect(page.getByTestId("composer")).not.toHaveValue("");
});

test("tabs: branches to new files get distinct names, a branch from the first message is not an empty-filter graph, the search field keeps its width", async ({
	page,
}) => {
	// Untitled, so each tab is named by a message (a branch shares its parent's first one).
	const file = join(mkdtempSync(join(tmpdir(), "arbor-e2e-tabs-")), "untitled.jsonl");
	writeFileSync(
		file,
		readFileSync(sample, "utf8")
			.split("\n")
			.filter((l) => !l.includes('"type":"session_info"'))
			.join("\n"),
	);
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	const tabs = page.getByTestId("session-tab");
	// From a later user message: the new file starts with the same first message as the one it came from.
	await page.locator(".react-flow__node:has(.arbor-card--user)").nth(1).click();
	await page.keyboard.press("Control+b");
	await expect(tabs).toHaveCount(2, { timeout: 20_000 });
	await expect(page.locator(".react-flow__node").first()).toBeVisible();
	// Each tab's full name (the tab shows it shortened from the middle; the button is named by the whole).
	const names = async () =>
		(await tabs.locator("button:first-child").evaluateAll((bs) => bs.map((b) => b.getAttribute("aria-label") ?? ""))).map((t) => t.trim());
	// Named once the new file's skeleton and first preview are in (never by its raw file name).
	await expect.poll(async () => (await names()).filter((n) => !n.endsWith(".jsonl")).length).toBe(2);
	expect(new Set(await names()).size).toBe(2);
	expect((await page.getByTestId("search-input").boundingBox())!.width).toBeGreaterThanOrEqual(200);
	// The "Branched to …" toast leaves the side panel's tabs visible and clickable.
	const toast = (await page.getByTestId("toast-info").first().boundingBox())!;
	const sideTab = (await page.getByTestId("panel-tab-labels").boundingBox())!;
	expect(toast.y).toBeGreaterThanOrEqual(sideTab.y + sideTab.height);
	await shot(page, "tabs-two-1440");
	// From the first user message: nothing of the conversation comes along (only the model and thinking level).
	await tabs.first().locator("button").first().click();
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	await page.locator(".react-flow__node:has(.arbor-card--user)").first().click();
	await page.keyboard.press("Control+b");
	await expect(tabs).toHaveCount(3, { timeout: 20_000 });
	// Waits for the new tab's own name (a branch with no message yet is "new branch of" its parent), not
	// for a while: a check after a fixed wait passed on names not yet updated.
	await expect
		.poll(async () => {
			const n = await names();
			return { raw: n.filter((x) => x.endsWith(".jsonl")), distinct: new Set(n).size, newBranch: n.filter((x) => x.startsWith("↳ new branch of ")).length };
		})
		.toEqual({ raw: [], distinct: 3, newBranch: 1 });
	const empty = page.getByTestId("graph-empty");
	await expect(empty).toBeVisible();
	await expect(empty).not.toContainText("No entries match this filter");
	await expect(empty).toContainText("no messages yet");
	await expect(page.getByTestId("composer")).not.toHaveValue("");
	await shot(page, "tabs-branch-from-first-message");
	// Its entries are one click away.
	await empty.getByRole("button", { name: /show all entries/i }).click();
	await expect(page.locator(".react-flow__node").first()).toBeVisible();
});

test("polish: no React Flow box on the canvas (credited in About), Settings' Save and Close visible at 900 px, Leaf selects the leaf", async ({ page }) => {
	host = await startHost([tempCopy(sample)]);
	await openApp(page, host);
	await expect(page.getByTestId("graph").getByText("React Flow", { exact: true })).toHaveCount(0);
	await expect(page.locator(".react-flow__attribution")).toHaveCount(0);
	// Settings at 1440×900: both buttons on screen and not under anything.
	await page.getByTestId("open-settings").click();
	for (const id of ["settings-save", "settings-close"]) {
		const b = page.getByTestId(id);
		await expect(b).toBeInViewport({ ratio: 1 });
		const box = (await b.boundingBox())!;
		const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.getAttribute("data-testid"), [box.x + box.width / 2, box.y + box.height / 2]);
		expect(hit).toBe(id);
	}
	await shot(page, "settings-1440x900");
	await page.getByTestId("settings-about").click();
	await expect(page.getByTestId("about-dialog")).toContainText("React Flow");
	await shot(page, "about");
	await page.keyboard.press("Escape");
	// Leaf: the view moves to the leaf and the leaf is the selected entry.
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	await page.locator(".react-flow__node:has(.arbor-card--user)").first().click();
	const before = await page.getByTestId("inspector").textContent();
	await page.getByTestId("zoom-leaf-button").click();
	await expect.poll(() => page.getByTestId("inspector").textContent()).not.toBe(before);
	await expect(page.locator('.react-flow__node:has([data-testid="leaf-badge"]) .is-selected')).toHaveCount(1);
});
