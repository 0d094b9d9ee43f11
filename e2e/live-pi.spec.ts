// Live pi in the app, end to end with the real pi 1.6.0 CLI (Node 24, RPC mode, Arbor's extension loaded with
// -e) against the loopback model server: the live badge, navigating by click and by dragging pi's badge (pi's own
// get_entries says where its leaf went), Summarize stopped with Escape mid-stream (nothing changes), Send (a
// streaming card, then the entry in the file), Stop, and pi killed mid-turn (file mode, no error, draft kept).
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { type LlmServer, startLlmServer } from "../electron/services/test/helpers/llm-server";
import { type RealPi, startRealPi } from "../electron/services/test/helpers/real-pi";
import { card, jsonl, openApp, sha256, shot } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

const EXTENSION = join(repoRoot, "pi-extension", "index.ts");

let host: Host | undefined;
let pi: RealPi | undefined;
let llm: LlmServer | undefined;
test.afterEach(async () => {
	await host?.stop();
	await pi?.stop();
	await llm?.close();
	host = pi = llm = undefined;
});

/** Id of the message entry whose text starts with `text`. */
function idOf(file: string, text: string): string {
	for (const e of jsonl(file)) {
		const m = e.message as { content?: unknown } | undefined;
		const c = m?.content;
		const s = typeof c === "string" ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? "").join("") : "";
		if (s.startsWith(text)) return e.id as string;
	}
	throw new Error(`no entry starting with ${text}`);
}

/** A copy of the sample session held by a real pi with Arbor's extension, and Arbor's browser host on it. */
async function livePi(page: Page, chunks: string[] = ["Loopback answer."], delayMs = 0): Promise<string> {
	llm = await startLlmServer({ kind: "stream", chunks, delayMs });
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	pi = await startRealPi({ server: llm, session: file, rehome: true, args: ["-e", EXTENSION] });
	// pi's extension registers under ~/.arbor/live of its HOME: Arbor runs with the same HOME to find it.
	host = await startHost([file], { env: { HOME: pi.home, PI_CODING_AGENT_DIR: pi.agentDir } });
	await openApp(page, host);
	await expect(page.getByTestId("live-badge")).toBeVisible({ timeout: 30_000 });
	return file;
}

async function piLeaf(): Promise<string | null> {
	return (await pi!.entries()).leafId;
}

test("the live badge names pi 1.6.0, its pid and model; a click navigates pi itself, and so does dragging pi's badge", async ({ page }) => {
	const file = await livePi(page);
	const badge = page.getByTestId("live-badge");
	await expect(badge).toContainText("pi 1.6.0");
	await expect(page.getByTestId("live-pid")).toHaveText(/^pid \d+$/);
	await expect(page.getByTestId("live-model")).toHaveText("loopback-model");
	await expect(page.getByTestId("live-state")).toHaveText("idle");
	await expect(badge).toHaveAttribute("aria-label", /Live: pi 1\.6\.0 \(pid \d+\)/);
	const before = sha256(file);

	// Click a card on the current path and navigate without a summary: pi moves, the file is untouched.
	const fixed = idOf(file, "Fixed. `parseForecast` now returns");
	await page.getByTestId("fit-button").click();
	await card(page, fixed).click();
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-no-summary").click();
	await expect.poll(piLeaf, { timeout: 20_000 }).toBe(fixed);
	await expect(card(page, fixed).getByTestId("pi-leaf-badge")).toBeVisible();
	// The file's last line is still where it was: marked apart from pi's leaf.
	await expect(page.getByTestId("resume-badge")).toHaveText(/last line/);
	expect(sha256(file)).toBe(before);
	await shot(page, "live-pi-moved");

	// Drag pi's badge onto another card on the path.
	const found = idOf(file, "Found it: `parseForecast` reads");
	const b = await page.getByTestId("pi-leaf-badge").boundingBox();
	const d = await card(page, found).boundingBox();
	if (!b || !d) throw new Error("not laid out");
	await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
	await page.mouse.down();
	await page.mouse.move(d.x + d.width / 2, d.y + d.height / 2, { steps: 12 });
	await page.mouse.up();
	await page.getByTestId("navigate-no-summary").click();
	await expect.poll(piLeaf, { timeout: 20_000 }).toBe(found);
	await expect(card(page, found).getByTestId("pi-leaf-badge")).toBeVisible();
	expect(sha256(file)).toBe(before);
});

