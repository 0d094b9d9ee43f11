// pi's auth.json as a pi-ai CredentialStore: `{ "<provider>": { "type": "api_key", "key", "env"? } |
// { "type": "oauth", "access", "refresh", "expires", ... } }`. Reads resolve key templates as pi 1.6 does;
// the one write (pi-ai refreshing an expired OAuth token inside `modify`) takes the same lock pi takes
// (a `<auth.json>.lock` folder, as proper-lockfile makes it), so pi and Arbor never both spend a
// single-use refresh token. Keys never leave this module except to the request that needs them.

import * as fs from "node:fs";
import * as path from "node:path";
import type { Credential, CredentialInfo, CredentialStore } from "@earendil-works/pi-ai";
import { type Env, isCommandValue, readPiJson, resolveConfigValue } from "./pi-config";
import { isRecord } from "../../shared/guards";

function stringMap(v: unknown): Record<string, string> | undefined {
	if (!isRecord(v)) return undefined;
	const out: Record<string, string> = {};
	for (const [k, val] of Object.entries(v)) if (typeof val === "string") out[k] = val;
	return out;
}

/** A credential as pi validates it; anything else in auth.json is ignored. */
function parseCredential(v: unknown): Credential | undefined {
	if (!isRecord(v)) return undefined;
	if (v.type === "api_key") {
		if (v.key !== undefined && typeof v.key !== "string") return undefined;
		const env = stringMap(v.env);
		return { type: "api_key", ...(typeof v.key === "string" ? { key: v.key } : {}), ...(env ? { env } : {}) };
	}
	if (v.type === "oauth" && typeof v.access === "string" && typeof v.refresh === "string" && typeof v.expires === "number" && Number.isFinite(v.expires)) {
		return { ...(v as Record<string, unknown>), type: "oauth", access: v.access, refresh: v.refresh, expires: v.expires };
	}
	return undefined;
}

const LOCK_STALE_MS = 30_000;

function sleep(ms: number): Promise<void> {
	return new Promise((r) => setTimeout(r, ms));
}

/** proper-lockfile's protocol: mkdir `<realpath>.lock`; a lock older than the stale time is taken over. */
async function withFileLock<T>(file: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
	let target = file;
	try {
		target = fs.realpathSync(file);
	} catch {
		// not created yet: lock the plain path
	}
	const lock = `${target}.lock`;
	const deadline = Date.now() + LOCK_STALE_MS;
	for (let attempt = 0; ; attempt++) {
		signal?.throwIfAborted();
		try {
			fs.mkdirSync(lock);
			break;
		} catch (err) {
			if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
			try {
				if (Date.now() - fs.statSync(lock).mtimeMs > LOCK_STALE_MS) {
					fs.rmdirSync(lock);
					continue;
				}
			} catch {
				continue;
			}
			if (Date.now() > deadline) throw new Error(`${path.basename(file)} is locked by another process`);
			await sleep(Math.min(10 * 2 ** attempt, 1_000));
		}
	}
	try {
		return await fn();
	} finally {
		try {
			fs.rmdirSync(lock);
		} catch {
			// already gone
		}
	}
}

export class AuthJsonStore implements CredentialStore {
	readonly file: string;
	readonly #env: Env;

	constructor(file: string, env: Env) {
		this.file = file;
		this.#env = env;
	}

	#load(): Record<string, unknown> {
		const r = readPiJson(this.file);
		return r.ok && isRecord(r.value) ? r.value : {};
	}

	/** The stored credential exactly as written (templates unresolved), for reporting its kind. */
	raw(providerId: string): Credential | undefined {
		return parseCredential(this.#load()[providerId]);
	}

	async read(providerId: string): Promise<Credential | undefined> {
		const c = parseCredential(this.#load()[providerId]);
		if (!c || c.type !== "api_key" || c.key === undefined) return c;
		// "!cmd" keys are resolved by the provider's own API-key auth in pi; its value rule is the same.
		const key = isCommandValue(c.key) ? resolveConfigValue(c.key, this.#env) : resolveConfigValue(c.key, this.#env, c.env);
		return { ...c, ...(key !== undefined ? { key } : { key: undefined }) } as Credential;
	}

	async list(): Promise<readonly CredentialInfo[]> {
		const out: CredentialInfo[] = [];
		for (const [providerId, v] of Object.entries(this.#load())) {
			const c = parseCredential(v);
			if (c) out.push({ providerId, type: c.type });
		}
		return out;
	}

	async modify(
		providerId: string,
		fn: (current: Credential | undefined) => Promise<Credential | undefined>,
		options?: { signal?: AbortSignal },
	): Promise<Credential | undefined> {
		return withFileLock(
			this.file,
			async () => {
				const data = this.#load();
				const current = parseCredential(data[providerId]);
				const next = await fn(current);
				if (next === undefined) return current;
				const merged = { ...data, [providerId]: next };
				// In place, as pi writes it: the file keeps its owner, mode and ACLs (0600 when created).
				fs.writeFileSync(this.file, JSON.stringify(merged, null, 2), { encoding: "utf8", mode: 0o600 });
				return next;
			},
			options?.signal,
		);
	}

	async delete(): Promise<void> {
		throw new Error("Arbor does not remove pi's credentials (use pi's /logout).");
	}
}
