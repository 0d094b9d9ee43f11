// renderer: the React app — one ArborClient (renderer/client), a sliced zustand store (store/), the
// command registry (commands/), the graph (graph/), panels and dialogs. App lays them out.

import { BranchesPanel } from "./panels/BranchesPanel";
import { AboutDialog } from "./dialogs/About";
import { useEffect, useState } from "react";
import { CompareDialog } from "./compare/CompareDialog";
import { forgetClosedSessions } from "./commands/forget-closed";
import { commandShort, commandTitle, makeContext } from "./commands/registry";
import { ServicesContext, useServices } from "./commands/services";
import { BranchList } from "./dialogs/BranchList";
import { CommandPalette } from "./dialogs/CommandPalette";
import { ContextMenu } from "./dialogs/ContextMenu";
import { FamilyDialog } from "./dialogs/FamilyDialog";
import { LabelEditor } from "./dialogs/LabelEditor";
import { Library } from "./dialogs/Library";
import { NavigateDialog } from "./dialogs/NavigateDialog";
import { SettingsDialog } from "./dialogs/Settings";
import { WarningsDialog } from "./dialogs/WarningsDialog";
import { Toasts, UpgradeBanner } from "./panels/Banners";
import { SessionTabs } from "./panels/SessionTabs";
import { ResumeBanner } from "./panels/ResumeBanner";
import { Composer } from "./panels/Composer";
import { LiveBadge } from "./panels/LiveBadge";
import { ContextPanel } from "./panels/ContextPanel";
import { FilterBar } from "./panels/FilterBar";
import { GraphPane } from "./panels/GraphPane";
import { Inspector } from "./panels/Inspector";
import { LabelList } from "./panels/LabelList";
import { SearchBar } from "./panels/SearchBar";
import { StatusBar } from "./panels/StatusBar";
import type { AppRuntime } from "./runtime";
import { GraphContext } from "./graph/store";
import { StoreContext, useApp } from "./store";
import type { SidePanel } from "./store/view";
import { TriesCompareDialog } from "./tries/TriesCompare";
import { TriesDialog } from "./tries/TriesDialog";
import { TriesPanel } from "./tries/TriesPanel";

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
			{dialog?.kind === "settings" && <SettingsDialog />}
			{dialog?.kind === "about" && <AboutDialog />}
			{dialog?.kind === "family" && <FamilyDialog key={dialog.path} path={dialog.path} />}
			{dialog?.kind === "compare" &&
				(dialog.files?.tries ? (
					<TriesCompareDialog files={{ ...dialog.files, tries: dialog.files.tries }} />
				) : dialog.files ? (
					<CompareDialog files={dialog.files} />
				) : (
					<CompareDialog key={`${dialog.a}|${dialog.b}`} a={dialog.a} b={dialog.b} siblingsOf={dialog.siblingsOf} />
				))}
			{dialog?.kind === "tries" && <TriesDialog key={dialog.entryId} entryId={dialog.entryId} />}
			{menu && <ContextMenu menu={menu} />}
		</>
	);
}

const PANELS: { id: SidePanel; label: string }[] = [
	{ id: "inspector", label: "Entry" },
	{ id: "context", label: "Context" },
	{ id: "labels", label: "Labels" },
	{ id: "branches", label: "Branches" },
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
				{panel === "branches" && <BranchesPanel />}
			</div>
		</aside>
	);
}

function Toolbar() {
	const { run, registry, deps } = useServices();
	// Session controls only when a session is open: the welcome screen has nothing to filter or fit.
	const hasSession = useApp((s) => s.activeSessionId !== null);
	const activeId = useApp((s) => s.activeSessionId);
	// Text and tooltip (with the key) from the command definitions.
	const ctx = makeContext(deps, { source: "button" });
	const meta = (id: string) => {
		const cmd = registry.get(id);
		return { title: cmd ? commandTitle(cmd, ctx) : id, text: cmd ? commandShort(cmd, ctx) : id, onClick: () => void run(id, { source: "button" }) };
	};
	const library = meta("library.open");
	const fit = meta("view.fit");
	const family = meta("session.family");
	const leaf = meta("view.zoomToLeaf");
	const settings = meta("settings.open");
	const palette = meta("palette.open");
	// The session tabs are a row of their own under the toolbar (as an editor's tab bar): sharing the toolbar's
	// row, two tabs at 1440 px squeezed the live badge to a dot, pushed ⚙ and Commands past the window's edge
	// and cut the names to 14 characters (issue 38 item 4).
	return (
		<>
			<header className="toolbar">
				<button type="button" data-testid="open-library" title={library.title} onClick={library.onClick}>
					{library.text}
				</button>
				{activeId && <LiveBadge sessionId={activeId} />}
				{hasSession && <FilterBar />}
				{hasSession && <SearchBar />}
				<span className="spacer" />
				{hasSession && (
					<button type="button" data-testid="fit-button" title={fit.title} onClick={fit.onClick}>
						{fit.text}
					</button>
				)}
				{hasSession && (
					<button type="button" data-testid="family-button" title={family.title} onClick={family.onClick}>
						{family.text}
					</button>
				)}
				{hasSession && (
					<button type="button" data-testid="zoom-leaf-button" title={leaf.title} onClick={leaf.onClick}>
						{leaf.text}
					</button>
				)}
				<button type="button" data-testid="open-settings" title={settings.title} aria-label={settings.text} onClick={settings.onClick}>
					⚙
				</button>
				<button type="button" data-testid="open-palette" title={palette.title} aria-label={palette.text} onClick={palette.onClick}>
					⌘<span className="narrow-hide"> {palette.text}</span>
				</button>
			</header>
			<SessionTabs />
		</>
	);
}

