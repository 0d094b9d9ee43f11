// One browser host per user (docs/hosts.md "One host per user"): the first plain `arbor serve FILE` (the
// one `/arbor` starts, too) records itself in `~/.arbor/host.json`, 0600 in the 0700 `~/.arbor`, since it
// holds the page's token and the control secret; a later one hands its files to it through the control door
// (hosts/browser/control.ts) and exits. A record whose process is gone or that does not answer is ignored.

import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, rmSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { makePrivateDir, writePrivateFile } from "../services/arbor-files";
import { pidAlive } from "../services/live/registry";
import type { ControlAnswer } from "../hosts/browser/control";

export const HOST_RECORD = "host.json";

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

/** The user's running host, or null (no record, a damaged one, or its process is gone). */
export function readHostRecord(arborDir: string): HostRecord | null {
	try {
		const v = JSON.parse(readFileSync(join(arborDir, HOST_RECORD), "utf8")) as Partial<HostRecord>;
		if (typeof v.pid !== "number" || typeof v.port !== "number" || typeof v.url !== "string" || typeof v.secret !== "string") return null;
		return pidAlive(v.pid) ? (v as HostRecord) : null;
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

/** Removes the record if it is still this process's (a newer host may have replaced it). */
export function removeHostRecord(arborDir: string): void {
	try {
		const v = JSON.parse(readFileSync(join(arborDir, HOST_RECORD), "utf8")) as Partial<HostRecord>;
		if (v.pid === process.pid) rmSync(join(arborDir, HOST_RECORD), { force: true });
	} catch {
		// nothing recorded, or not ours to remove
	}
}

/** Asks the recorded host to open `files` (and show its page when none is connected); null if it does not answer. */
export function askHostToOpen(record: HostRecord, files: string[], show: boolean): Promise<ControlAnswer | null> {
	const body = JSON.stringify({ files, show });
	return new Promise((resolve) => {
		const req = request(
			{
				host: "127.0.0.1",
				port: record.port,
				path: "/control/open",
				method: "POST",
				timeout: 30_000,
				headers: {
					Host: `127.0.0.1:${record.port}`,
					Authorization: `Bearer ${record.secret}`,
					"Content-Type": "application/json",
					"Content-Length": String(Buffer.byteLength(body)),
				},
			},
			(res) => {
				let text = "";
				res.setEncoding("utf8");
				res.on("data", (d: string) => (text += d));
				res.on("end", () => {
					try {
						resolve(res.statusCode === 200 ? (JSON.parse(text) as ControlAnswer) : null);
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
