// Banners above the graph: legacy files that need an upgrade before any write, and error toasts with
// the file and line the main process named.

import { useEffect, useRef } from "react";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { activeSession } from "../store/selectors";
import { LiveTabDot } from "./LiveBadge";
import { shortenMiddle, useSessionName } from "./session-name";

export function UpgradeBanner() {
	const { run } = useServices();
	const session = useApp(activeSession);
	if (!session?.summary.needsUpgrade) return null;
	return (
		<div className="banner warn" data-testid="upgrade-banner">
			This file uses session format v{session.summary.fileVersion}. Arbor shows it migrated in memory; writing to it (navigate, label, send) needs an upgrade to
			the current format first.
			<button type="button" data-testid="upgrade-button" onClick={() => void run("session.upgrade", { source: "button" })}>
				Upgrade file (keeps a .bak)
			</button>
		</div>
	);
}

export function Toasts() {
	const { run } = useServices();
	const toasts = useApp((s) => s.toasts);
	const dismiss = useApp((s) => s.dismissToast);
	if (toasts.length === 0) return null;
	return (
		<div className="toasts" aria-live="polite" data-testid="toasts">
			{toasts.map((t) => (
				<div
					key={t.id}
					className={`toast ${t.level}`}
					data-testid={t.level === "error" ? "toast-error" : "toast-info"}
					role={t.level === "error" ? "alert" : "status"}
				>
					<span className="toast-message">{t.message}</span>
					{t.action && (
						<button
							type="button"
							className="toast-action"
							data-testid="toast-action"
							onClick={() => {
								dismiss(t.id);
								void run(t.action!.command, { source: "button" });
							}}
						>
							{t.action.label}
						</button>
					)}
					{(t.file || t.line) && (
						<span className="toast-where mono">
							{t.file ?? ""}
							{t.line ? `:${t.line}` : ""}
						</span>
					)}
					<button type="button" className="toast-close" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
						×
					</button>
				</div>
			))}
		</div>
	);
}

export function SessionTabs() {
	const order = useApp((s) => s.order);
	const sessions = useApp((s) => s.sessions);
	const active = useApp((s) => s.activeSessionId);
	const setActive = useApp((s) => s.setActive);
	const close = useApp((s) => s.closeSession);
	if (order.length < 2) return null;
	return (
		<nav className="tabs" aria-label="Open sessions">
			{order.map((id) => {
				const s = sessions[id];
				if (!s) return null;
				return <SessionTab key={id} id={id} active={id === active} path={s.summary.path} onOpen={() => setActive(id)} onClose={() => void close(id)} />;
			})}
		</nav>
	);
}

/** Characters a tab shows: its name shortened from the middle; the strip scrolls when the tabs need more room. */
const TAB_CHARS = 18;

function SessionTab({ id, active, path, onOpen, onClose }: { id: string; active: boolean; path: string | null; onOpen(): void; onClose(): void }) {
	// The session's name (or first user message), the full name and the path on hover: never a raw
	// timestamp_uuid file name, and never cut to its first letter.
	const full = useSessionName(id, 300);
	const name = shortenMiddle(full, TAB_CHARS);
	const tab = useRef<HTMLDivElement>(null);
	useEffect(() => {
		if (active) tab.current?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
	}, [active]);
	return (
		<div ref={tab} className={`tab${active ? " active" : ""}`} data-testid="session-tab">
			<button type="button" onClick={onOpen} title={`${full}\n${path ?? "in memory"}`} aria-label={full} aria-current={active ? "true" : undefined}>
				<LiveTabDot sessionId={id} />
				{name}
			</button>
			<button type="button" aria-label={`Close ${full}`} title="Close" onClick={onClose}>
				×
			</button>
		</div>
	);
}
