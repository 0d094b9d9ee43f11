// Shortcut spelling and matching. A shortcut is "Mod+Mod+Key" with modifiers in the order
// Ctrl, Alt, Shift, Meta and keys named as KeyboardEvent.key, except: letters upper-case, arrows
// "Up"/"Down"/"Left"/"Right", " " as "Space". For printable non-letter keys ("/", "[", "?") Shift is
// not part of the spelling, because keyboard layouts differ on whether the character needs it.

export interface KeyLike {
	key: string;
	ctrlKey: boolean;
	altKey: boolean;
	shiftKey: boolean;
	metaKey: boolean;
}

const KEY_NAMES: Record<string, string> = {
	ArrowUp: "Up",
	ArrowDown: "Down",
	ArrowLeft: "Left",
	ArrowRight: "Right",
	" ": "Space",
	Esc: "Escape",
};

const MODIFIER_KEYS = new Set(["Control", "Alt", "Shift", "Meta", "AltGraph"]);

/** The spelling of a key event, or null for a bare modifier press. */
export function comboOf(e: KeyLike): string | null {
	if (MODIFIER_KEYS.has(e.key)) return null;
	let key = KEY_NAMES[e.key] ?? e.key;
	const isLetter = key.length === 1 && key.toLowerCase() !== key.toUpperCase();
	const isOtherChar = key.length === 1 && !isLetter;
	if (isLetter) key = key.toUpperCase();
	const parts: string[] = [];
	if (e.ctrlKey) parts.push("Ctrl");
	if (e.altKey) parts.push("Alt");
	if (e.shiftKey && !isOtherChar) parts.push("Shift");
	if (e.metaKey) parts.push("Meta");
	parts.push(key);
	return parts.join("+");
}

/** Normalize a declared shortcut ("Shift+Ctrl+o" -> "Ctrl+Shift+O") so declarations can be written freely. */
export function normalizeShortcut(s: string): string {
	const parts = s.split("+");
	// "Ctrl++" spells the plus key.
	let key = parts.pop() ?? "";
	if (key === "" && s.endsWith("+")) {
		parts.pop();
		key = "+";
	}
	const mods = new Set(parts.map((p) => p.toLowerCase()));
	return (
		comboOf({
			key: key.length === 1 ? key : (Object.entries(KEY_NAMES).find(([, v]) => v === key)?.[0] ?? key),
			ctrlKey: mods.has("ctrl"),
			altKey: mods.has("alt"),
			shiftKey: mods.has("shift"),
			metaKey: mods.has("meta"),
		}) ?? key
	);
}

/** Shortcut as shown to people (menus, palette, docs). */
export function displayShortcut(s: string): string {
	return normalizeShortcut(s)
		.replace(/\bUp\b/, "↑")
		.replace(/\bDown\b/, "↓")
		.replace(/\bLeft\b/, "←")
		.replace(/\bRight\b/, "→");
}

export function isTextInput(target: unknown): boolean {
	if (!target || typeof target !== "object") return false;
	const el = target as { tagName?: unknown; isContentEditable?: unknown; type?: unknown };
	if (el.isContentEditable === true) return true;
	const tag = typeof el.tagName === "string" ? el.tagName.toUpperCase() : "";
	if (tag === "TEXTAREA" || tag === "SELECT") return true;
	if (tag !== "INPUT") return false;
	const type = typeof el.type === "string" ? el.type : "text";
	return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"].includes(type);
}
