// The live badge: a running pi (with Arbor's extension) holds this session, so steering goes through it.
// Says which pi (version, pid), its model, and whether it is idle or working (Stop is next to the composer).

import { agentDisplayName as agentName } from "../../shared/agents";
import { useApp } from "../store";
import type { LiveSessionView } from "../store/live";

/** The sentence the badge stands for (its title and accessible name). */
export function liveDescription(live: LiveSessionView): string {
	const s = live.state;
	const model = s.model ? `${s.model.provider}/${s.model.modelId}` : "no model";
	const doing = s.status === "streaming" ? "working on a turn" : "idle";
	return `Live: ${agentName(s.agent)} ${s.agentVersion} (pid ${s.pid}) holds this session and carries out navigate, branch, label, send and stop. Model ${model}; ${doing}.`;
}

export function LiveBadge({ sessionId }: { sessionId: string }) {
	const live = useApp((s) => s.live[sessionId]);
	if (!live) return null;
	const s = live.state;
	const working = s.status === "streaming";
	return (
		<div
			className={`live-badge${working ? " is-working" : ""}`}
			data-testid="live-badge"
			data-status={s.status}
			role="status"
			aria-label={liveDescription(live)}
			title={liveDescription(live)}
		>
			<span className="live-badge__dot" aria-hidden="true" />
			<span className="live-badge__name">
				Live · {agentName(s.agent)} {s.agentVersion}
			</span>
			<span className="live-badge__pid muted narrow-hide" data-testid="live-pid">
				pid {s.pid}
			</span>
			{s.model && (
				<span className="live-badge__model mono" data-testid="live-model">
					{s.model.modelId}
				</span>
			)}
			<span className="live-badge__state" data-testid="live-state">
				{working ? "working…" : "idle"}
			</span>
		</div>
	);
}

/** A small dot on a tab whose session is live (the badge itself shows for the active tab). */
export function LiveTabDot({ sessionId }: { sessionId: string }) {
	const live = useApp((s) => s.live[sessionId]);
	if (!live) return null;
	return (
		<span
			className={`live-dot${live.state.status === "streaming" ? " is-working" : ""}`}
			data-testid="live-tab-dot"
			title={liveDescription(live)}
			aria-label="live"
		/>
	);
}
