// The node's right-click menu: the registry's commands marked contextMenu, applicable to that entry.

import { useEffect, useMemo, useRef } from "react";
import { displayShortcut } from "../commands/keys";
import { commandKeys, commandLabel, makeContext } from "../commands/registry";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import type { ContextMenuState } from "../store/dialogs";

export function ContextMenu({ menu }: { menu: ContextMenuState }) {
	const { registry, deps, run } = useServices();
	const closeMenu = useApp((s) => s.closeContextMenu);
	const ref = useRef<HTMLDivElement>(null);

	const items = useMemo(() => {
		const ctx = makeContext(deps, { targetId: menu.entryId, source: "contextMenu" });
		return registry.contextMenu(ctx).map((cmd) => ({ cmd, label: commandLabel(cmd, ctx), keys: commandKeys(cmd, ctx) }));
	}, [registry, deps, menu.entryId]);

	useEffect(() => {
		const onDown = (e: MouseEvent): void => {
			if (ref.current && !ref.current.contains(e.target as Node)) closeMenu();
		};
		window.addEventListener("mousedown", onDown, true);
		ref.current?.querySelector<HTMLElement>("button")?.focus();
		return () => window.removeEventListener("mousedown", onDown, true);
	}, [closeMenu]);

	// Keep the menu on screen.
	const x = Math.min(menu.x, window.innerWidth - 260);
	const y = Math.min(menu.y, window.innerHeight - 32 * items.length - 16);

	return (
		<div
			ref={ref}
			className="context-menu"
			role="menu"
			data-testid="context-menu"
			style={{ left: Math.max(0, x), top: Math.max(0, y) }}
			onKeyDown={(e) => {
				if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
				// Arrows move within the menu (the registry's arrow keys are off while a menu is open).
				e.preventDefault();
				const buttons = [...(ref.current?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
				const k = buttons.indexOf(document.activeElement as HTMLButtonElement);
				const next = buttons[(k + (e.key === "ArrowDown" ? 1 : -1) + buttons.length) % buttons.length];
				next?.focus();
			}}
		>
			{items.map(({ cmd, label, keys }) => (
				<button
					key={cmd.id}
					type="button"
					role="menuitem"
					data-testid={`menu-item-${cmd.id}`}
					onClick={() => {
						closeMenu();
						void run(cmd.id, { targetId: menu.entryId, source: "contextMenu" });
					}}
				>
					<span>{label}</span>
					<span className="shortcut">{keys.map(displayShortcut).join("  ")}</span>
				</button>
			))}
		</div>
	);
}
