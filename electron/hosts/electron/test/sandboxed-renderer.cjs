// The renderer side of the Electron stand-in (electron-double.cjs): the BUILT preload run the way a sandboxed,
// context-isolated renderer runs it, as far as plain Node can model that.
//
// Modelled (Electron 45 docs: "Process Sandboxing", "Context Isolation", "contextBridge"):
// - the preload runs in its own V8 context (node:vm), not in Node's: its globals are those a sandboxed preload
//   gets (require, process with a few fields, Buffer, timers, console), and `require` answers only the modules
//   a sandboxed preload may load: `electron` (contextBridge, ipcRenderer, webFrame, webUtils), `events`,
//   `timers`, `url`. Anything else (fs, child_process, path ...) throws, as in Electron;
// - the page is another context (the main world). It sees only what the preload exposed through
//   contextBridge.exposeInMainWorld, copied across as Electron copies it: plain objects and arrays copied
//   (prototypes dropped), functions proxied (arguments and results copied again on every call, in both
//   directions), promises proxied, errors reduced to their message, symbols refused, everything else
//   structured-cloned (a value structuredClone refuses throws). The exposed key cannot be reassigned;
// - ipcRenderer.invoke / send copy their arguments with the structured clone algorithm (a function in them
//   throws "could not be cloned"), and event payloads arrive copied.
// Not modelled (a test says so by name, see built-main.test.ts): the OS sandbox of the renderer process,
// Chromium's enforcement of the CSP, and separate JS heaps (vm contexts share one heap and one event loop).
"use strict";

const vm = require("node:vm");
const fs = require("node:fs");
const { EventEmitter } = require("node:events");

const SANDBOXED_PRELOAD_MODULES = ["electron", "events", "timers", "url"];

class CloneError extends Error {}

/** A value crossing contextBridge, as Electron copies it (see the header). `into` names the receiving world. */
function crossBridge(value, into, seen = new Map()) {
	if (value === null || value === undefined) return value;
	const t = typeof value;
	if (t === "string" || t === "number" || t === "boolean" || t === "bigint") return value;
	if (t === "symbol") throw new CloneError("contextBridge: a Symbol cannot be copied to the other world");
	if (t === "function") {
		const fn = value;
		const from = into === "page" ? "preload" : "page";
		return function bridged(...args) {
			const copied = args.map((a) => crossBridge(a, from));
			let result;
			try {
				result = fn(...copied);
			} catch (err) {
				throw crossBridge(err, into);
			}
			return crossBridge(result, into);
		};
	}
	if (seen.has(value)) return seen.get(value);
	if (typeof value.then === "function") {
		const p = Promise.resolve(value).then(
			(v) => crossBridge(v, into),
			(e) => {
				throw crossBridge(e, into);
			},
		);
		seen.set(value, p);
		return p;
	}
	if (value instanceof Error || Object.prototype.toString.call(value) === "[object Error]") return new Error(String(value.message));
	if (Array.isArray(value)) {
		const out = [];
		seen.set(value, out);
		for (const v of value) out.push(crossBridge(v, into, seen));
		return out;
	}
	const proto = Object.getPrototypeOf(value);
	const plain = proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
	if (plain || !isStructuredCloneable(value)) {
		// Own enumerable string keys only; the prototype (a class's methods) does not cross.
		const out = {};
		seen.set(value, out);
		for (const k of Object.keys(value)) out[k] = crossBridge(value[k], into, seen);
		return out;
	}
	return structuredClone(value);
}

function isStructuredCloneable(v) {
	try {
		structuredClone(v);
		return true;
	} catch {
		return false;
	}
}

/** What IPC does to arguments and payloads: the structured clone algorithm (functions, symbols: an error). */
function ipcClone(values, what) {
	try {
		return structuredClone(values);
	} catch (err) {
		throw new Error(`Error: ${what}: An object could not be cloned. (${err instanceof Error ? err.message : String(err)})`);
	}
}

