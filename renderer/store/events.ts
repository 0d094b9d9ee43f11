// Applies the main process's events to the store: the only way skeletons, leaves and labels change.

import type { ArborEvent } from "../../shared/api";
import { applySkeletonDelta } from "../../shared/skeleton";
import type { AppStore } from "./index";
import { indexOfId } from "./selectors";

/** Called for `menu_command` events (the Electron menu bar): runs a registry command by id. */
export type MenuCommandRunner = (command: string, args: unknown) => void;

export function handleArborEvent(store: AppStore, event: ArborEvent, runMenuCommand?: MenuCommandRunner): void {
	const st = store.getState();
	switch (event.type) {
		case "session_loaded": {
			// Opened outside the renderer (Open Recent in the menu bar, a second `arbor FILE`): the user asked
			// for it, so it becomes the active tab.
			if (!st.sessions[event.session.sessionId]) void st.addSession(event.session);
			else st.setSummary(event.session.sessionId, event.session);
			return;
		}
		case "session_appended": {
			const cur = st.sessions[event.sessionId];
			if (!cur?.skeleton) return;
			if (event.delta.start !== cur.skeleton.count || cur.skeleton.first) {
				// A delta that does not continue our copy (we missed one, or raced a reload; a first skeleton is a
				// part of the file, docs/session-core.md "Progressive open"): refetch.
				void st.refetchSkeleton(event.sessionId);
				return;
			}
			st.setSkeleton(event.sessionId, applySkeletonDelta(cur.skeleton, event.delta));
			return;
		}
		case "session_reloaded": {
			if (!st.sessions[event.sessionId]) return;
			st.setSummary(event.sessionId, event.session);
			st.dropPreviews(event.sessionId);
			st.dropCardData(event.sessionId);
			void st.refetchSkeleton(event.sessionId);
			if (event.reason) st.toast("info", `Reloaded: ${event.reason}`);
			return;
		}
		case "session_closed":
			st.removeSession(event.sessionId);
			return;
		case "leaf_changed": {
			const cur = st.sessions[event.sessionId];
			if (!cur?.skeleton) return;
			const sk = cur.skeleton;
			const find = (id: string | null): number => (id === null ? -1 : indexOfId(sk, id));
			const leaf = find(event.leafId);
			const resumeLeaf = find(event.resumeLeafId);
			// The leaf names an entry we have not received yet: the append event is on its way; refetch to be safe.
			if ((event.leafId !== null && leaf < 0) || (event.resumeLeafId !== null && resumeLeaf < 0)) {
				void st.refetchSkeleton(event.sessionId);
				return;
			}
			if (leaf === sk.leaf && resumeLeaf === sk.resumeLeaf) return;
			st.setSkeleton(event.sessionId, { ...sk, leaf, resumeLeaf });
			return;
		}
		case "labels_changed":
		case "session_tree":
			if (event.type === "labels_changed" || event.fromExtension) void st.refetchSkeleton(event.sessionId);
			return;
		case "session_branch":
			return;
		case "summary_progress":
			if (event.sessionId === st.activeSessionId) st.onSummaryProgress(event.phase, event.text);
			return;
		case "progress":
			st.setProgress({ sessionId: event.sessionId, task: event.task, done: event.done, total: event.total });
			return;
		case "commands_changed":
			void st.loadExtensionCommands();
			return;
		case "model_config_changed":
			void st.refreshActiveModel();
			return;
		case "menu_command":
			runMenuCommand?.(event.command, event.args);
			return;
		case "notice":
			st.toast(event.level === "info" ? "info" : "error", event.source ? `${event.source}: ${event.message}` : event.message);
			return;
		case "error":
			st.toast("error", event.error.message, { file: event.error.file, line: event.error.line });
			return;
		case "host_lost":
			// Nothing the page showed live is known any more: no "Live" badge, Stop button or streaming card stays
			// (issue 38: they stayed after the host died). The files are as they were; a new host reads them again.
			st.toast("error", event.message);
			for (const sessionId of Object.keys(st.live)) st.setLive(sessionId, null, { announce: false });
			return;
		case "live_state":
			// Connected while open: announced; released: announced with pi's reason (exit, dropped connection).
			st.setLive(event.sessionId, event.live, { reason: event.reason, announce: true });
			return;
		case "live_stream":
			st.onLiveStream(event.sessionId, event.phase, event.key, event.parentId, event.message);
			return;
	}
}
