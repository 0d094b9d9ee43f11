// A minimal Node WebSocket client speaking the wire codec, for host tests.
import WebSocket from "ws";
import type { ArborErrorData, ArborEvent } from "../../../../shared/api";
import { decodeWire, encodeWire } from "../../../../shared/wire";

export interface TestClient {
	ws: WebSocket;
	events: ArborEvent[];
	request(name: string, params?: unknown): Promise<{ ok: true; result: unknown } | { ok: false; error: ArborErrorData }>;
	waitForEvent(pred: (e: ArborEvent) => boolean, timeoutMs?: number): Promise<ArborEvent>;
	close(): void;
}

export function connect(port: number, opts: { token?: string; headers?: Record<string, string>; host?: string } = {}): Promise<TestClient> {
	const query = opts.token !== undefined ? `?token=${encodeURIComponent(opts.token)}` : "";
	const ws = new WebSocket(`ws://${opts.host ?? "127.0.0.1"}:${port}/api${query}`, { headers: opts.headers });
	ws.binaryType = "arraybuffer";
	const events: ArborEvent[] = [];
	const pending = new Map<number, (r: { ok: true; result: unknown } | { ok: false; error: ArborErrorData }) => void>();
	const waiters: { pred: (e: ArborEvent) => boolean; ok: (e: ArborEvent) => void }[] = [];
	let nextId = 1;
	ws.on("message", (data: ArrayBuffer) => {
		const m = decodeWire(data);
		if (m.t === "res") {
			pending.get(m.id)?.(m.ok ? { ok: true, result: m.result } : { ok: false, error: m.error });
			pending.delete(m.id);
		} else if (m.t === "evt") {
			events.push(m.event);
			for (const w of [...waiters]) {
				if (w.pred(m.event)) {
					waiters.splice(waiters.indexOf(w), 1);
					w.ok(m.event);
				}
			}
		}
	});
	const client: TestClient = {
		ws,
		events,
		request(name, params = {}) {
			const id = nextId++;
			return new Promise((ok) => {
				pending.set(id, ok);
				ws.send(encodeWire({ t: "req", id, name, params }));
			});
		},
		waitForEvent(pred, timeoutMs = 10_000) {
			const found = events.find(pred);
			if (found) return Promise.resolve(found);
			return new Promise((ok, fail) => {
				const timer = setTimeout(() => fail(new Error("event did not arrive")), timeoutMs);
				waiters.push({ pred, ok: (e) => (clearTimeout(timer), ok(e)) });
			});
		},
		close: () => ws.close(),
	};
	return new Promise((ok, fail) => {
		ws.once("open", () => ok(client));
		ws.once("unexpected-response", (_req, res) => fail(new Error(`HTTP ${res.statusCode}`)));
		ws.once("error", fail);
	});
}
