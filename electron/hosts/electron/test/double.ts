// Test side of electron-double.cjs: start a built main script under the double in its own Node process
// and drive it over the fork IPC channel.
import { fork, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";

export const DOUBLE = resolve(import.meta.dirname, "electron-double.cjs");

export interface DoubleWindow {
	options: { backgroundColor?: string; show?: boolean; webPreferences: Record<string, unknown> } & Record<string, unknown>;
	shown: boolean;
	maximized: boolean;
	url: string | null;
	loaded: boolean;
	/** The page first: `csp` as the page got it (after onHeadersReceived), `protocolCsp` as the protocol handler sent it. */
	assets: { url: string; status: number; type?: string | null; csp?: string | null; protocolCsp?: string | null }[];
	preloadProblems: string[];
	/** The preload as run in its isolated world (sandboxed-renderer.cjs): what it exposed and required. */
	renderer: { exposedKeys: string[]; requires: string[] } | null;
	delivered: { channel: string; payload: { type: string; session?: { path: string } } }[];
	dropped: { channel: string; payload: { type: string } }[];
}

export interface DoubleState {
	calls: string[];
	violations: string[];
	lost: string[];
	ready: boolean;
	name: string;
	paths: Record<string, string>;
	lockTaken: boolean;
	lockUserData: string | null;
	lockData: unknown;
	sandbox: boolean;
	recentDocuments: string[];
	dialogs: { kind: string; message: string; detail?: string; buttons?: string[] }[];
	opened: string[];
	windows: DoubleWindow[];
	exitCode: number | null;
	themeSource: string;
	held: string[];
	menu: { label?: string; role?: string; submenu?: unknown[] }[] | null;
}

export interface DoubleOptions {
	layout: "dev" | "packaged";
	/** The main script (dev: <repo>/dist/main.cjs; packaged: <app root>/dist/main.cjs). */
	main: string;
	/** Packaged only: the unpacked app.asar folder. */
	appRoot?: string;
	home: string;
	args?: string[];
	cwd?: string;
	lockHeld?: boolean;
	/** Files whose first realpath waits for release(). */
	hold?: string[];
	env?: Record<string, string>;
}

export interface Double {
	child: ChildProcess;
	/** Resolves when main.cjs was required (its synchronous part ran: everything before `ready`). */
	loaded: Promise<void>;
	send<T = unknown>(cmd: string, params?: Record<string, unknown>): Promise<T>;
	state(): Promise<DoubleState>;
	ready(): Promise<void>;
	/** A request from the page over the request channel. */
	invoke<T = { ok: boolean; result?: unknown; error?: { code: string; message: string } }>(name: string, params?: unknown): Promise<T>;
	/** Poll the double's state until `check` holds (event-driven start-up, not a timing assertion). */
	until(check: (s: DoubleState) => boolean, what: string): Promise<DoubleState>;
	stop(): Promise<void>;
}

export function appDataOf(home: string): string {
	return join(home, ".config");
}

export function startDouble(o: DoubleOptions): Double {
	const child = fork(DOUBLE, o.args ?? [], {
		cwd: o.cwd ?? o.home,
		serialization: "advanced",
		stdio: ["ignore", "pipe", "pipe", "ipc"],
		env: {
			PATH: process.env.PATH ?? "",
			HOME: o.home,
			PI_CODING_AGENT_DIR: join(o.home, ".pi", "agent"),
			ARBOR_DOUBLE_LAYOUT: o.layout,
			ARBOR_DOUBLE_MAIN: o.main,
			ARBOR_DOUBLE_APP_ROOT: o.appRoot ?? "",
			ARBOR_DOUBLE_APPDATA: appDataOf(o.home),
			ARBOR_DOUBLE_LOCK: o.lockHeld ? "held" : "",
			ARBOR_DOUBLE_HOLD: (o.hold ?? []).join(":"),
			...o.env,
		},
	});
	let output = "";
	child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
	child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
	let next = 1;
	const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: Error) => void }>();
	let loadedOk: () => void;
	let loadedFail: (e: Error) => void;
	const loaded = new Promise<void>((ok, fail) => {
		loadedOk = ok;
		loadedFail = fail;
	});
	child.on("message", (m: { id?: number; ok?: boolean; result?: unknown; error?: string; event?: string }) => {
		if (m.event === "main-loaded") loadedOk();
		if (m.event === "main-failed") loadedFail(new Error(`main failed to load: ${m.error}`));
		if (m.id === undefined) return;
		const p = pending.get(m.id);
		pending.delete(m.id);
		if (m.ok) p?.ok(m.result);
		else p?.fail(new Error(m.error));
	});
	child.on("exit", (code) => {
		loadedFail(new Error(`double exited (${code}) before main loaded:\n${output}`));
		for (const p of pending.values()) p.fail(new Error(`double exited (${code}):\n${output}`));
		pending.clear();
	});
	const send = <T>(cmd: string, params: Record<string, unknown> = {}): Promise<T> =>
		new Promise<T>((ok, fail) => {
			const id = next++;
			pending.set(id, { ok: ok as (v: unknown) => void, fail });
			child.send({ id, cmd, ...params });
		});
	const state = (): Promise<DoubleState> => send<DoubleState>("state");
	const d: Double = {
		child,
		loaded,
		send,
		state,
		ready: async () => {
			await loaded;
			await send("ready");
		},
		invoke: (name, params = {}) => send("invoke", { channel: "arbor:request", args: [name, params] }),
		async until(check, what) {
			for (let i = 0; i < 400; i++) {
				const s = await state();
				if (check(s)) return s;
				await new Promise((r) => setTimeout(r, 25));
			}
			const s = await state();
			throw new Error(
				`electron double: never ${what}; state: ${JSON.stringify({ calls: s.calls, violations: s.violations, dialogs: s.dialogs, lost: s.lost, windows: s.windows.map((w) => ({ url: w.url, loaded: w.loaded, shown: w.shown, assets: w.assets, preloadProblems: w.preloadProblems })) })}\noutput:\n${output}`,
			);
		},
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const exited = new Promise((r) => child.once("exit", r));
			child.kill("SIGKILL");
			await exited;
		},
	};
	return d;
}