/**
 * Runs `preloadFile` for one window. `ipc` is the main side: `invoke(channel, args)` → Promise (the ipcMain
 * handler's answer), `send(channel, args)`. Returns the page's world and a way to deliver main → page events.
 */
function runSandboxedPreload(preloadFile, ipc, webUtilsPathFor = () => "") {
	const exposed = new Map();
	const listeners = new EventEmitter();
	const requireLog = [];
	const problems = [];

	const ipcRenderer = {
		invoke(channel, ...args) {
			return Promise.resolve()
				.then(() => ipc.invoke(channel, ipcClone(args, `ipcRenderer.invoke('${channel}')`)))
				.then((answer) => ipcClone(answer, "the answer to ipcRenderer.invoke"));
		},
		send(channel, ...args) {
			ipc.send(channel, ipcClone(args, `ipcRenderer.send('${channel}')`));
		},
		on(channel, listener) {
			listeners.on(channel, listener);
			return ipcRenderer;
		},
		removeListener(channel, listener) {
			listeners.removeListener(channel, listener);
			return ipcRenderer;
		},
	};
	const contextBridge = {
		exposeInMainWorld(key, api) {
			if (exposed.has(key)) throw new Error(`Cannot bind an API on top of an existing property on the window object`);
			exposed.set(key, crossBridge(api, "page"));
		},
	};
	const electronForPreload = {
		contextBridge,
		ipcRenderer,
		webFrame: { setZoomFactor() {}, getZoomFactor: () => 1 },
		webUtils: { getPathForFile: (file) => webUtilsPathFor(file) },
	};
	const allowed = {
		electron: electronForPreload,
		events: require("node:events"),
		timers: require("node:timers"),
		url: require("node:url"),
	};
	const sandboxRequire = (name) => {
		requireLog.push(name);
		if (!Object.hasOwn(allowed, name)) {
			problems.push(`a sandboxed preload cannot require ${name}`);
			throw new Error(`module not found: ${name}`);
		}
		return allowed[name];
	};
	const preloadGlobals = {
		require: sandboxRequire,
		module: { exports: {} },
		process: { platform: process.platform, type: "renderer", sandboxed: true, contextIsolated: true, versions: { electron: "45.5.0" }, env: {} },
		Buffer,
		console,
		setTimeout,
		clearTimeout,
		setInterval,
		clearInterval,
		setImmediate,
		clearImmediate,
		queueMicrotask,
		structuredClone,
	};
	preloadGlobals.exports = preloadGlobals.module.exports;
	const preloadWorld = vm.createContext(preloadGlobals, { name: "preload (isolated world)" });
	try {
		vm.runInContext(fs.readFileSync(preloadFile, "utf8"), preloadWorld, { filename: preloadFile });
	} catch (err) {
		problems.push(`the preload threw: ${err instanceof Error ? err.message : String(err)}`);
	}

	// The main world: only what was exposed, as non-writable properties of `window`.
	const page = vm.createContext({ console, structuredClone }, { name: "page (main world)" });
	vm.runInContext("globalThis.window = globalThis;", page);
	for (const [key, api] of exposed) Object.defineProperty(page, key, { value: api, enumerable: true, writable: false, configurable: false });

	return {
		page,
		exposedKeys: [...exposed.keys()],
		requires: requireLog,
		problems,
		/** Main → page: webContents.send(channel, payload), copied, to the preload's listeners. */
		deliver(channel, payload) {
			const copied = ipcClone([payload], `webContents.send('${channel}')`)[0];
			return listeners.emit(channel, { sender: ipcRenderer }, copied);
		},
		/** Code run in the page's world (the test's stand-in for the app's own script). */
		evaluate(code) {
			return vm.runInContext(code, page);
		},
	};
}

module.exports = { runSandboxedPreload, crossBridge, SANDBOXED_PRELOAD_MODULES };
