import { request as httpRequest } from "node:http";
import { connect as netConnect } from "node:net";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeServices } from "../../../api/test/fake-services";
import { startBrowserHost, type BrowserHost } from "../server";
import { connect } from "./ws-client";

interface Reply {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Reply> {
	return new Promise((ok, fail) => {
		const req = httpRequest({ host: "127.0.0.1", port, path, method: "GET", headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
			let body = "";
			res.setEncoding("utf8");
			res.on("data", (d: string) => (body += d));
			res.on("end", () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
		});
		req.on("error", fail);
		req.end();
	});
}

let host: BrowserHost;
let rendererDir: string;

beforeAll(async () => {
	rendererDir = mkdtempSync(join(tmpdir(), "arbor-renderer-"));
	mkdirSync(join(rendererDir, "assets"));
	writeFileSync(join(rendererDir, "index.html"), "<!doctype html><title>Arbor</title><script type=module src=./assets/app.js></script>");
	writeFileSync(join(rendererDir, "assets", "app.js"), "console.log('arbor');");
	writeFileSync(join(tmpdir(), "arbor-outside-secret.txt"), "secret");
	host = await startBrowserHost({ services: fakeServices({ getSettings: () => ({ recentFiles: [] }) }).services, rendererDir, log: () => {} });
});

afterAll(async () => {
	await host.close();
});

describe("browser host: token", () => {
	it("prints a URL on 127.0.0.1 carrying a long random token in its fragment (never sent in an HTTP request)", () => {
		expect(host.url).toBe(`http://127.0.0.1:${host.port}/#token=${host.token}`);
		expect(host.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
	});

	it("serves the page's own files without the token, and never sets a cookie (cookies reach every port of 127.0.0.1)", async () => {
		for (const path of ["/", "/assets/app.js", `/?token=${host.token}`, "/?token=wrong"]) {
			const r = await get(host.port, path);
			expect(r.status, path).toBe(200);
			expect(r.headers["set-cookie"], path).toBeUndefined();
		}
		expect((await get(host.port, "/")).body).toContain("<title>Arbor</title>");
		expect((await get(host.port, "/assets/app.js")).headers["content-type"]).toMatch(/text\/javascript/);
		// The page's files hold no session data and not the token.
		expect((await get(host.port, "/")).body).not.toContain(host.token);
	});

	it("sends a strict CSP and hardening headers", async () => {
		const r = await get(host.port, "/");
		const csp = String(r.headers["content-security-policy"]);
		for (const part of [
			"default-src 'self'",
			"object-src 'none'",
			"base-uri 'none'",
			"frame-ancestors 'none'",
			`connect-src 'self' ws://127.0.0.1:${host.port}`,
		]) {
			expect(csp).toContain(part);
		}
		expect(csp).not.toMatch(/unsafe-eval/);
		expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
		expect(r.headers["x-content-type-options"]).toBe("nosniff");
		expect(r.headers["x-frame-options"]).toBe("DENY");
		expect(r.headers["referrer-policy"]).toBe("no-referrer");
	});

	it("answers 401 to WebSocket upgrades without the token, with a wrong one, or with the token only in a cookie", async () => {
		await expect(connect(host.port)).rejects.toThrow(/401/);
		await expect(connect(host.port, { token: "wrong" })).rejects.toThrow(/401/);
		await expect(connect(host.port, { headers: { Cookie: `arbor_token_${host.port}=${host.token}` } })).rejects.toThrow(/401/);
	});

	it("accepts a WebSocket with the token in its handshake URL", async () => {
		const a = await connect(host.port, { token: host.token, headers: { Origin: `http://127.0.0.1:${host.port}` } });
		expect((await a.request("getSettings")).ok).toBe(true);
		a.close();
	});
});

describe("browser host: Origin and Host (DNS rebinding)", () => {
	it("answers 403 to a foreign Host header even with the token", async () => {
		expect((await get(host.port, `/?token=${host.token}`, { Host: `evil.example:${host.port}` })).status).toBe(403);
		expect((await get(host.port, `/?token=${host.token}`, { Host: "127.0.0.1:1" })).status).toBe(403);
		await expect(connect(host.port, { token: host.token, headers: { Host: `rebind.example:${host.port}` } })).rejects.toThrow(/403/);
	});

	it("accepts localhost:PORT as Host", async () => {
		expect((await get(host.port, `/?token=${host.token}`, { Host: `localhost:${host.port}` })).status).toBe(200);
	});

	it("answers 403 to a foreign Origin on HTTP and WebSocket", async () => {
		expect((await get(host.port, `/?token=${host.token}`, { Origin: "http://evil.example" })).status).toBe(403);
		await expect(connect(host.port, { token: host.token, headers: { Origin: "http://evil.example" } })).rejects.toThrow(/403/);
		await expect(connect(host.port, { token: host.token, headers: { Origin: "null" } })).rejects.toThrow(/403/);
		// Another local server on a different port is a different origin.
		await expect(connect(host.port, { token: host.token, headers: { Origin: "http://127.0.0.1:1" } })).rejects.toThrow(/403/);
	});

	it("answers 403 to cross-site fetches (Sec-Fetch-Site)", async () => {
		const r = await get(host.port, "/assets/app.js", { "Sec-Fetch-Site": "same-site" });
		expect(r.status).toBe(403);
	});

	// The launch page is a local file:// page; Chromium marks its redirect to the host cross-site (issue #27).
	const navigation = { "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document" };

	it("opens the page's HTML shell on a top-level navigation from another site (the file:// launch page)", async () => {
		for (const path of ["/", "/index.html"]) {
			const r = await get(host.port, path, navigation);
			expect(r.status, path).toBe(200);
			expect(r.body).toContain("<title>Arbor</title>");
			expect(r.body).not.toContain(host.token);
			expect(r.headers["x-frame-options"]).toBe("DENY");
			expect(r.headers["cross-origin-opener-policy"]).toBe("same-origin");
		}
	});

	it("still answers 403 to a cross-site request that is not a top-level navigation of the shell", async () => {
		const cases: [string, Record<string, string>][] = [
			["/assets/app.js", navigation],
			["/", { ...navigation, "Sec-Fetch-Dest": "iframe" }],
			["/", { ...navigation, "Sec-Fetch-Mode": "no-cors" }],
			["/", { ...navigation, "Sec-Fetch-Mode": "cors", "Sec-Fetch-Dest": "empty" }],
			["/", { ...navigation, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Dest": "embed" }],
			["/", { ...navigation, Host: `evil.example:${host.port}` }],
			["/", { ...navigation, Origin: "http://evil.example" }],
		];
		for (const [path, headers] of cases) expect((await get(host.port, path, headers)).status, JSON.stringify(headers)).toBe(403);
		await expect(connect(host.port, { token: host.token, headers: navigation })).rejects.toThrow(/403/);
		await expect(connect(host.port, { headers: { ...navigation, "Sec-Fetch-Site": "same-origin" } })).rejects.toThrow(/401/);
	});
});

describe("browser host: network and files", () => {
	it("listens on 127.0.0.1 only", async () => {
		const external = Object.values(networkInterfaces())
			.flat()
			.find((i) => i && i.family === "IPv4" && !i.internal);
		if (external) {
			const reached = await new Promise<boolean>((ok) => {
				const s = netConnect({ host: external.address, port: host.port });
				s.once("connect", () => (s.destroy(), ok(true)));
				s.once("error", () => ok(false));
			});
			expect(reached).toBe(false);
		}
		const loop = await new Promise<boolean>((ok) => {
			const s = netConnect({ host: "127.0.0.1", port: host.port });
			s.once("connect", () => (s.destroy(), ok(true)));
			s.once("error", () => ok(false));
		});
		expect(loop).toBe(true);
	});

	it("never serves files outside the renderer folder", async () => {
		for (const p of ["/../arbor-outside-secret.txt", "/%2e%2e/arbor-outside-secret.txt", "/assets/..%2f..%2farbor-outside-secret.txt", "/%00"]) {
			const r = await get(host.port, p);
			expect(r.status, p).not.toBe(200);
			expect(r.body).not.toContain("secret");
		}
	});

	it("refuses methods other than GET and HEAD", async () => {
		const status = await new Promise<number>((ok, fail) => {
			const req = httpRequest(
				{ host: "127.0.0.1", port: host.port, path: `/?token=${host.token}`, method: "POST", headers: { Host: `127.0.0.1:${host.port}` } },
				(res) => {
					res.resume();
					ok(res.statusCode ?? 0);
				},
			);
			req.on("error", fail);
			req.end("x");
		});
		expect(status).toBe(405);
	});

	it("serves a clear 'run npm run build' page when the renderer is not built", async () => {
		const empty = mkdtempSync(join(tmpdir(), "arbor-nobuild-"));
		const h = await startBrowserHost({ services: fakeServices().services, rendererDir: empty, log: () => {} });
		try {
			const r = await get(h.port, `/?token=${h.token}`);
			expect(r.status).toBe(503);
			expect(r.body).toContain("npm run build");
		} finally {
			await h.close();
		}
	});
});
