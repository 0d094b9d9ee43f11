// Renderer entry: one client (Electron bridge or the browser host's socket), the runtime, the app.

import { createRoot } from "react-dom/client";
import { App } from "./App";
import { createArborClient } from "./client";
import { createRuntime } from "./runtime";
import "./styles/app.css";

const runtime = createRuntime(createArborClient());
// A plain-data copy of the skeleton the renderer holds for a file, for the end-to-end specs (e2e/live.spec.ts
// checks it equals a fresh open after live appends). Read-only: it returns copies, never the store.
(window as unknown as { __arborSkeletonOf?: (path: string) => unknown }).__arborSkeletonOf = (path) => {
	const s = Object.values(runtime.store.getState().sessions).find((x) => x.summary.path === path);
	const k = s?.skeleton;
	if (!k) return null;
	return {
		ids: [...k.ids],
		parent: Array.from(k.parent),
		flags: Array.from(k.flags),
		kind: Array.from(k.kind),
		labels: k.labels.map((l) => ({ target: l.target, label: l.label })),
		leaf: k.leaf,
		resumeLeaf: k.resumeLeaf,
	};
};
const root = document.getElementById("root");
if (root) createRoot(root).render(<App runtime={runtime} />);
