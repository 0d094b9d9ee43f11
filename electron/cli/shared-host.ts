// One browser host per user (docs/hosts.md "One host per user"): the first plain `arbor serve FILE` (the
// one `/arbor` starts, too) records itself in `~/.arbor/host.json`, 0600 in the 0700 `~/.arbor`, since it
// holds the page's token and the control secret; a later one hands its files to it through the control door
// (hosts/browser/control.ts) and exits. A record whose process is gone is ignored. One whose port does not
// prove it holds the secret (the record outlived its host, SIGKILL say, and the pid and port are someone
// else's now) is gone too: it was sent a random nonce and nothing else, and the record is removed.

import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, renameSync, rmSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { makePrivateDir, writePrivateFile } from "../services/arbor-files";
import { pidAlive } from "../../shared-node/pid";
import { privacyProblem } from "../../shared-node/private";
import { CONTROL_PATH, type ControlAnswer, clientProof, HELLO_PATH, hostProof, newNonce, proofHeader, sameText } from "../hosts/browser/control";

export const HOST_RECORD = "host.json";
/** An answer longer than this is not a control door's. */
const MAX_ANSWER = 1 << 20;

export interface HostRecord {
	pid: number;
	port: number;
	/** The page's address with its token (printed to the user, shown in pi). */
	url: string;
	/** The control door's secret: never given to a page. */
	secret: string;
}

export function newControlSecret(): string {
	return randomBytes(32).toString("base64url");
}

function parseRecord(text: string): HostRecord | null {
	const v = JSON.parse(text) as Partial<HostRecord>;
	if (typeof v.pid !== "number" || typeof v.port !== "number" || typeof v.url !== "string" || typeof v.secret !== "string") return null;
	return { pid: v.pid, port: v.port, url: v.url, secret: v.secret };
}

const sameRecord = (a: HostRecord, b: HostRecord): boolean => a.pid === b.pid && a.port === b.port && a.url === b.url && a.secret === b.secret;

/**
 * The user's recorded host, or null: no record, a damaged one, one that is not the user's own 0600 file, or its
 * process is gone. A record returned here is only a claim: `askHostToOpen` has the host prove it first.
 */
export function readHostRecord(arborDir: string): HostRecord | null {
	const file = join(arborDir, HOST_RECORD);
	try {
		if (privacyProblem(file, "file") !== null) return null;
		const v = parseRecord(readFileSync(file, "utf8"));
		return v && pidAlive(v.pid) ? v : null;
	} catch {
		return null;
	}
}

/** Records this process as the user's host (a whole file at once: a reader never sees half of it). */
export function writeHostRecord(arborDir: string, record: HostRecord): void {
	makePrivateDir(arborDir);
	const temp = join(arborDir, `.${HOST_RECORD}.${process.pid}`);
	writePrivateFile(temp, `${JSON.stringify(record)}\n`);
	renameSync(temp, join(arborDir, HOST_RECORD));
}

/**
 * Removes the record when it is still `record` (a newer host may have replaced it since it was read) and the
 * user's own file. It is moved aside first, so the check and the removal see the same file; a record that turns
 * out to be another goes back unless a newer one took its place meanwhile.
 */
export function forgetHostRecord(arborDir: string, record: HostRecord): void {
	const file = join(arborDir, HOST_RECORD);
	const aside = join(arborDir, `.${HOST_RECORD}.${process.pid}.${randomBytes(4).toString("hex")}.old`);
	try {
		renameSync(file, aside);
	} catch {
		return;
	}
	let same = false;
	try {
		const v = privacyProblem(aside, "file") === null ? parseRecord(readFileSync(aside, "utf8")) : null;
		same = v !== null && sameRecord(v, record);
	} catch {}
	try {
		if (!same) linkSync(aside, file);
	} catch {
		// a newer record is in place: it wins
	}
	rmSync(aside, { force: true });
}

/** Removes this process's own record (on stop). */
export function removeHostRecord(arborDir: string, own: HostRecord): void {
	forgetHostRecord(arborDir, own);
}

/** POSTs `body` to the recorded port; the answer's JSON when it is 200, else null. Nothing else is sent. */
function post(port: number, path: string, body: string, headers: Record<string, string>, timeout: number): Promise<unknown> {
	return new Promise((resolve) => {
		const req = request(
			{
				host: "127.0.0.1",
				port,
				path,
				method: "POST",
				timeout,
				headers: { Host: `127.0.0.1:${port}`, "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(body)), ...headers },
			},
			(res) => {
				let text = "";
				res.setEncoding("utf8");
				res.on("data", (d: string) => {
					if (text.length < MAX_ANSWER) text += d;
				});
				res.on("end", () => {
					try {
						resolve(res.statusCode === 200 ? (JSON.parse(text) as unknown) : null);
					} catch {
						resolve(null);
					}
				});
			},
		);
		req.on("timeout", () => req.destroy());
		req.on("error", () => resolve(null));
		req.end(body);
	});
}

/**
 * Has the recorded host prove it holds the record's secret: it is sent a random nonce, nothing else. The host's
 * own nonce for the request that follows, or null when whatever listens on the port cannot prove it.
 */
export async function proveHost(record: HostRecord, timeout = 10_000): Promise<string | null> {
	const nonce = newNonce();
	const a = (await post(record.port, HELLO_PATH, JSON.stringify({ nonce }), {}, timeout)) as { proof?: unknown; nonce?: unknown } | null;
	if (!a || typeof a.proof !== "string" || typeof a.nonce !== "string") return null;
	return sameText(a.proof, hostProof(record.secret, record.port, nonce)) ? a.nonce : null;
}

/**
 * Asks the recorded host to open `files` (and show its page when none is connected). "gone" when the host does
 * not prove it holds the secret (the files are not sent); null when a proven host does not answer the request.
 */
export async function askHostToOpen(record: HostRecord, files: string[], show: boolean): Promise<ControlAnswer | "gone" | null> {
	const hostNonce = await proveHost(record);
	if (hostNonce === null) return "gone";
	const body = JSON.stringify({ files, show });
	const proof = clientProof(record.secret, record.port, hostNonce, body);
	return (await post(record.port, CONTROL_PATH, body, { Authorization: proofHeader(hostNonce, proof) }, 30_000)) as ControlAnswer | null;
}
