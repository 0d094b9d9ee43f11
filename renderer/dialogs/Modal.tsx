// renderer/dialogs: modal dialogs (navigate, palette, label editor, branch list, warnings, library) and the
// node context menu. Escape is not handled here: it is the registry's "app.escape" command, so every
// way of closing goes through one place (and the navigate dialog can cancel a running summary instead).

import { visibleText } from "../../shared/visible-text";
import { Shown } from "../graph/Shown";
import { useEffect, useRef, type ReactNode } from "react";
import { useApp } from "../store";

export function Modal({
	title,
	testId,
	children,
	wide,
	onClose,
}: {
	title: string;
	testId: string;
	children: ReactNode;
	wide?: boolean;
	onClose?: () => void;
}) {
	const close = useApp((s) => s.closeDialog);
	const focusGraph = useApp((s) => s.focusGraph);
	const box = useRef<HTMLDivElement>(null);
	useEffect(() => {
		// Focus the first control so keyboard users start inside the dialog.
		const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
		const el = box.current?.querySelector<HTMLElement>("[autofocus], input, textarea, button");
		el?.focus();
		return () => {
			// Closing must not leave the focus on <body> (keys would then reach nothing): back to where it was
			// before the dialog, else the graph. Whatever the closing flow focused on purpose (the composer) wins.
			requestAnimationFrame(() => {
				const now = document.activeElement;
				if (now && now !== document.body) return;
				if (before && before !== document.body && before.isConnected) before.focus();
				else focusGraph();
			});
		};
	}, [focusGraph]);
	return (
		<div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && (onClose ?? (() => close()))()}>
			<div ref={box} className={`modal${wide ? " wide" : ""}`} role="dialog" aria-modal="true" aria-label={visibleText(title)} data-testid={testId}>
				<h2 className="modal-title">
					<Shown text={title} />
				</h2>
				{children}
			</div>
		</div>
	);
}
