// Banners above the graph: legacy files that need an upgrade before any write, and error toasts with
// the file and line the main process named.

import { useServices } from "../commands/services";
import { useApp } from "../store";
import { activeSession } from "../store/selectors";

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
