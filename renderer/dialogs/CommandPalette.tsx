// Command palette (Ctrl+K): every applicable registry command, including pi's /tree and /branch and the
// extensions' commands. "/name args" passes the rest of the line to an extension command.

import { useMemo, useState } from "react";
import { displayShortcut } from "../commands/keys";
import { commandKeys, commandLabel, makeContext, type Command } from "../commands/registry";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { Modal } from "./Modal";

/** Commands matching a query: every whitespace token must appear in "category label id" (like pi's search). */
export function filterCommands(commands: { cmd: Command; label: string }[], query: string): { cmd: Command; label: string }[] {
	const q = query.trim().toLowerCase();
	if (!q) return commands;
	const head = q.split(/\s+/)[0];
	// "/name args": match the slash command by its name only.
	if (head.startsWith("/")) {
		return commands.filter(
			({ label, cmd }) => label.toLowerCase().startsWith(head) || label.toLowerCase().startsWith(`${head} `) || cmd.id === `ext:${head.slice(1)}`,
		);
	}
	const tokens = q.split(/\s+/);
	return commands.filter(({ cmd, label }) => {
		const hay = `${cmd.category} ${label} ${cmd.id}`.toLowerCase();
		return tokens.every((t) => hay.includes(t));
	});
}

export function CommandPalette({ initialQuery }: { initialQuery: string }) {
	const { registry, deps, run } = useServices();
	const close = useApp((s) => s.closeDialog);
	// Re-read when the session/selection changes so `when` is current.
	useApp((s) => s.selectedId);
	useApp((s) => s.extensionCommands);
	const [query, setQuery] = useState(initialQuery);
	const [cursor, setCursor] = useState(0);

	const items = useMemo(() => {
		const ctx = makeContext(deps, { source: "palette" });
		const all = registry.palette(ctx).map((cmd) => ({ cmd, label: commandLabel(cmd, ctx), keys: commandKeys(cmd, ctx) }));
		return filterCommands(all, query) as { cmd: Command; label: string; keys: readonly string[] }[];
	}, [registry, deps, query]);

	const runAt = (i: number): void => {
		const item = items[i];
		if (!item) return;
		const args = query.trim().startsWith("/") ? query.trim().split(/\s+/).slice(1).join(" ") : undefined;
		close("palette");
		void run(item.cmd.id, { source: "palette", args: args || undefined });
	};

	return (
		<Modal title="Commands" testId="command-palette">
			<input
				autoFocus
				data-testid="palette-input"
				role="combobox"
				aria-label="Command"
				aria-expanded="true"
				aria-controls="arbor-palette-list"
				aria-activedescendant={items[cursor] ? `arbor-palette-${cursor}` : undefined}
				aria-autocomplete="list"
				value={query}
				placeholder="Type a command or /tree, /branch…"
				onChange={(e) => {
					setQuery(e.target.value);
					setCursor(0);
				}}
				onKeyDown={(e) => {
					if (e.key === "ArrowDown") {
						e.preventDefault();
						setCursor((c) => Math.min(items.length - 1, c + 1));
					} else if (e.key === "ArrowUp") {
						e.preventDefault();
						setCursor((c) => Math.max(0, c - 1));
					} else if (e.key === "Enter") {
						e.preventDefault();
						runAt(cursor);
					}
				}}
			/>
			{items.length === 0 && <p className="muted">No matching command</p>}
			<ul className="palette-list" role="listbox" id="arbor-palette-list" aria-label="Commands">
				{items.map((item, i) => (
					// Options of the combobox above (focus stays in the input): clickable, not separately focusable.
					<li
						key={item.cmd.id}
						id={`arbor-palette-${i}`}
						role="option"
						aria-selected={i === cursor}
						className={`palette-item${i === cursor ? " cursor" : ""}`}
						data-testid={`palette-item-${item.cmd.id}`}
						onMouseEnter={() => setCursor(i)}
						onClick={() => runAt(i)}
					>
						<span className="muted">{item.cmd.category}</span>
						<span className="palette-label">{item.label}</span>
						<span className="shortcut">{item.keys.map(displayShortcut).join("  ")}</span>
					</li>
				))}
			</ul>
		</Modal>
	);
}
