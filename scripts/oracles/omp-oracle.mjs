// Run by Bun, never by Node: oh-my-pi 18.3.4's own session code (its published TypeScript src/, installed by
// `node scripts/runtimes.mjs` as the "omp" runtime) opens session files and prints what it sees, for
// electron/session/test/omp-oracle.test.ts to compare with Arbor's omp view.
//
//   bun scripts/oracles/omp-oracle.mjs OMP_DIR read FILE...   one JSON line per file: entries, tree, leaf, context
//   bun scripts/oracles/omp-oracle.mjs OMP_DIR write DIR      omp's SessionManager writes sessions into DIR
//                                                             (scripts/oracles/omp-writes.mjs), prints their paths
//
// Files are opened where they lie: omp may rewrite a file it opens (migrations), so callers pass copies.
// Two modules are provided here instead of loaded from the registry (docs/compatibility.md "omp 18.3 as an
// oracle"): @oh-my-pi/pi-utils/fs-open, new in 18.3 and absent from the newest published pi-utils, and
// pi-natives' addon, which is not loaded: every native export becomes a function that records its name and
// throws, and the output's `nativeCalls` lists them, so a session path that needed native code cannot go
// unnoticed.
import * as fs from "node:fs";
import { join } from "node:path";

const [ompDir, mode, ...args] = process.argv.slice(2);
if (!ompDir || !mode) {
	process.stderr.write("usage: bun omp-oracle.mjs OMP_DIR read FILE... | write DIR\n");
	process.exit(2);
}

const nativeCalls = [];
function nativeStub(name) {
	return function () {
		nativeCalls.push(name);
		throw new Error(`omp oracle: native ${name} was called (the addon is not loaded)`);
	};
}
globalThis.__arborOmpNative = new Proxy({}, { get: (_, name) => (typeof name === "string" ? nativeStub(name) : undefined) });

Bun.plugin({
	name: "arbor-omp-oracle",
	setup(build) {
		// O_CLOEXEC (Linux 0o2000000, macOS 0x1000000): the descriptor is not inherited by child processes.
		const cloexec = process.platform === "linux" ? 0o2000000 : process.platform === "darwin" ? 0x1000000 : 0;
		build.module("@oh-my-pi/pi-utils/fs-open", () => ({
			loader: "object",
			exports: { openCloexecSync: (path, flags, mode) => fs.openSync(path, flags | cloexec, mode) },
		}));
		// pi-natives' entry with its one addon load replaced by the recording stubs above; its own exports
		// (enums, adapters, the missing-export fallbacks) stay as published.
		build.onLoad({ filter: /pi-natives[\\/]native[\\/]index\.js$/ }, (a) => {
			const src = fs.readFileSync(a.path, "utf8");
			const out = src.replace(/const nativeBindings = loadNative\(\);/, "const nativeBindings = globalThis.__arborOmpNative;");
			if (out === src) throw new Error("omp oracle: pi-natives' index.js no longer loads its addon in one line");
			return { contents: out, loader: "js" };
		});
	},
});

// eslint-disable-next-line arbor/layers -- omp 18.3.4 from the runtimes cache (scripts/runtimes.mjs), not this repo's node_modules
const { SessionManager } = await import(join(ompDir, "src", "session", "session-manager.ts"));

function treeOf(nodes) {
	const out = [];
	const walk = (n) => {
		out.push({ id: n.entry.id, children: n.children.map((c) => c.entry.id), label: n.label ?? null });
		for (const c of n.children) walk(c);
	};
	for (const n of nodes) walk(n);
	return out;
}

async function read(file) {
	try {
		const sm = await SessionManager.open(file, undefined, undefined, { suppressBreadcrumb: true });
		const entries = sm.getEntries();
		const ctx = sm.buildSessionContext();
		const result = {
			file,
			header: sm.getHeader(),
			entries: entries.map((e) => ({ id: e.id, parentId: e.parentId ?? null, type: e.type })),
			roots: sm.getTree().map((n) => n.entry.id),
			tree: treeOf(sm.getTree()),
			leafId: sm.getLeafId(),
			branch: sm.getBranch().map((e) => e.id),
			sessionName: sm.getSessionName() ?? null,
			context: ctx,
		};
		await sm.close?.();
		return result;
	} catch (e) {
		return { file, error: e instanceof Error ? e.message : String(e) };
	}
}

if (mode === "read") {
	for (const file of args) {
		const r = await read(file);
		r.nativeCalls = nativeCalls.splice(0);
		process.stdout.write(`${JSON.stringify(r)}\n`);
	}
} else if (mode === "write") {
	const { writeSessions } = await import("./omp-writes.mjs");
	// eslint-disable-next-line arbor/layers -- omp 18.3.4 from the runtimes cache, as above
	const { MemorySessionStorage } = await import(join(ompDir, "src", "session", "session-storage.ts"));
	const files = await writeSessions(SessionManager, MemorySessionStorage, args[0]);
	process.stdout.write(`${JSON.stringify({ files, nativeCalls })}\n`);
} else {
	process.stderr.write(`omp oracle: unknown mode ${mode}\n`);
	process.exit(2);
}
