// The keyboard side of the registry: a key event becomes the first applicable command declaring that
// shortcut. Text fields keep their keys (typing "L" in the search box never opens the label editor)
// unless a command opts in with keysInInputs; an open dialog keeps its keys unless keysInDialogs.

import { comboOf, isTextInput, normalizeShortcut, type KeyLike } from "./keys";
import { commandKeys, makeContext, type Command, type CommandDeps, type CommandRegistry } from "./registry";

export interface KeyEventLike extends KeyLike {
	target: unknown;
	/** A component already handled the key (e.g. the graph's own Enter): the registry stays out. */
	defaultPrevented?: boolean;
	preventDefault(): void;
}

/** The command a key event would run, or null. */
export function commandForKey(registry: CommandRegistry, deps: CommandDeps, e: KeyEventLike): Command | null {
	const combo = comboOf(e);
	if (!combo) return null;
	const ctx = makeContext(deps, { source: "keyboard" });
	const inInput = isTextInput(e.target);
	// Enter/Space on a focused button or link activate it; they are not graph commands there.
	if ((combo === "Enter" || combo === "Space") && isActivatable(e.target)) return null;
	// The focused graph turns Enter into "navigate here" itself (onActivate runs the same command).
	if (combo === "Enter" && insideGraph(e.target)) return null;
	// The context menu keeps its arrows too (it moves focus between its items).
	const dialogOpen = ctx.state.dialog !== null || ctx.state.contextMenu !== null;
	for (const cmd of registry.all()) {
		if (inInput && !cmd.keysInInputs) continue;
		if (dialogOpen && !cmd.keysInDialogs) continue;
		if (!commandKeys(cmd, ctx).some((k) => normalizeShortcut(k) === combo)) continue;
		if (registry.enabled(cmd, ctx)) return cmd;
	}
	return null;
}

/** Handle a keydown: run the matching command and prevent the browser's default. True when handled. */
export function dispatchKey(registry: CommandRegistry, deps: CommandDeps, e: KeyEventLike): boolean {
	if (e.defaultPrevented) return false;
	const cmd = commandForKey(registry, deps, e);
	if (!cmd) return false;
	e.preventDefault();
	void registry.run(cmd.id, makeContext(deps, { source: "keyboard" }));
	return true;
}

function isActivatable(target: unknown): boolean {
	if (!target || typeof target !== "object") return false;
	const tag = (target as { tagName?: unknown }).tagName;
	return typeof tag === "string" && ["BUTTON", "A", "SUMMARY"].includes(tag.toUpperCase());
}

function insideGraph(target: unknown): boolean {
	const el = target as { closest?: (sel: string) => unknown } | null;
	return typeof el?.closest === "function" && el.closest(".arbor-graph") !== null;
}
