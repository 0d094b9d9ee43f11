// A listener on a stale host record's port (issue 39): keeps every byte it receives and answers each request as
// a test tells it to, so a test can count what a later `arbor serve` or `/arbor` sent to whoever listens there.
import { createServer, type Server } from "node:net";

/** How the fake on the recorded port answers a request: its HTTP response, or null to close without one. */
export type Answer = (request: string) => string | null;

export const http200 = (body: object): string => {
	const text = JSON.stringify(body);
	return `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`;
};
/** The client's nonce in a hello request's body. */
export const nonceIn = (request: string): string => (JSON.parse(request.slice(request.indexOf("\r\n\r\n") + 4)) as { nonce: string }).nonce;

/** A listener on 127.0.0.1 that keeps every byte it receives and answers each request with `answer`. */
export async function fakeListener(answer: Answer): Promise<{ server: Server; port: number; received: () => Buffer; requests: () => number }> {
	const chunks: Buffer[] = [];
	let requests = 0;
	const server = createServer((socket) => {
		let got = "";
		socket.on("data", (d: Buffer) => {
			chunks.push(d);
			got += d.toString("latin1");
			const end = got.indexOf("\r\n\r\n");
			const length = Number(/content-length: (\d+)/i.exec(got)?.[1] ?? 0);
			if (end < 0 || got.length < end + 4 + length) return;
			requests++;
			const reply = answer(got);
			if (reply === null) socket.destroy();
			else socket.end(reply);
		});
		socket.on("error", () => {});
	});
	await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
	return { server, port: (server.address() as { port: number }).port, received: () => Buffer.concat(chunks), requests: () => requests };
}
