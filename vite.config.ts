// Builds the renderer (renderer/ -> dist/renderer). base "./" because Electron loads it from file://;
// the browser host serves the same files over http://127.0.0.1.
import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
	root: here("./renderer"),
	base: "./",
	plugins: [react()],
	build: {
		outDir: here("./dist/renderer"),
		emptyOutDir: true,
		target: "chrome140",
		// A desktop app loaded from disk: one bundle is fine (highlight.js and React Flow are most of it).
		chunkSizeWarningLimit: 1500,
	},
});
