// Test harness: a runtime over the fake client with a recording graph and clipboard, plus key presses.

import { dispatchKey, type KeyEventLike } from "../commands/keyboard";
import type { CommandSource, GraphControls } from "../commands/registry";
import { createRuntime } from "../runtime";
import { FakeClient, flush } from "./fake-client";
import type { TabStorage } from "../kept-tabs";

export interface Harness {
	client: FakeClient;
	rt: ReturnType<typeof createRuntime>;
	graphCalls: string[];
	copied: string[];
	segmentEntries: Set<string>;
	setNow(t: number): void;
	run(id: string, opts?: { targetId?: string | null; source?: CommandSource; args?: unknown }): Promise<boolean>;
	/** Press a key ("Ctrl+U", "Shift+L", "Up", "/"); returns whether a command handled it. */
	press(combo: string, target?: unknown): boolean;
}

export function parseCombo(combo: string): Omit<KeyEventLike, "target" | "preventDefault"> {
	const parts = combo.split("+");
	let key = parts.pop() ?? "";
	if (key === "" && combo.endsWith("+")) {
		parts.pop();
		key = "+";
	}
	const names: Record<string, string> = { Up: "ArrowUp", Down: "ArrowDown", Left: "ArrowLeft", Right: "ArrowRight", Space: " " };
	const mods = new Set(parts);
	const shift = mods.has("Shift");
	const k = names[key] ?? (key.length === 1 ? (shift ? key.toUpperCase() : key.toLowerCase()) : key);
	return { key: k, ctrlKey: mods.has("Ctrl"), altKey: mods.has("Alt"), shiftKey: shift, metaKey: mods.has("Meta") };
}

export async function harness(client = new FakeClient(), opts: { boot?: boolean; tabStorage?: TabStorage } = {}): Promise<Harness> {
	const graphCalls: string[] = [];
	const copied: string[] = [];
	const segmentEntries = new Set<string>();
	let now = 10_000;
	const graph: GraphControls = {
		fit: () => void graphCalls.push("fit"),
		zoomToLeaf: () => void graphCalls.push("zoomToLeaf"),
		zoomIn: () => void graphCalls.push("zoomIn"),
		zoomOut: () => void graphCalls.push("zoomOut"),
		reveal: (id) => void graphCalls.push(`reveal:${id}`),
		expandSegment: (id) => {
			graphCalls.push(`expand:${id}`);
			return segmentEntries.delete(id);
		},
		inSegment: (id) => segmentEntries.has(id),
		forgetSession: (id) => void graphCalls.push(`forget:${id}`),
	};
	// No page storage unless a test brings its own: kept tabs must not leak from one test into the next.
	const rt = createRuntime(client, { graph, clipboard: async (t) => void copied.push(t), now: () => now, tabStorage: opts.tabStorage ?? null });
	if (opts.boot ?? true) {
		// start() subscribes to events and boots; the keyboard listener goes to a detached target.
		rt.start(new EventTarget() as unknown as Window);
		await flush();
	}
	return {
		client,
		rt,
		graphCalls,
		copied,
		segmentEntries,
		setNow: (t) => (now = t),
		run: (id, o) => rt.services.run(id, o),
		press(combo, target = document.body) {
			return dispatchKey(rt.registry, rt.services.deps, { ...parseCombo(combo), target, preventDefault() {} });
		},
	};
}
