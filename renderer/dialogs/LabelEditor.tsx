// Inline label editor (pi's Shift+L): opens next to the node, prefilled; Enter saves the trimmed text,
// an empty text clears the label, Escape closes without writing.

import { useEffect, useLayoutEffect, useState } from "react";
import { useApp } from "../store";

function nodeRect(entryId: string): DOMRect | null {
	// React Flow renders each node with data-id = its node id, which is the entry id (renderer/graph).
	for (const el of document.querySelectorAll<HTMLElement>(".react-flow__node")) {
		if (el.dataset.id === entryId) return el.getBoundingClientRect();
	}
	return null;
}

export function LabelEditor({ entryId, initial }: { entryId: string; initial: string }) {
	const save = useApp((s) => s.saveLabel);
	const close = useApp((s) => s.closeDialog);
	const [text, setText] = useState(initial);
	const [pos, setPos] = useState<{ left: number; top: number } | null>(null);
	const select = useApp((s) => s.select);
	const focusGraph = useApp((s) => s.focusGraph);

	// However it closes (Enter, Escape, a click outside), the keyboard goes back to the labelled card, not to
	// the page body where no key reaches anything.
	useEffect(
		() => () => {
			requestAnimationFrame(() => {
				const now = document.activeElement;
				if (now && now !== document.body) return;
				select(entryId);
				focusGraph();
			});
		},
		[entryId, select, focusGraph],
	);

	useLayoutEffect(() => {
		const r = nodeRect(entryId);
		if (r) setPos({ left: Math.max(8, Math.min(r.left, window.innerWidth - 340)), top: Math.min(r.bottom + 6, window.innerHeight - 80) });
	}, [entryId]);

	return (
		<div className="modal-backdrop transparent" onMouseDown={(e) => e.target === e.currentTarget && close("labelEditor")}>
			<form
				className="label-editor"
				role="dialog"
				aria-label="Edit label"
				data-testid="label-editor"
				style={pos ?? { left: "50%", top: "30%", transform: "translateX(-50%)" }}
				onSubmit={(e) => {
					e.preventDefault();
					void save(entryId, text);
				}}
			>
				<input
					autoFocus
					data-testid="label-editor-input"
					value={text}
					placeholder="Label (empty removes it)"
					onChange={(e) => setText(e.target.value)}
					onFocus={(e) => e.target.select()}
				/>
				<button type="submit" data-testid="label-editor-save">
					Save
				</button>
			</form>
		</div>
	);
}
