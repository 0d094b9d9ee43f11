// A pi extension that sends a malformed stream update (issue #28 item 5): with the app open on a session a
// fake pi holds, a `message_update` whose content is [null] used to throw in the graph's streaming cards and
// blank the page. A real pi never sends one, so a fake pi endpoint (the wire of shared/live.ts on a private
// socket with a registration) does: the page keeps rendering, the next good update streams, a notice says
// what was dropped.
import type { Server } from "node:net";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { jsonl, openApp, shot } from "./helpers/app";
import { startFakePi } from "./helpers/fake-pi";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
let server: Server | undefined;
test.afterEach(async () => {
	await host?.stop();
	server?.close();
	host = server = undefined;
});

test("a malformed stream update from a live pi is dropped with a notice; the page keeps rendering and the next update streams", async ({ page }) => {
	const errors: string[] = [];
	page.on("pageerror", (e) => errors.push(e.message));
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	const entries = jsonl(file);
	const leafId = entries.at(-1)!.id as string;
	const pi = await startFakePi(file, { sessionId: "s", leafId, model: null, status: "streaming", cwd: "/" });
	server = pi.server;
	const { home, clients } = pi;

	host = await startHost([file], { env: { HOME: home } });
	await openApp(page, host);
	await expect(page.getByTestId("live-badge")).toBeVisible({ timeout: 30_000 });
	expect(clients.length).toBeGreaterThan(0);
	const update = (content: unknown) => ({
		type: "event",
		event: { type: "message_update", phase: "update", stream: { key: "0.0", parentId: leafId, message: { role: "assistant", content } } },
	});
	for (const c of clients) c.write(`${JSON.stringify(update([null]))}\n${JSON.stringify(update([{ type: "text", text: "still streaming fine" }]))}\n`);
	const card = page.getByTestId("stream-card");
	await expect(card.getByTestId("stream-text")).toContainText("still streaming fine", { timeout: 20_000 });
	await expect(page.getByText(/malformed message_update event dropped/)).toBeVisible();
	await expect(page.getByTestId("live-badge")).toBeVisible();
	await shot(page, "live-malformed-event");
	expect(errors).toEqual([]);
});
