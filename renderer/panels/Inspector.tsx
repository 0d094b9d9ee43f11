// Inspector panel: the selected entry in full, fetched on demand (getEntry) — the skeleton only holds
// one-line previews. Links inside content open outside the app (links.ts), never in its own window.

import { startTransition, useEffect, useState, type MouseEvent } from "react";
import type { SessionEntry } from "../../shared/entries";
import { commandLabel, makeContext } from "../commands/registry";
import { useServices } from "../commands/services";
import { SubtreeStats } from "../compare/SubtreeStats";
import { useApp } from "../store";
import { errorText } from "../store/dialogs";
import { indexOfId } from "../store/selectors";
import { UsageRollupLine } from "./EntryFacts";
import { EntryBody, entryTimes, entryTitle } from "./EntryView";

const FETCH_DELAY_MS = 60;

type Loaded = { id: string; entry: SessionEntry } | { id: string; error: string } | null;

export function Inspector() {
	const { client, deps, registry, run } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const selectedId = useApp((s) => s.selectedId);
	const label = useApp((s) => {
		const sk = s.activeSessionId ? s.sessions[s.activeSessionId]?.skeleton : null;
		if (!sk || !s.selectedId) return null;
		const i = indexOfId(sk, s.selectedId);
		return sk.labels.find((l) => l.target === i)?.label ?? null;
	});
	const [loaded, setLoaded] = useState<Loaded>(null);

	useEffect(() => {
		if (!sessionId || !selectedId) {
			setLoaded(null);
			return;
		}
		let live = true;
		// Holding an arrow key walks many entries: fetch the one the user stops on.
		const timer = setTimeout(() => {
			// A transition: a long message's markdown and highlighted code render in slices between frames
			// instead of one long task (it lands in the middle of a filter switch when the filter moves the
			// selection, bench:ui "filter switch").
			client.request("getEntry", { sessionId, id: selectedId }).then(
				(entry) => live && startTransition(() => setLoaded({ id: selectedId, entry })),
				(err: unknown) => live && setLoaded({ id: selectedId, error: errorText(err) }),
			);
		}, FETCH_DELAY_MS);
		return () => {
			live = false;
			clearTimeout(timer);
		};
	}, [client, sessionId, selectedId]);

	// The registry's copy commands (label, clipboard, "Copied …" toast) on the shown entry.
	const copyButton = (id: string, testId: string) => {
		const cmd = registry.get(id);
		if (!cmd || !selectedId) return null;
		return (
			<button type="button" data-testid={testId} onClick={() => void run(id, { targetId: selectedId, source: "button" })}>
				{commandLabel(cmd, makeContext(deps, { targetId: selectedId, source: "button" }))}
			</button>
		);
	};

	// A link outside the markdown (none today) must not navigate the app either.
	const onClick = (e: MouseEvent): void => {
		if ((e.target as HTMLElement).closest?.("a")) e.preventDefault();
	};

	if (!selectedId)
		return (
			<div className="panel-empty" data-testid="inspector">
				Select an entry to see it in full.
			</div>
		);
	if (!loaded || loaded.id !== selectedId)
		return (
			<div className="panel-empty" data-testid="inspector">
				Loading…
			</div>
		);
	if ("error" in loaded)
		return (
			<div className="panel-empty error-text" data-testid="inspector">
				{loaded.error}
			</div>
		);
	const { entry } = loaded;
	const time = entryTimes(entry);
	return (
		<div className="inspector" data-testid="inspector" onClick={onClick}>
			<div className="inspector-head">
				<span className="kind-badge" data-testid="inspector-kind">
					{entryTitle(entry)}
				</span>
				{label && <span className="label-badge">{label}</span>}
				{time && <span className="muted">{time}</span>}
			</div>
			<div className="inspector-ids mono muted">
				<span title="entry id">{selectedId}</span>
			</div>
			<div className="inspector-actions">
				{copyButton("entry.copyText", "inspector-copy-text")}
				{copyButton("entry.copyId", "inspector-copy-id")}
				{copyButton("entry.copyJson", "inspector-copy-json")}
			</div>
			<SubtreeStats entryId={selectedId} />
			<UsageRollupLine entryId={selectedId} />
			<div className="inspector-body" data-testid="inspector-body">
				<EntryBody entry={entry} />
			</div>
		</div>
	);
}
