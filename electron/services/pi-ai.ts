// Lazy access to @mariozechner/pi-ai. The package is ESM-only and the main process is bundled to CommonJS,
// so a static import would become a require() that Node 20 refuses; a dynamic import() works in both.

export type PiAi = typeof import("@mariozechner/pi-ai");

let loaded: Promise<PiAi> | undefined;

export function loadPiAi(): Promise<PiAi> {
	loaded ??= import("@mariozechner/pi-ai");
	return loaded;
}
