// Filter buttons: the same registry commands as pi's Ctrl+D/T/U/L/A keys.

import { FILTER_MODES, type FilterMode } from "../../shared/api";
import { useServices } from "../commands/services";
import { useApp } from "../store";

const LABELS: Record<FilterMode, { label: string; command: string; key: string }> = {
	default: { label: "Default", command: "filter.default", key: "Ctrl+D" },
	"no-tools": { label: "No tools", command: "filter.noTools", key: "Ctrl+T" },
	"user-only": { label: "User", command: "filter.userOnly", key: "Ctrl+U" },
	"labeled-only": { label: "Labeled", command: "filter.labeledOnly", key: "Ctrl+L" },
	all: { label: "All", command: "filter.all", key: "Ctrl+A" },
};

export function FilterBar() {
	const { store } = useServices().deps;
	const filter = useApp((s) => s.filter);
	return (
		<div className="filter-bar" role="group" aria-label="Filter">
			{FILTER_MODES.map((mode) => (
				<button
					key={mode}
					type="button"
					data-testid={`filter-${mode}`}
					aria-pressed={filter === mode}
					className={filter === mode ? "active" : ""}
					title={`${LABELS[mode].label} (${LABELS[mode].key})`}
					// A click sets the mode (a key toggles it back to default, as in pi).
					onClick={() => store.getState().setFilter(mode)}
				>
					{LABELS[mode].label}
				</button>
			))}
		</div>
	);
}
