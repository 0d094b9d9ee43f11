// pi's /branch selector: the user messages of the session, newest first; choosing one branches it to a
// new file (branchToFile) and opens that file with the message text in the composer.

import { useEffect, useMemo, useState } from "react";
import { EntryKind } from "../../shared/skeleton";
import { useApp } from "../store";
import { activeSkeleton } from "../store/selectors";
import { Modal } from "./Modal";

const SHOWN = 300;

export function BranchList() {
	const sk = useApp(activeSkeleton);
	const sessionId = useApp((s) => s.activeSessionId);
	const previews = useApp((s) => (s.activeSessionId ? s.previews[s.activeSessionId] : undefined));
	const ensure = useApp((s) => s.ensurePreviews);
	const branch = useApp((s) => s.branchToFile);
	const close = useApp((s) => s.closeDialog);
	const [query, setQuery] = useState("");

	const users = useMemo(() => {
		const out: number[] = [];
		if (!sk) return out;
		for (let i = sk.count - 1; i >= 0; i--) if (sk.kind[i] === EntryKind.user) out.push(i);
		return out;
	}, [sk]);

	useEffect(() => {
		if (sessionId) void ensure(sessionId, users.slice(0, query ? users.length : SHOWN));
	}, [sessionId, users, ensure, query]);

	const tokens = query.toLowerCase().split(/\s+/).filter(Boolean);
	const shown = users.filter((i) => tokens.length === 0 || tokens.every((t) => (previews?.get(i) ?? "").toLowerCase().includes(t))).slice(0, SHOWN);

	return (
		<Modal title="Branch from a user message to a new file" testId="branch-list" wide>
			<input autoFocus data-testid="branch-list-filter" value={query} placeholder="Filter" onChange={(e) => setQuery(e.target.value)} />
			<ul className="pick-list">
				{users.length === 0 && <li className="muted">This session has no user messages.</li>}
				{sk &&
					shown.map((i) => (
						<li key={i}>
							<button
								type="button"
								data-testid="branch-list-item"
								onClick={() => {
									close("branchList");
									void branch(sk.ids[i]);
								}}
							>
								{previews?.get(i) ?? sk.ids[i]}
							</button>
						</li>
					))}
			</ul>
		</Modal>
	);
}