test("Summarize through pi, stopped with Escape while the summary streams: nothing changes", async ({ page }) => {
	// The loopback model streams slowly: the summary is still running when Escape comes.
	const slow = Array.from({ length: 40 }, (_, i) => `word${i} `);
	const file = await livePi(page, slow, 250);
	const before = sha256(file);
	const leafBefore = await piLeaf();
	const target = idOf(file, "The daily block reports wind");
	await page.getByTestId("fit-button").click();
	await card(page, target).click();
	await page.keyboard.press("Enter");
	const requests = llm!.requests.length;
	await page.getByTestId("navigate-summarize").click();
	await expect(page.getByTestId("navigate-progress")).toBeVisible();
	await expect(page.getByTestId("navigate-progress")).toContainText("pi is summarizing");
	await expect.poll(() => llm!.requests.length, { timeout: 20_000 }).toBeGreaterThan(requests);
	await shot(page, "live-pi-summarizing");
	await page.keyboard.press("Escape");
	await expect(page.getByTestId("navigate-dialog")).toHaveCount(0, { timeout: 20_000 });
	await expect(page.getByTestId("toast-info").last()).toContainText(/cancelled/i);
	expect(await piLeaf()).toBe(leafBefore);
	expect(sha256(file)).toBe(before);
	await expect(page.getByTestId("toast-error")).toHaveCount(0);
});

test("Send runs a real turn in pi: a streaming card, then the entry in the file; Stop ends a turn", async ({ page }) => {
	const answer = ["The ", "parser ", "now ", "handles ", "empty ", "hourly ", "data."];
	const file = await livePi(page, answer, 300);
	await page.getByTestId("composer").fill("Does the parser handle empty hourly data?");
	await expect(page.getByTestId("composer-target")).toHaveText("Send to pi");
	await page.getByTestId("composer-send").click();
	await expect(page.getByTestId("composer")).toHaveValue("");
	const streaming = page.getByTestId("stream-card");
	await expect(streaming).toBeVisible({ timeout: 20_000 });
	await expect(page.getByTestId("live-state")).toHaveText("working…");
	await expect(streaming.getByTestId("stream-text")).toContainText("parser");
	await shot(page, "live-pi-streaming");
	// The real entry replaces the card once pi writes it.
	await expect(streaming).toHaveCount(0, { timeout: 30_000 });
	await expect(page.getByTestId("live-state")).toHaveText("idle", { timeout: 20_000 });
	const last = jsonl(file).at(-1) as { id: string; message: { role: string; content: { text?: string }[] } };
	expect(last.message.role).toBe("assistant");
	expect(last.message.content.map((c) => c.text ?? "").join("")).toBe(answer.join(""));
	expect(await piLeaf()).toBe(last.id);
	const model = llm!.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] };
	expect(JSON.stringify(model.messages.at(-1))).toContain("Does the parser handle empty hourly data?");
	await expect(card(page, last.id)).toBeVisible();

	// A second, slow turn: Stop while it streams.
	llm!.setScenario({ kind: "stream", chunks: Array.from({ length: 60 }, (_, i) => `tok${i} `), delayMs: 300 });
	await page.getByTestId("composer").fill("Now explain it at length.");
	await page.getByTestId("composer-send").click();
	await expect(page.getByTestId("stream-card")).toBeVisible({ timeout: 20_000 });
	await page.getByTestId("composer-stop").click();
	await expect(page.getByTestId("live-state")).toHaveText("idle", { timeout: 20_000 });
	await expect.poll(() => llm!.requests.at(-1)?.aborted, { timeout: 20_000 }).toBe(true);
	await expect(page.getByTestId("toast-error")).toHaveCount(0);
});

test("pi killed mid-turn: Arbor says so, is back on the file with no error, and the draft is kept", async ({ page }) => {
	await livePi(
		page,
		Array.from({ length: 60 }, (_, i) => `tok${i} `),
		300,
	);
	await page.getByTestId("composer").fill("Start a long answer.");
	await page.getByTestId("composer-send").click();
	await expect(page.getByTestId("stream-card")).toBeVisible({ timeout: 20_000 });
	await page.getByTestId("composer").fill("a draft typed while pi works");
	const pid = Number((await page.getByTestId("live-pid").textContent())?.replace("pid ", ""));
	expect(pid).toBeGreaterThan(0);
	process.kill(-pid, "SIGKILL");
	await expect(page.getByTestId("live-badge")).toHaveCount(0, { timeout: 20_000 });
	await expect(page.getByTestId("toast-info").last()).toContainText(/^pi \(pid \d+\) .*the file.*Your draft is kept\./);
	await expect(page.getByTestId("toast-error")).toHaveCount(0);
	await expect(page.getByTestId("stream-card")).toHaveCount(0);
	await expect(page.getByTestId("composer")).toHaveValue("a draft typed while pi works");
	await expect(page.getByTestId("composer-target")).toHaveText(/\.jsonl$/);
	await shot(page, "live-pi-gone");
});

