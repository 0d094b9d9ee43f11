// Session text as shown on screen (issue 39 item 4): bidi controls and invisible characters become a visible,
// highlighted ⟨U+202E⟩ with the character's name as its tooltip (shared/visible-text.ts has the set and why).
// Only the screen changes: what is sent or written keeps every character.

import { Fragment } from "react";
import { hiddenCharName, isHiddenChar, uiMark, visibleText } from "../../shared/visible-text";

/** A placeholder as visibleText writes it. */
const MARK = /⟨U\+([0-9A-F]{4,6})⟩/g;

/** One hidden character's placeholder, highlighted, named in its tooltip. */
function Mark({ code }: { code: number }) {
	const name = hiddenCharName(code);
	return (
		<span className="hidden-char" title={`${name}: an invisible character in the text, shown by Arbor (the file keeps it)`}>
			{uiMark(code)}
		</span>
	);
}

/** Text with its hidden characters as highlighted placeholders (raw text, or text already through visibleText). */
export function Shown({ text }: { text: string }) {
	const s = visibleText(text);
	if (!s.includes("⟨U+")) return <>{s}</>;
	const out: React.ReactNode[] = [];
	let from = 0;
	for (const m of s.matchAll(MARK)) {
		const at = m.index ?? 0;
		const code = parseInt(m[1], 16);
		// A literal "⟨U+0041⟩" in the text is text, not a placeholder.
		if (!isHiddenChar(code)) continue;
		if (at > from) out.push(<Fragment key={`t${at}`}>{s.slice(from, at)}</Fragment>);
		out.push(<Mark key={`m${at}`} code={code} />);
		from = at + m[0].length;
	}
	if (from < s.length) out.push(<Fragment key="end">{s.slice(from)}</Fragment>);
	return <>{out}</>;
}

/**
 * Marks up the placeholders in HTML already rendered into `root` (markdown, highlighted code): text nodes
 * only, through the DOM, so no HTML is parsed again. The HTML came from visibleText'd source.
 */
export function markHiddenChars(root: Element | null): void {
	if (!root || !root.textContent?.includes("⟨U+")) return;
	const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
	const nodes: Text[] = [];
	for (let n = walker.nextNode(); n; n = walker.nextNode()) if ((n as Text).data.includes("⟨U+")) nodes.push(n as Text);
	for (const node of nodes) {
		const s = node.data;
		const frag = document.createDocumentFragment();
		let from = 0;
		for (const m of s.matchAll(MARK)) {
			const at = m.index ?? 0;
			const code = parseInt(m[1], 16);
			if (!isHiddenChar(code)) continue;
			if (at > from) frag.append(s.slice(from, at));
			const span = document.createElement("span");
			span.className = "hidden-char";
			span.title = `${hiddenCharName(code)}: an invisible character in the text, shown by Arbor (the file keeps it)`;
			span.textContent = m[0];
			frag.append(span);
			from = at + m[0].length;
		}
		if (from < s.length) frag.append(s.slice(from));
		node.replaceWith(frag);
	}
}
