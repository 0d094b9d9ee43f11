// Figure 7: the browser host refuses API requests without the launch token (401), sets no cookie, refuses a foreign Origin or
// Host or a cross-site fetch (403), on HTTP and on the WebSocket upgrade, and listens on 127.0.0.1 only.
import { request } from "node:http";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { startHost } from "./apifuzz.mjs";

function httpGet(port, path, headers = {}) {
	return new Promise((resolve) => {
		const req = request({ host: "127.0.0.1", port, path, method: "GET", headers }, (res) => {
			res.resume();
			res.on("end", () => resolve(res.statusCode));
		});
		req.on("error", (e) => resolve(`error ${e.code}`));
		req.end();
	});
}

function wsStatus(port, query, headers = {}) {
	return new Promise((resolve) => {
		const ws = new WebSocket(`ws://127.0.0.1:${port}/api${query}`, { headers });
		ws.on("open", () => {
			ws.close();
			resolve(101);
		});
		ws.on("unexpected-response", (_req, res) => resolve(res.statusCode));
		ws.on("error", (e) => resolve(`error ${e.code ?? e.message}`));
	});
}

function tryConnect(host, port) {
	return new Promise((resolve) => {
		const s = connect({ host, port, timeout: 2000 });
		s.on("connect", () => {
			s.destroy();
			resolve("connected");
		});
		s.on("error", (e) => resolve(e.code));
		s.on("timeout", () => {
			s.destroy();
			resolve("timeout");
		});
	});
}

/** Local addresses the port listens on, from /proc/net/tcp{,6} (Linux). */
function listeningAddresses(port) {
	const out = [];
	for (const f of ["/proc/net/tcp", "/proc/net/tcp6"]) {
		let text;
		try {
			text = readFileSync(f, "utf8");
		} catch {
			continue;
		}
		for (const line of text.split("\n").slice(1)) {
			const cols = line.trim().split(/\s+/);
			if (cols.length < 4 || cols[3] !== "0A") continue; // 0A = LISTEN
			const [addr, p] = cols[1].split(":");
			if (parseInt(p, 16) !== port) continue;
			if (addr.length === 8)
				out.push(
					addr
						.match(/../g)
						.reverse()
						.map((h) => parseInt(h, 16))
						.join("."),
				);
			else out.push(`ipv6:${addr}`);
		}
	}
	return out;
}

/** Whether any response to `path` sets a cookie. */
function setsCookie(port, path) {
	return new Promise((ok) => {
		const req = request({ host: "127.0.0.1", port, path, headers: { Host: `127.0.0.1:${port}` } }, (res) => {
			res.resume();
			ok(res.headers["set-cookie"] !== undefined);
		});
		req.on("error", () => ok(true));
		req.end();
	});
}

export async function run(ctx) {
	const { tmp } = ctx;
	mkdirSync(join(tmp, "home"), { recursive: true });
	const file = join(tmp, "s.jsonl");
	writeFileSync(file, '{"type":"session","version":3,"id":"h","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n');
	const renderer = join(tmp, "renderer");
	mkdirSync(renderer, { recursive: true });
	writeFileSync(join(renderer, "index.html"), "<!doctype html><title>t</title>");
	const host = await startHost(ctx, { files: [file], dirs: [], home: join(tmp, "home"), rendererDir: renderer });
	const { port, token } = host;
	const cases = [];
	const expect = async (label, want, got) => cases.push({ label, want, got: await got });
	let addrs = [];
	const externalResults = [];
	let v6 = "";
	let cookieSet = true;
	try {
		// The page's own files need no token (they hold no session data); the API does. No cookie ever.
		await expect("HTTP, the page's own files", 200, httpGet(port, "/"));
		cookieSet = await setsCookie(port, `/?token=${token}`);
		await expect("HTTP, token, foreign Host (DNS rebinding)", 403, httpGet(port, `/?token=${token}`, { Host: `evil.example:${port}` }));
		await expect("HTTP, token, Host on another port", 403, httpGet(port, `/?token=${token}`, { Host: `127.0.0.1:${port + 1}` }));
		await expect("HTTP, token, foreign Origin", 403, httpGet(port, `/?token=${token}`, { Origin: "http://evil.example" }));
		await expect("HTTP, token, Origin null", 403, httpGet(port, `/?token=${token}`, { Origin: "null" }));
		await expect("HTTP, token, cross-site fetch", 403, httpGet(port, `/?token=${token}`, { "Sec-Fetch-Site": "cross-site" }));
		await expect("HTTP, path traversal", 404, httpGet(port, "/../../etc/passwd"));
		await expect("WebSocket with the token", 101, wsStatus(port, `?token=${token}`));
		await expect("WebSocket without a token", 401, wsStatus(port, ""));
		await expect("WebSocket with a wrong token", 401, wsStatus(port, "?token=wrong"));
		await expect("WebSocket with the token only in a cookie", 401, wsStatus(port, "", { Cookie: `arbor_token_${port}=${token}` }));
		await expect("WebSocket, token, foreign Origin", 403, wsStatus(port, `?token=${token}`, { Origin: "http://evil.example" }));
		await expect("WebSocket, token, foreign Host", 403, wsStatus(port, `?token=${token}`, { Host: `evil.example:${port}` }));
		await expect("WebSocket, token, another 127.0.0.1 port as Origin", 403, wsStatus(port, `?token=${token}`, { Origin: `http://127.0.0.1:${port + 1}` }));
		await expect("WebSocket, token, cross-site", 403, wsStatus(port, `?token=${token}`, { "Sec-Fetch-Site": "same-site" }));
		// Binding, while the host runs: the listening socket and connection attempts from other addresses.
		addrs = listeningAddresses(port);
		const external = Object.values(networkInterfaces())
			.flat()
			.filter((i) => i && !i.internal && i.family === "IPv4")
			.map((i) => i.address);
		for (const ip of external) externalResults.push({ ip, result: await tryConnect(ip, port) });
		v6 = await tryConnect("::1", port);
	} finally {
		host.worker.kill();
	}
	const refusedOk = cases.filter((c) => c.want !== 200 && c.want !== 101);
	const refusals = refusedOk.filter((c) => c.got === c.want).length;
	const accepts = cases.filter((c) => (c.want === 200 || c.want === 101) && c.got === c.want).length;
	const loopbackOnly =
		addrs.length > 0 && addrs.every((a) => a === "127.0.0.1") && externalResults.every((r) => r.result !== "connected") && v6 !== "connected";
	return {
		title: "Browser host: token, Origin/Host checks, loopback binding",
		figures: [
			{
				label: "hostile requests refused with the right status (401 no/wrong token on the API, 403 foreign Origin/Host/site, 404 traversal)",
				value: `${refusals}/${refusedOk.length}`,
				ok: refusals === refusedOk.length,
			},
			{ label: "legitimate requests accepted (HTTP 200, WebSocket 101)", value: `${accepts}/2`, ok: accepts === 2 },
			{ label: "cookies set (a cookie would reach every 127.0.0.1 port)", value: cookieSet ? 1 : 0, target: 0 },
			{
				label: "listens on",
				value: `${addrs.join(", ") || "?"}; from ${externalResults.map((r) => `${r.ip}: ${r.result}`).join(", ") || "no external interface"}; ::1: ${v6}`,
				ok: loopbackOnly,
			},
		],
		details: cases.filter((c) => c.got !== c.want).map((c) => `${c.label}: expected ${c.want}, got ${c.got}`),
	};
}
