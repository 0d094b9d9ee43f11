// The browser host's token in real Chromium: it arrives in the URL fragment, leaves the address bar, lives
// only in the tab (sessionStorage, survives a reload), is sent only on the WebSocket handshake to Arbor's
// own port, and no cookie exists that another server on 127.0.0.1 could receive.
import { createServer, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { openApp } from "./helpers/app";
import { fixturesDir, type Host, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

test("the token never reaches another local port, a cookie or the address bar; a reload keeps working", async ({ page, context }) => {
	const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
	const other = createServer((req, res) => {
		seen.push({ url: req.url ?? "", headers: req.headers });
		res.writeHead(200, { "Content-Type": "text/html" });
		res.end("<!doctype html><title>other local server</title><img src=/pixel.png>");
	});
	await new Promise<void>((ok) => other.listen(0, "127.0.0.1", () => ok()));
	const otherPort = (other.address() as { port: number }).port;
	try {
		host = await startHost([tempCopy(join(fixturesDir, "formic__pi-v3-branch-compaction.jsonl"))]);
		const requests: string[] = [];
		const sockets: string[] = [];
		page.on("request", (r) => requests.push(r.url()));
		page.on("websocket", (ws) => sockets.push(ws.url()));
		await openApp(page, host);
		expect(page.url()).not.toContain(host.token);
		expect(await context.cookies()).toEqual([]);
		// No HTTP request carries it (the fragment is never sent); only the socket handshake, to Arbor's port.
		expect(requests.length).toBeGreaterThan(0);
		expect(requests.filter((u) => u.includes(host!.token))).toEqual([]);
		expect(sockets.length).toBeGreaterThan(0);
		for (const u of sockets) expect(u).toBe(`ws://${new URL(host.url).host}/api?token=${host.token}`);

		await page.reload();
		await expect(page.locator(".react-flow__node").first()).toBeVisible({ timeout: 60_000 });
		expect(page.url()).not.toContain(host.token);

		// The same browser visits another server on 127.0.0.1: nothing of Arbor's goes with it.
		await page.goto(`http://127.0.0.1:${otherPort}/`);
		await expect(page).toHaveTitle("other local server");
		const other2 = await context.newPage();
		await other2.goto(`http://localhost:${otherPort}/x`);
		expect(seen.length).toBeGreaterThan(0);
		for (const r of seen) {
			expect(r.headers.cookie).toBeUndefined();
			expect(JSON.stringify(r)).not.toContain(host.token);
		}
	} finally {
		await new Promise<void>((ok) => other.close(() => ok()));
	}
});
