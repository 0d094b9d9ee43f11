// Live files: lines another process (pi in a terminal) appends show up in the open graph, without
// losing the selection.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { card, jsonl, openApp, shot } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";
import { SessionManager } from "../electron/session";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

test("entries appended by a second process appear in the graph", async ({ page }) => {
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	host = await startHost([file]);
	await openApp(page, host);
	const last = jsonl(file).at(-1) as { id: string };
	const entries = await page.getByTestId("status-entries").textContent();
	const user = {
		type: "message",
		id: "live0001",
		parentId: last.id,
		timestamp: new Date().toISOString(),
		message: { role: "user", content: [{ type: "text", text: "A message pi appended while Arbor was open" }], timestamp: Date.now() },
	};
	const script = `require("node:fs").appendFileSync(${JSON.stringify(file)}, ${JSON.stringify(`${JSON.stringify(user)}\n`)})`;
	const r = spawnSync(process.execPath, ["-e", script]);
	expect(r.status).toBe(0);
	await expect(page.getByTestId("status-entries")).not.toHaveText(entries ?? "", { timeout: 10_000 });
	await page.getByTestId("zoom-leaf-button").click();
	await expect(card(page, "live0001")).toBeVisible({ timeout: 10_000 });
	// The app's leaf was where pi resumes, so it follows the agent onto the new entry.
	await expect(card(page, "live0001").locator(".is-leaf")).toHaveCount(1);
	await shot(page, "live-append");
});

test("after a burst of appends by pi (labels, summaries, a late parent, a re-used id, a split line) the renderer's skeleton equals a fresh open", async ({
	page,
}) => {
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	host = await startHost([file]);
	await openApp(page, host);
	const snapshot = () => page.evaluate((p) => (window as unknown as { __arborSkeletonOf(p: string): unknown }).__arborSkeletonOf(p), file);
	const writer = spawn(process.execPath, [join(repoRoot, "e2e", "helpers", "live-writer.mjs"), file, "120"], {
		cwd: repoRoot,
		stdio: ["ignore", "ignore", "pipe"],
	});
	let stderr = "";
	writer.stderr?.on("data", (d) => (stderr += String(d)));
	const code = await new Promise<number | null>((ok) => writer.on("exit", ok));
	expect(code, stderr).toBe(0);
	const fresh = (() => {
		const sm = SessionManager.open(file);
		const k = sm.getSkeleton();
		sm.close();
		return {
			ids: k.ids,
			parent: Array.from(k.parent),
			flags: Array.from(k.flags),
			kind: Array.from(k.kind),
			labels: k.labels.map((l) => ({ target: l.target, label: l.label })),
			leaf: k.leaf,
			resumeLeaf: k.resumeLeaf,
		};
	})();
	expect(fresh.ids).toContain("e2e-split");
	// The watcher delivers the last lines within its poll; then the copy must match entry for entry.
	await expect.poll(async () => ((await snapshot()) as { ids: string[] } | null)?.ids.length, { timeout: 20_000 }).toBe(fresh.ids.length);
	expect(await snapshot()).toEqual(fresh);
	await shot(page, "live-burst");
});
