// The app's wiring outside React: one app store, one graph store (renderer/graph/store.ts), one command registry, the keyboard and drop handlers and
// the event subscription, all built from one ArborClient. Tests build it with a fake client.

import type { ArborClient, SessionSummary } from "../shared/api";
import { compareExportCommands } from "./commands/compare-export";
import { builtinCommands, extensionCommands } from "./commands/builtin";
import { dispatchKey } from "./commands/keyboard";
import { CommandRegistry, makeContext, type CommandDeps, type GraphControls } from "./commands/registry";
import { createServices, type AppServices } from "./commands/services";
import { createGraph, type Graph } from "./graph/store";
import { createAppStore, type AppStore } from "./store";
import { handleArborEvent } from "./store/events";
import { announceLeftovers, triesCommands } from "./tries/commands";
import { pageStorage, readKeptTabs, type TabStorage, writeKeptTabs } from "./kept-tabs";
import { tries } from "./tries/store";

export interface RuntimeOptions {
	/** What commands drive instead of this runtime's own graph (tests record the calls). */
	graph?: GraphControls;
	clipboard?: (text: string) => Promise<void>;
	now?: () => number;
	/** Where the open tabs are kept across a reload (the page's sessionStorage; tests pass their own). */
	tabStorage?: TabStorage | null;
}

export interface AppRuntime {
	client: ArborClient;
	store: AppStore;
	/** This runtime's graph store and actions: never shared with another runtime. */
	graph: Graph;
	registry: CommandRegistry;
	services: AppServices;
	/** Subscribe to events and the keyboard, then boot (initial sessions or the library). Returns a disposer. */
	start(target?: Pick<Window, "addEventListener" | "removeEventListener">): () => void;
	/** Open a file dropped on the window (Electron's preload resolves its path). */
	openDropped(file: File): Promise<void>;
}

async function writeClipboard(text: string): Promise<void> {
	if (typeof navigator !== "undefined" && navigator.clipboard?.writeText) {
		await navigator.clipboard.writeText(text);
		return;
	}
	// Fallback for contexts without the async clipboard API (older Electron permission setups, tests).
	const ta = document.createElement("textarea");
	ta.value = text;
	document.body.appendChild(ta);
	ta.select();
	document.execCommand("copy");
	ta.remove();
}

interface DropCapable {
	openDroppedFile?: (file: File) => Promise<SessionSummary>;
}

export function createRuntime(client: ArborClient, opts: RuntimeOptions = {}): AppRuntime {
	const store = createAppStore(client);
	const graph = createGraph();
	const registry = new CommandRegistry([...builtinCommands(), ...compareExportCommands(), ...triesCommands()]);
	registry.setDynamic(() => extensionCommands({ state: store.getState() }));
	const deps: CommandDeps = {
		store,
		client,
		graph: opts.graph ?? graph.actions,
		clipboard: opts.clipboard ?? writeClipboard,
		now: opts.now,
	};
	const services = createServices(registry, deps);

	const openDropped = async (file: File): Promise<void> => {
		const st = store.getState();
		if (!/\.jsonl$/i.test(file.name)) {
			st.toast("error", `${file.name} is not a session file (.jsonl)`);
			return;
		}
		const open = (client as ArborClient & DropCapable).openDroppedFile;
		if (!open) {
			st.toast("error", "A browser page cannot learn where a dropped file lives. Open it from the library, or start `arbor serve FILE`.");
			return;
		}
		try {
			const summary = await open(file);
			await st.addSession(summary);
			if (summary.path) st.rememberRecent(summary.path);
			st.closeDialog("library");
		} catch (err) {
			st.reportError(err, `Could not open ${file.name}`);
		}
	};

	return {
		client,
		store,
		graph,
		registry,
		services,
		openDropped,
		start(target = window) {
			const offEvents = client.onEvent((event) => {
				if (event.type === "tries") return tries.getState().apply(event.event);
				if (event.type === "host_lost") tries.getState().hostLost();
				handleArborEvent(store, event, (command, args) => {
					void registry.run(command, makeContext(deps, { source: "menu", args })).then((ran) => {
						if (!ran && !registry.get(command)) store.getState().toast("error", `Unknown menu command: ${command}`);
					});
				});
			});
			const onKey = (e: Event): void => {
				dispatchKey(registry, deps, e as KeyboardEvent);
			};
			const onDragOver = (e: Event): void => {
				e.preventDefault();
			};
			const onDrop = (e: Event): void => {
				e.preventDefault();
				const file = (e as DragEvent).dataTransfer?.files?.[0];
				if (file) void openDropped(file);
			};
			// Capture phase: React Flow's document-level key listener calls preventDefault on every
			// Ctrl+<key> while Control is its multi-selection key, and bubbling would arrive after it.
			target.addEventListener("keydown", onKey, true);
			target.addEventListener("dragover", onDragOver);
			target.addEventListener("drop", onDrop);
			// The tabs are kept from the end of the boot on (a reload during it keeps the tabs it was opening).
			const storage = opts.tabStorage === undefined ? pageStorage() : opts.tabStorage;
			let offTabs = (): void => {};
			let stopped = false;
			void store
				.getState()
				.boot(readKeptTabs(storage))
				.finally(() => {
					if (stopped) return;
					writeKeptTabs(storage, store.getState());
					offTabs = store.subscribe((s, prev) => {
						if (s.order !== prev.order || s.activeSessionId !== prev.activeSessionId || s.sessions !== prev.sessions) writeKeptTabs(storage, s);
					});
				});
			void announceLeftovers(deps);
			return () => {
				offEvents();
				stopped = true;
				offTabs();
				target.removeEventListener("keydown", onKey, true);
				target.removeEventListener("dragover", onDragOver);
				target.removeEventListener("drop", onDrop);
			};
		},
	};
}
