// renderer: the React app — one ArborClient (renderer/client), a sliced zustand store (store/), the
// command registry (commands/), the graph (graph/), panels and dialogs. App lays them out.

import { useEffect } from "react";
import { ServicesContext, useServices } from "./commands/services";
import { BranchList } from "./dialogs/BranchList";
import { CommandPalette } from "./dialogs/CommandPalette";
import { ContextMenu } from "./dialogs/ContextMenu";
import { LabelEditor } from "./dialogs/LabelEditor";
import { Library } from "./dialogs/Library";
import { NavigateDialog } from "./dialogs/NavigateDialog";
import { WarningsDialog } from "./dialogs/WarningsDialog";
import { SessionTabs, Toasts, UpgradeBanner } from "./panels/Banners";
import { Composer } from "./panels/Composer";
import { ContextPanel } from "./panels/ContextPanel";
import { FilterBar } from "./panels/FilterBar";
import { GraphPane } from "./panels/GraphPane";
import { Inspector } from "./panels/Inspector";
import { LabelList } from "./panels/LabelList";
import { SearchBar } from "./panels/SearchBar";
import { StatusBar } from "./panels/StatusBar";
import type { AppRuntime } from "./runtime";
import { StoreContext, useApp } from "./store";
import type { SidePanel } from "./store/view";

function Dialogs() {
	const dialog = useApp((s) => s.dialog);
	const menu = useApp((s) => s.contextMenu);
	return (
		<>
			{dialog?.kind === "navigate" && <NavigateDialog dialog={dialog} />}
			{dialog?.kind === "palette" && <CommandPalette initialQuery={dialog.initialQuery} />}
			{dialog?.kind === "labelEditor" && <LabelEditor key={dialog.entryId} entryId={dialog.entryId} initial={dialog.initial} />}
			{dialog?.kind === "branchList" && <BranchList />}
			{dialog?.kind === "warnings" && <WarningsDialog />}
			{dialog?.kind === "library" && <Library />}
			{menu && <ContextMenu menu={menu} />}
		</>
	);
}

const PANELS: { id: SidePanel; label: string }[] = [
	{ id: "inspector", label: "Entry" },
	{ id: "context", label: "Context" },
	{ id: "labels", label: "Labels" },
];

function SidePanelView() {
	const panel = useApp((s) => s.panel);
	const setPanel = useApp((s) => s.setPanel);
	return (
		<aside className="side">
			<div className="side-tabs" role="tablist">
				{PANELS.map((p) => (
					<button
						key={p.id}
						type="button"
						role="tab"
						aria-selected={panel === p.id}
						className={panel === p.id ? "active" : ""}
						data-testid={`panel-tab-${p.id}`}
						onClick={() => setPanel(p.id)}
					>
						{p.label}
					</button>
				))}
			</div>
			<div className="side-body">
				{panel === "inspector" && <Inspector />}
				{panel === "context" && <ContextPanel />}
				{panel === "labels" && <LabelList />}
			</div>
		</aside>
	);
}

function Toolbar() {
	const { run } = useServices();
	return (
		<header className="toolbar">
			<button type="button" data-testid="open-library" title="Session library (Ctrl+P)" onClick={() => void run("library.open", { source: "button" })}>Sessions</button>
			<SessionTabs />
			<FilterBar />
			<SearchBar />
			<span className="spacer" />
			<button type="button" data-testid="fit-button" title="Fit graph (Ctrl+0)" onClick={() => void run("view.fit", { source: "button" })}>Fit</button>
			<button type="button" data-testid="zoom-leaf-button" title="Zoom to leaf (Ctrl+G)" onClick={() => void run("view.zoomToLeaf", { source: "button" })}>Leaf</button>
			<button type="button" data-testid="open-palette" title="Commands (Ctrl+K)" onClick={() => void run("palette.open", { source: "button" })}>⌘ Commands</button>
		</header>
	);
}

function Workspace() {
	const { run } = useServices();
	const hasSession = useApp((s) => s.activeSessionId !== null);
	const booting = useApp((s) => s.booting);
	if (!hasSession) {
		return (
			<main className="welcome" data-testid="welcome">
				{booting ? (
					<p className="muted"><span className="spinner" /> Starting…</p>
				) : (
					<>
						<h1>Arbor</h1>
						<p>Open a pi or oh-my-pi session to see its tree.</p>
						<button type="button" data-testid="welcome-library" onClick={() => void run("library.open", { source: "button" })}>Open the session library</button>
						<p className="muted">…or drop a .jsonl file on this window.</p>
					</>
				)}
			</main>
		);
	}
	return (
		<>
			<UpgradeBanner />
			<main className="workspace">
				<GraphPane />
				<SidePanelView />
			</main>
			<Composer />
		</>
	);
}

export function App({ runtime }: { runtime: AppRuntime }) {
	useEffect(() => runtime.start(), [runtime]);
	return (
		<StoreContext.Provider value={runtime.store}>
			<ServicesContext.Provider value={runtime.services}>
				<div className="app">
					<Toolbar />
					<Workspace />
					<StatusBar />
					<Dialogs />
					<Toasts />
				</div>
			</ServicesContext.Provider>
		</StoreContext.Provider>
	);
}