test("the host killed while pi is live: the page keeps no 'Live' and says how to start Arbor again (issue 38)", async ({ page }) => {
	await livePi(page);
	await expect(page.getByTestId("live-badge")).toBeVisible();
	// SIGKILL: the host gets no chance to say goodbye; the page learns it only from its closed socket.
	host!.proc.kill("SIGKILL");
	await expect(page.getByTestId("live-badge")).toHaveCount(0, { timeout: 20_000 });
	await expect(page.getByTestId("toast-error").last()).toContainText("Type /arbor in pi again");
	await shot(page, "live-pi-host-gone");
});

/** axe-core: no serious or critical WCAG 2.1 AA violation, light and dark (as e2e/a11y.spec.ts). */
async function expectAccessible(page: Page, where: string): Promise<void> {
	for (const scheme of ["light", "dark"] as const) {
		await page.emulateMedia({ colorScheme: scheme });
		const r = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
		const bad = r.violations
			.filter((v) => v.impact === "serious" || v.impact === "critical")
			.map(
				(v) =>
					`${v.id}: ${v.help} — ${v.nodes
						.slice(0, 3)
						.map((n) => n.target.join(" "))
						.join(", ")}`,
			);
		expect(bad, `axe on ${where} (${scheme})`).toEqual([]);
	}
	await page.emulateMedia({ colorScheme: "light" });
}

/** The same moment at both window sizes, in light and dark. */
async function shots(page: Page, name: string): Promise<void> {
	for (const scheme of ["light", "dark"] as const) {
		await page.emulateMedia({ colorScheme: scheme });
		for (const [w, h] of [
			[1440, 900],
			[1280, 720],
		]) {
			await page.setViewportSize({ width: w, height: h });
			await shot(page, `${name}-${w}x${h}-${scheme}`);
		}
	}
	await page.emulateMedia({ colorScheme: "light" });
	await page.setViewportSize({ width: 1440, height: 900 });
}

test("navigate while pi works: pi refuses, Arbor says so and offers to wait or stop; Stop pi's turn then moves", async ({ page }) => {
	const file = await livePi(
		page,
		Array.from({ length: 80 }, (_, i) => `step${i} `),
		300,
	);
	await page.getByTestId("composer").fill("Walk me through the fix, step by step.");
	await page.getByTestId("composer-send").click();
	await expect(page.getByTestId("stream-card")).toBeVisible({ timeout: 20_000 });
	await expect(page.getByTestId("stream-text")).toContainText("step3");
	await expect(page.getByTestId("live-state")).toHaveText("working…");
	await shots(page, "live-pi-working");
	await expectAccessible(page, "a live session while pi streams");

	const fixed = idOf(file, "Fixed. `parseForecast` now returns");
	await page.getByTestId("fit-button").click();
	await card(page, fixed).click();
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-no-summary").click();
	await expect(page.getByTestId("navigate-busy")).toBeVisible({ timeout: 20_000 });
	await expect(page.getByTestId("navigate-busy")).toContainText("pi is busy with a turn right now");
	await expect(page.getByTestId("navigate-wait")).toBeFocused();
	await shots(page, "live-pi-busy");
	await expectAccessible(page, "the pi-is-busy dialog");
	await page.getByTestId("navigate-stop-turn").click();
	await expect(page.getByTestId("navigate-dialog")).toHaveCount(0, { timeout: 30_000 });
	await expect.poll(piLeaf, { timeout: 20_000 }).toBe(fixed);
	await expect(page.getByTestId("live-state")).toHaveText("idle");
	await expect(card(page, fixed).getByTestId("pi-leaf-badge")).toBeVisible();
	await expect(page.getByTestId("toast-error")).toHaveCount(0);
	await shots(page, "live-pi-after-stop");
});

test("navigate while pi works, Wait for pi to finish: the move happens when the turn ends", async ({ page }) => {
	const file = await livePi(
		page,
		Array.from({ length: 25 }, (_, i) => `part${i} `),
		250,
	);
	await page.getByTestId("composer").fill("Summarize the session so far.");
	await page.getByTestId("composer-send").click();
	await expect(page.getByTestId("stream-card")).toBeVisible({ timeout: 20_000 });
	const found = idOf(file, "Found it: `parseForecast` reads");
	await page.getByTestId("fit-button").click();
	await card(page, found).click();
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-no-summary").click();
	await expect(page.getByTestId("navigate-busy")).toBeVisible({ timeout: 20_000 });
	await page.getByTestId("navigate-wait").click();
	await expect(page.getByTestId("navigate-waiting")).toBeVisible();
	// The turn runs to its end (its answer lands in the file), then pi moves.
	await expect(page.getByTestId("navigate-dialog")).toHaveCount(0, { timeout: 40_000 });
	await expect.poll(piLeaf, { timeout: 20_000 }).toBe(found);
	const answer = jsonl(file).find((e) => (e.message as { role?: string } | undefined)?.role === "assistant" && JSON.stringify(e).includes("part24"));
	expect(answer, "the turn was not cut short").toBeTruthy();
	await expect(page.getByTestId("toast-error")).toHaveCount(0);
});