function baseName(p: string): string {
	return p.split(/[\\/]/).pop() || p;
}

function dirName(p: string): string {
	const i = Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\"));
	return i > 0 ? p.slice(0, i) : "";
}

/** The window without a session: ways to open one (library, recent files, Open file…) and the settings. */
function Welcome() {
	const { run, client } = useServices();
	const recent = useApp((s) => s.settings?.recentFiles ?? NO_RECENT);
	const openPath = useApp((s) => s.openPath);
	const [opening, setOpening] = useState<string | null>(null);
	const open = (path: string): void => {
		setOpening(path);
		void openPath(path).finally(() => setOpening(null));
	};
	return (
		<main className="welcome" data-testid="welcome">
			<h1>Arbor</h1>
			<p>Open a pi or oh-my-pi session to see its tree.</p>
			<div className="button-row">
				<button type="button" data-testid="welcome-library" onClick={() => void run("library.open", { source: "button" })}>
					Open the session library
				</button>
				{client.host === "electron" && (
					<button type="button" data-testid="welcome-open-file" onClick={() => void run("file.open", { source: "button" })}>
						Open file…
					</button>
				)}
				<button type="button" data-testid="welcome-settings" onClick={() => void run("settings.open", { source: "button" })}>
					Settings…
				</button>
			</div>
			{recent.length > 0 && (
				<section className="welcome-recent">
					<h3>Recent files</h3>
					<ul className="pick-list">
						{recent.slice(0, MAX_WELCOME_RECENT).map((p) => (
							<li key={p}>
								<button type="button" data-testid="welcome-recent-item" title={p} disabled={opening !== null} onClick={() => open(p)}>
									<span className="library-title">{baseName(p)}</span>
									<span className="muted mono">{dirName(p)}</span>
								</button>
							</li>
						))}
					</ul>
				</section>
			)}
			{opening && (
				<p data-testid="welcome-opening">
					<span className="spinner" /> Opening <span className="mono">{opening}</span>…
				</p>
			)}
			<p className="muted">{client.host === "electron" ? "…or drop a .jsonl file on this window." : "…or start Arbor with a file: arbor serve FILE.jsonl"}</p>
		</main>
	);
}

const NO_RECENT: string[] = [];
const MAX_WELCOME_RECENT = 8;

function Workspace() {
	const hasSession = useApp((s) => s.activeSessionId !== null);
	const booting = useApp((s) => s.booting);
	if (!hasSession) {
		if (booting) {
			return (
				<main className="welcome" data-testid="welcome">
					<p className="muted">
						<span className="spinner" /> Starting…
					</p>
				</main>
			);
		}
		return <Welcome />;
	}
	return (
		<>
			<UpgradeBanner />
			<ResumeBanner />
			<main className="workspace">
				<GraphPane />
				<SidePanelView />
			</main>
			<TriesPanel />
			<Composer />
		</>
	);
}

export function App({ runtime }: { runtime: AppRuntime }) {
	useEffect(() => runtime.start(), [runtime]);
	useEffect(() => forgetClosedSessions(runtime.store, runtime.services.deps.graph), [runtime]);
	return (
		<StoreContext.Provider value={runtime.store}>
			<ServicesContext.Provider value={runtime.services}>
				<GraphContext.Provider value={runtime.graph}>
					<div className="app">
						<Toolbar />
						<Workspace />
						<StatusBar />
						<Dialogs />
						<Toasts />
					</div>
				</GraphContext.Provider>
			</ServicesContext.Provider>
		</StoreContext.Provider>
	);
}