test("one leaf while live: after turns pi runs (sent from Arbor or typed in pi) the leaf, the lane and the navigate preview are pi's; after pi goes away Send appends where pi was", async ({
	page,
}) => {
	const file = await livePi(page, ["An answer on the new branch."]);
	const oldLast = idOf(file, "**Fixed:** `weather` no longer crashes");
	const linesBefore = jsonl(file).length;
	// Move pi back to an earlier card (a move that writes nothing).
	const fixed = idOf(file, "Fixed. `parseForecast` now returns");
	await page.getByTestId("fit-button").click();
	await card(page, fixed).click();
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-no-summary").click();
	await expect.poll(piLeaf, { timeout: 20_000 }).toBe(fixed);

	// A turn sent from Arbor: it starts from pi's leaf, and Arbor's leaf follows it to the answer.
	await page.getByTestId("composer").fill("A question sent from Arbor.");
	await page.getByTestId("composer-send").click();
	await expect.poll(() => JSON.stringify(jsonl(file).at(-1)), { timeout: 30_000 }).toContain("An answer on the new branch.");
	await expect(page.getByTestId("live-state")).toHaveText("idle", { timeout: 30_000 });
	const afterSend = await piLeaf();
	expect(afterSend).toBe((jsonl(file).at(-1) as { id: string }).id);
	await expect(card(page, afterSend!).getByTestId("pi-leaf-badge")).toBeVisible({ timeout: 20_000 });
	await expect(page.getByTestId("leaf-badge"), "no second leaf badge on another card").toHaveCount(0);

	// A turn typed in pi itself.
	await pi!.prompt("A question typed in pi.");
	const typed = await piLeaf();
	expect(typed).not.toBe(afterSend);
	await expect(card(page, typed!).getByTestId("pi-leaf-badge")).toBeVisible({ timeout: 20_000 });
	await expect(page.getByTestId("leaf-badge")).toHaveCount(0);
	// The accented lane (the path to the leaf) runs through pi's new turns, and the status bar names pi's leaf.
	await expect(card(page, typed!).locator(".arbor-card")).toHaveClass(/is-active/);
	await expect(card(page, afterSend!).locator(".arbor-card")).toHaveClass(/is-active/);
	await expect(page.getByTestId("status-go-pi")).toContainText("An answer on the new branch");
	await shot(page, "live-pi-one-leaf");

	// The navigate dialog previews from pi's leaf: going back to the old last entry leaves pi's new branch
	// (everything pi wrote since the move: two turns and pi's own model line).
	const written = jsonl(file).length - linesBefore;
	expect(written).toBeGreaterThanOrEqual(4);
	await page.getByTestId("fit-button").click();
	await card(page, oldLast).click();
	await page.keyboard.press("Enter");
	await expect(page.getByTestId("navigate-preview")).toContainText(`Leaving a branch of ${written} entries`);
	await page.getByTestId("navigate-cancel").click();
	await expect(page.getByTestId("navigate-dialog")).toHaveCount(0);

	// pi goes away: the composer appends where pi was.
	const pid = Number((await page.getByTestId("live-pid").textContent())?.replace("pid ", ""));
	process.kill(-pid, "SIGKILL");
	await expect(page.getByTestId("live-badge")).toHaveCount(0, { timeout: 20_000 });
	await expect(card(page, typed!).getByTestId("leaf-badge")).toBeVisible();
	await page.getByTestId("composer").fill("Appended after pi left.");
	await page.getByTestId("composer-send").click();
	await expect.poll(() => (jsonl(file).at(-1) as { message?: { content?: unknown } }).message?.content, { timeout: 20_000 }).toBeTruthy();
	await expect.poll(() => JSON.stringify(jsonl(file).at(-1)), { timeout: 20_000 }).toContain("Appended after pi left.");
	expect((jsonl(file).at(-1) as { parentId: string }).parentId).toBe(typed);
	await expect(page.getByTestId("toast-error")).toHaveCount(0);
});
